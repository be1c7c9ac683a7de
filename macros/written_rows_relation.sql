{#- The relation a test filtered by `where: __written_rows__` reads: the rows of the model's
    table written after the snapshot the last passing full `dbt build` tested
    (main.lakemix_tested_snapshots, macro record_tested_ingests), as the SQL of a scan of the
    data files added since (plugin UDF lakemix_written_rows), or '' for every row: with var
    full_tests, on --full-refresh, before the first passing build, when that snapshot is gone
    from the table's metadata, and on targets that keep no record (Spark). -#}
{% macro written_rows_relation(relation) %}
    {{- return(adapter.dispatch('written_rows_relation', 'lakemix')(relation)) -}}
{% endmacro %}

{% macro default__written_rows_relation(relation) %}
    {{- return('') -}}
{% endmacro %}

{% macro duckdb__written_rows_relation(relation) %}
    {%- if not execute or lakemix.tested_record('lakemix_tested_snapshots') is none -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set name = relation.schema ~ '.' ~ relation.identifier -%}
    {%- set since = run_query(
        "select max_by(snapshot_id, tested_at) from main.lakemix_tested_snapshots"
        ~ " where table_name = '" ~ name ~ "'"
    ).columns[0].values()[0] -%}
    {%- if since is none -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set written = run_query(
        "select lakemix_written_rows('" ~ name ~ "', " ~ since ~ ")"
    ).columns[0].values()[0] -%}
    {{- return(written or '') -}}
{% endmacro %}
