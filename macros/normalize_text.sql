{#- Unicode NFC, control characters stripped (tab and newline kept), horizontal whitespace
    collapsed to one space, no spaces around line breaks, at most one blank line in a row.
    Line and paragraph structure is kept: the quality signals are computed per line. -#}
{% macro normalize_text(column) -%}
    {{ return(adapter.dispatch('normalize_text', 'lakemix')(column)) }}
{%- endmacro %}

{% macro duckdb__normalize_text(column) -%}
    trim(
        regexp_replace(
            regexp_replace(
                regexp_replace(
                    regexp_replace(
                        nfc_normalize(replace(replace({{ column }}, chr(13) || chr(10), chr(10)), chr(13), chr(10))),
                        '[\x{0}-\x{8}\x{B}-\x{1F}\x{7F}-\x{9F}\x{FEFF}]', '', 'g'
                    ),
                    '[\t\p{Zs}]+', ' ', 'g'
                ),
                ' ?\n ?', chr(10), 'g'
            ),
            '\n{3,}', chr(10) || chr(10), 'g'
        ),
        ' ' || chr(10)
    )
{%- endmacro %}

{#- Spark: the same regular expressions in Java's syntax (backslashes doubled for Spark's
    string literals); NFC through the lakemix_nfc_normalize UDF (pyarrow's utf8_normalize). -#}
{% macro spark__normalize_text(column) -%}
    btrim(
        regexp_replace(
            regexp_replace(
                regexp_replace(
                    regexp_replace(
                        lakemix_nfc_normalize(replace(replace({{ column }}, chr(13) || chr(10), chr(10)), chr(13), chr(10))),
                        '[\\x{0}-\\x{8}\\x{B}-\\x{1F}\\x{7F}-\\x{9F}\\x{FEFF}]', ''
                    ),
                    '[\\t\\p{Zs}]+', ' '
                ),
                ' ?\\n ?', chr(10)
            ),
            '\\n{3,}', chr(10) || chr(10)
        ),
        ' ' || chr(10)
    )
{%- endmacro %}
