{#- Every column of `alias` (a relation of the query reading `relation`) but `exclude`. DuckDB
    says it in SQL; Spark has no EXCLUDE, so the columns are listed from the warehouse. -#}
{% macro star_except(alias, relation, exclude) -%}
    {{ return(adapter.dispatch('star_except', 'lakemix')(alias, relation, exclude)) }}
{%- endmacro %}

{% macro duckdb__star_except(alias, relation, exclude) -%}
    {{ alias }}.* exclude ({{ exclude | join(', ') }})
{%- endmacro %}

{% macro spark__star_except(alias, relation, exclude) -%}
    {{ lakemix.columns_of(relation, alias, exclude) }}
{%- endmacro %}
