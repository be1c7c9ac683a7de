{#- MD5 of the rows of `relation` (its `columns`, joined with ':' per row and ',' between rows,
    in that order), for an incremental model's cache key: its stored rows depend on a seed's
    contents, not only on vars. Renders '' while parsing, before the relation exists, and on
    engines without the query. -#}
{% macro relation_digest(relation, columns) -%}
    {{ return(adapter.dispatch('relation_digest', 'lakemix')(relation, columns)) }}
{%- endmacro %}

{% macro default__relation_digest(relation, columns) -%}
    {{ return('') }}
{%- endmacro %}

{% macro duckdb__relation_digest(relation, columns) -%}
    {%- if not execute or load_relation(relation) is none -%}
        {{ return('') }}
    {%- endif -%}
    {%- set row = "concat_ws(':', " ~ columns | join(', ') ~ ")" -%}
    {%- set sql = "select coalesce(md5(string_agg(" ~ row ~ ", ',' order by " ~ columns | join(', ')
        ~ ")), '') from " ~ relation -%}
    {{ return(run_query(sql).columns[0].values()[0]) }}
{%- endmacro %}
