{#- dbt's is_incremental(), extended to materialized='iceberg' models configured with
    incremental=true: true when the table exists and this is not a --full-refresh run, so the
    model selects only new rows and the materialization appends them as one snapshot. -#}
{% macro is_incremental() %}
    {%- if not execute -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set materialized = model.config.materialized -%}
    {%- set incremental = materialized == 'incremental'
        or (materialized == 'iceberg' and config.get('incremental', false)) -%}
    {%- if not incremental or should_full_refresh() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.table) -%}
    {{ return(relation is not none) }}
{% endmacro %}
