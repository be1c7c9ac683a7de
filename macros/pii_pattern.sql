{#- RE2 patterns (DuckDB regexp_matches) of PII that must not survive redaction; used by the
    no_pii_pattern test. They equal lakemix.udf.pii.EMAIL_PATTERN_RE2 and IPV4_PATTERN_RE2
    (python/tests/unit/udf/test_pii_pattern_macro.py checks it). -#}
{% macro pii_pattern(kind) -%}
    {%- set patterns = {
        'email': '[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\\.)+[A-Za-z]{2,63}',
        'ipv4': '(?:^|[^A-Za-z0-9.])(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}(?:$|[^0-9.]|\\.$|\\.[^0-9])',
    } -%}
    {%- if kind not in patterns -%}
        {{ exceptions.raise_compiler_error("pii_pattern: unknown kind " ~ kind ~ "; use one of " ~ patterns.keys() | list) }}
    {%- endif -%}
    {{ patterns[kind] }}
{%- endmacro %}
