{#- on-run-end: append what this `dbt build` produced to the Iceberg table meta.build_stats
    (through the plugin's lakemix_append_build_stats UDF, then the DuckDB view), so drift across builds is one query:
    rows per layer, rejection rate per rule and language, duplicate rate, tokens per language,
    test results (counts, and each test's status) and duration. The layer figures describe the tables as the build left them;
    they are left out when a build failed before the marts existed. So are the objectives (var
    lakemix_quality_objectives): completeness in SQL (build_layer_stats), consistency and accuracy
    measured by the plugin (lakemix.objectives.per_build), each build's value for the report's trend. -#}
{% macro record_build_stats(results) %}
    {{- return(adapter.dispatch('record_build_stats', 'lakemix')(results)) -}}
{% endmacro %}

{#- Builds on Spark are not recorded yet: `lakemix release` reads DuckDB's record. -#}
{% macro default__record_build_stats(results) %}
    {%- if execute and flags.WHICH == 'build' -%}
        {{ log("record_build_stats: not recorded on the " ~ target.type ~ " target", info=false) }}
    {%- endif -%}
{% endmacro %}

{% macro duckdb__record_build_stats(results) %}
    {%- if execute and flags.WHICH == 'build' -%}
        {%- set now = modules.datetime.datetime.now(modules.pytz.utc) -%}
        {%- set seconds = (now - run_started_at).total_seconds() -%}
        {%- set tests = results | selectattr('node.resource_type', 'equalto', 'test') | list -%}
        {%- set needed = [
            ('raw', 'documents'),
            ('intermediate', 'int_documents_language_scored'),
            ('intermediate', 'int_documents_quality_filtered'),
            ('marts', 'fct_clean_documents'),
            ('marts', 'fct_document_rejections'),
            ('marts', 'fct_rule_rejections'),
            ('seeds', 'quality_thresholds'),
        ] -%}
        {%- set missing = [] -%}
        {%- set objectives = var('lakemix_quality_objectives', {}) or {} -%}
        {%- for schema, name in needed -%}
            {%- if adapter.get_relation(
                database=target.database, schema=schema, identifier=name
            ) is none -%}
                {%- do missing.append(schema ~ '.' ~ name) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set append_sql -%}
        select lakemix_append_build_stats('{{ invocation_id }}', (
            select cast(to_json(list(build_stats)) as varchar) from (
                select
                    'duration_seconds' as metric,
                    'build' as dimension,
                    cast(null as varchar) as language,
                    cast(null as bigint) as document_count,
                    cast({{ seconds }} as double) as value
                {%- for status in ['pass', 'warn', 'fail', 'error', 'skipped'] %}
                union all by name
                select
                    'tests' as metric,
                    '{{ status }}' as dimension,
                    {{ tests | selectattr('status', 'equalto', status) | list | length }} as document_count,
                    {{ tests | selectattr('status', 'equalto', status) | list | length }} as value
                {%- endfor %}
                {%- if tests %}
                union all by name
                select 'test_status' as metric, * from (values
                    {%- for r in tests %}
                    ('{{ r.node.name | replace("'", "''") }}', '{{ r.status }}', {{ r.failures if r.failures is not none else 'null' }}){{ "," if not loop.last }}
                    {%- endfor %}
                ) as test_results(dimension, note, document_count)
                {%- endif %}
                {%- if not missing %}
                union all by name
                select * from ({{ lakemix.build_layer_stats() }})
                {%- endif %}
            ) as build_stats
        ), '{{ (tojson(objectives) if objectives and not missing else "") | replace("'", "''") }}')
        {%- endset -%}
        {%- do run_query(append_sql) -%}
        {#- Point the DuckDB view at the snapshot just written (the plugin made it at connect),
            and commit: dbt rolls back what its hooks leave open. -#}
        {%- set location = run_query("select lakemix_metadata_location('meta.build_stats')").columns[0].values()[0] -%}
        {%- do run_query("create schema if not exists meta") -%}
        {%- do run_query("create or replace view meta.build_stats as select * from iceberg_scan('"
            ~ location | replace("'", "''") ~ "')") -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
{% endmacro %}
