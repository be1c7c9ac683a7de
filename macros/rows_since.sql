{#- In an incremental model's FROM clause: the rows of the Iceberg model `relation` that this
    model has not read yet, found by snapshot, not by reading every row: the data files added
    since the snapshot of `relation` its last run read (the plugin records it with the rows
    the run commits), or every row on a first run, a full refresh, or when those files cannot
    be told. A superset of the new rows: keep the model's anti-join on its key. -#}
{% macro rows_since(relation) -%}
    {{ return(adapter.dispatch('rows_since', 'lakemix')(relation)) }}
{%- endmacro %}

{% macro default__rows_since(relation) -%}
    {{ relation }}
{%- endmacro %}

{% macro duckdb__rows_since(relation) -%}
    {%- if execute -%}
        {%- set sql = "select lakemix_rows_since('" ~ relation.schema ~ "." ~ relation.identifier
            ~ "', '" ~ this.schema ~ "." ~ this.identifier ~ "', "
            ~ ('true' if is_incremental() else 'false') ~ ")" -%}
        {%- set rows = run_query(sql).columns[0].values()[0] -%}
        {{- rows if rows else relation -}}
    {%- else -%}
        {{ relation }}
    {%- endif -%}
{%- endmacro %}
