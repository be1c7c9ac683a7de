{#- The record of what passing full builds tested, main.<identifier> (lakemix_tested_ingests,
    lakemix_tested_snapshots: macro record_tested_ingests), when a test may rely on it: none
    with var full_tests, on --full-refresh and before the first passing build (every row is
    tested then). Shared by new_rows_predicate and written_rows_relation. -#}
{% macro tested_record(identifier) %}
    {%- if var('full_tests', false) or flags.FULL_REFRESH -%}
        {{- return(none) -}}
    {%- endif -%}
    {{- return(adapter.get_relation(
        database=target.database, schema='main', identifier=identifier
    )) -}}
{% endmacro %}
