{#- A column of a raw table, or a typed NULL where the table (or the snapshot a rebuild pins)
    was written before the column existed: the fetched-page columns of raw.documents came
    after the first releases. -#}
{% macro raw_column(relation, name, type) -%}
    {%- if execute and name not in lakemix.column_names(relation) | map('lower') | list -%}
        cast(null as {{ lakemix.sql_type(type) }})
    {%- else -%}
        {{ adapter.quote(name) }}
    {%- endif -%}
{%- endmacro %}
