{#- Time travel in SQL: the relation `table` ('namespace.table') as it was at `version`, a
    release tag, a snapshot id or an ISO timestamp.
    `select count(*) from {{ lakemix.at('marts.mix_demo_unimax', 'v1') }}` -#}
{% macro at(table, version) %}
    {%- if execute -%}
        {%- set sql = "select lakemix_scan_at('" ~ table | replace("'", "''") ~ "', '"
            ~ (version | string) | replace("'", "''") ~ "')" -%}
        {{- run_query(sql).columns[0].values()[0] -}}
    {%- else -%}
        (select 1)
    {%- endif -%}
{% endmacro %}
