{#- on-run-end: remember whether this `dbt build` passed (lakemix release refuses otherwise),
    in main.lakemix_builds and in meta.builds (lakemix.dbt.build_record).
    A failing error-severity test ends in 'fail', a broken model in 'error', and what a failure
    kept from running in 'skipped'; 'warn' (warn-severity tests) does not block a release. -#}
{% macro record_build_result(results) %}
    {{- return(adapter.dispatch('record_build_result', 'lakemix')(results)) -}}
{% endmacro %}

{#- Builds on Spark are not recorded yet: `lakemix release` reads DuckDB's record. -#}
{% macro default__record_build_result(results) %}
    {%- if execute and flags.WHICH == 'build' -%}
        {{ log("record_build_result: not recorded on the " ~ target.type ~ " target", info=false) }}
    {%- endif -%}
{% endmacro %}

{% macro duckdb__record_build_result(results) %}
    {%- if execute and flags.WHICH == 'build' -%}
        {%- set failures = [] -%}
        {%- for result in results -%}
            {%- if result.status in ('error', 'fail', 'runtime error', 'skipped') -%}
                {%- do failures.append(result.node.unique_id ~ ': ' ~ result.status) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set vars_json = tojson(invocation_args_dict.get('vars') or {}) -%}
        {%- set failures_json = tojson(failures) -%}
        create table if not exists main.lakemix_builds (
            invocation_id varchar,
            finished_at timestamptz,
            is_passed boolean,
            failures json,
            cli_vars json
        );
        insert into main.lakemix_builds values (
            '{{ invocation_id }}',
            now(),
            {{ 'true' if not failures else 'false' }},
            '{{ failures_json | replace("'", "''") }}',
            '{{ vars_json | replace("'", "''") }}'
        );
        {#- The same in the lakehouse's catalog (meta.builds), with the thresholds seed as built:
            what readers take while a later build holds this DuckDB file, and what a lakehouse
            restored from a copy keeps. -#}
        {%- set thresholds = adapter.get_relation(
            database=target.database, schema='seeds', identifier='quality_thresholds') %}
        select lakemix_record_build(
            '{{ invocation_id }}',
            {{ 'true' if not failures else 'false' }},
            '{{ failures_json | replace("'", "''") }}',
            '{{ vars_json | replace("'", "''") }}',
            {% if thresholds is not none -%}
            (select cast(to_json(list(seed)) as varchar) from {{ thresholds }} as seed)
            {%- else -%}
            cast(null as varchar)
            {%- endif %}
        );
    {%- endif -%}
{% endmacro %}
