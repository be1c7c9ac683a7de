{#- Whether `expr` contains a match of the regular expression `pattern` (a Python string,
    not a SQL literal: it is quoted here, as each engine's string literals need). -#}
{% macro regexp_matches(expr, pattern) -%}
    {{ return(adapter.dispatch('regexp_matches', 'lakemix')(expr, pattern)) }}
{%- endmacro %}

{% macro duckdb__regexp_matches(expr, pattern) -%}
    regexp_matches({{ expr }}, '{{ pattern | replace("'", "''") }}')
{%- endmacro %}

{#- Spark's string literals take backslash escapes: double each backslash. -#}
{% macro spark__regexp_matches(expr, pattern) -%}
    {{ expr }} rlike '{{ pattern | replace("\\", "\\\\") | replace("'", "\\'") }}'
{%- endmacro %}
