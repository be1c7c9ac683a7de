{#- `column in ('id', ...)`: the ingest ids given, quoted as SQL constants; `false` for none. -#}
{% macro ingests_in(column, ingest_ids) %}
    {%- if not ingest_ids -%}
        {{- return('false') -}}
    {%- endif -%}
    {%- set quoted = [] -%}
    {%- for ingest_id in ingest_ids -%}
        {%- do quoted.append("'" ~ (ingest_id | replace("'", "''")) ~ "'") -%}
    {%- endfor -%}
    {{- return(column ~ ' in (' ~ quoted | join(', ') ~ ')') -}}
{% endmacro %}
