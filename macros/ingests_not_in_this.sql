{#- In an incremental model's WHERE clause, beside not_in_this: `column` (an ingest id) is one of
    the ingests of raw.documents that this model has no row of yet, the ids listed as constants;
    `true` on a first run or a full refresh, `false` when every ingest is in. DuckDB runs
    not_in_this's NOT IN subquery as a join above the scan, so a model reading the staging view
    normalized the text of every document of every ingest before the join dropped the rows it
    had (6.3 s of a build with nothing new at 100k documents); a list of constants filters in
    the scan. A document of an ingest that is in (the same document ingested twice) is skipped
    by not_in_this anyway; an ingest whose documents all were in already is listed every build. -#}
{% macro ingests_not_in_this(column='ingest_id', key='ingest_id') %}
    {{- return(adapter.dispatch('ingests_not_in_this', 'lakemix')(column, key)) -}}
{% endmacro %}

{% macro default__ingests_not_in_this(column, key) %}
    {{- return('true') -}}
{% endmacro %}

{% macro duckdb__ingests_not_in_this(column, key) %}
    {%- if not is_incremental() or not execute -%}
        {{- return('true') -}}
    {%- endif -%}
    {%- set new = run_query(
        "select distinct ingest_id from raw.documents"
        ~ " where ingest_id not in (select distinct " ~ key ~ " from " ~ this ~ ")"
        ~ " order by ingest_id"
    ).columns[0].values() -%}
    {{- return(lakemix.ingests_in(column, new)) -}}
{% endmacro %}
