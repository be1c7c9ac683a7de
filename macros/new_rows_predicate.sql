{#- The rows a test filtered by `where: __new_rows__` checks: those of ingests that no passing
    full `dbt build` has tested yet (main.lakemix_tested_ingests, macro record_tested_ingests).
    Every row when var full_tests is true, on --full-refresh, before the first passing build,
    and on targets that keep no record (Spark). -#}
{% macro new_rows_predicate() %}
    {{- return(adapter.dispatch('new_rows_predicate', 'lakemix')()) -}}
{% endmacro %}

{% macro default__new_rows_predicate() %}
    {{- return('true') -}}
{% endmacro %}

{% macro duckdb__new_rows_predicate() %}
    {%- if var('full_tests', false) or flags.FULL_REFRESH -%}
        {{- return('true') -}}
    {%- endif -%}
    {%- set tested = adapter.get_relation(
        database=target.database, schema='main', identifier='lakemix_tested_ingests'
    ) -%}
    {%- if tested is none -%}
        {{- return('true') -}}
    {%- endif -%}
    {{- return('ingest_id not in (select ingest_id from main.lakemix_tested_ingests)') -}}
{% endmacro %}
