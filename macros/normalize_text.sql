{#- Unicode NFC, control characters stripped (tab and newline kept), horizontal whitespace
    collapsed to one space, no spaces around line breaks, at most one blank line in a row.
    Line and paragraph structure is kept: the quality signals are computed per line.
    One vectorized UDF (python/lakemix/udf/normalize.py) on both engines: as four
    regexp_replace calls around nfc_normalize it cost DuckDB 160 us a document. -#}
{% macro normalize_text(column) -%}
    lakemix_normalize_text({{ column }})
{%- endmacro %}
