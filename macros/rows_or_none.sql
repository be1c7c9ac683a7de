{#- `select * from relation`, or no rows of its columns (lakemix.meta_columns) where it does
    not exist yet: a table lakemix writes outside dbt only once a user asks for it
    (meta.url_blocklists by `lakemix blocklist add`, meta.benchmarks by `lakemix benchmark
    add`). -#}
{% macro rows_or_none(relation) -%}
    {%- set found = adapter.get_relation(
        database=relation.database, schema=relation.schema, identifier=relation.identifier
    ) if execute else relation -%}
    {%- if found is not none -%}
        select * from {{ relation }}
    {%- else -%}
        select
        {%- for name, type in lakemix.meta_columns(relation.identifier).items() %}
            cast(null as {{ lakemix.sql_type(type) }}) as {{ name }}{{ "," if not loop.last }}
        {%- endfor %}
        where false
    {%- endif -%}
{%- endmacro %}
