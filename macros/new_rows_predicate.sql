{#- The rows a test filtered by `where: __new_rows__` checks: those of ingests that no passing
    full `dbt build` has tested yet (main.lakemix_tested_ingests, macro record_tested_ingests),
    as a list of their ids (`false` when every ingest was tested).
    Every row when var full_tests is true, on --full-refresh, before the first passing build,
    and on targets that keep no record (Spark). -#}
{% macro new_rows_predicate() %}
    {{- return(adapter.dispatch('new_rows_predicate', 'lakemix')()) -}}
{% endmacro %}

{% macro default__new_rows_predicate() %}
    {{- return('true') -}}
{% endmacro %}

{% macro duckdb__new_rows_predicate() %}
    {%- if lakemix.tested_record('lakemix_tested_ingests') is none -%}
        {{- return('true') -}}
    {%- endif -%}
    {%- if not execute -%}
        {{- return('ingest_id not in (select ingest_id from main.lakemix_tested_ingests)') -}}
    {%- endif -%}
    {#- The ids themselves, not that subquery: DuckDB runs a NOT IN subquery as a join above the
        scan and pushes the test's own condition (a UDF of the staging view, such as
        normalizing text) into the scan of every row; a list of constants filters first. -#}
    {%- set untested = run_query(
        "select distinct ingest_id from raw.documents where ingest_id not in"
        ~ " (select ingest_id from main.lakemix_tested_ingests) order by ingest_id"
    ).columns[0].values() -%}
    {{- return(lakemix.ingests_in('ingest_id', untested)) -}}
{% endmacro %}
