{#- on-run-start: a `dbt build`, `run` or `test` before anything was ingested stops with one line
    saying so, instead of a wall of "schema raw does not exist" from every model and test. -#}
{% macro require_ingested() %}
    {{- return(adapter.dispatch('require_ingested', 'lakemix')()) -}}
{% endmacro %}

{#- Spark reads the catalog's tables directly: a missing one is named by Spark itself. -#}
{% macro default__require_ingested() %}
{% endmacro %}

{% macro duckdb__require_ingested() %}
    {#- Only when the run reads the raw documents (a selection of seeds alone, or a project
        without the staging model, reads nothing raw). -#}
    {%- set reads_raw = 'model.lakemix.stg_raw__documents' in (selected_resources or []) -%}
    {%- if execute and flags.WHICH in ('build', 'run', 'test') and reads_raw -%}
        {%- set documents = adapter.get_relation(
            database=target.database, schema='raw', identifier='documents') -%}
        {%- if documents is none -%}
            {{ exceptions.raise_compiler_error(
                "nothing ingested yet (no raw.documents in this lakehouse): run "
                ~ "`lakemix ingest PATH --source NAME` first, then `dbt build`") }}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
