{#- A content hash (an MD5 hex digest) as a number: its first 60 bits as a bigint, the same on
    every engine. Joins on millions of rows carry this instead of the 32-character string
    (int_content_pairs_verified: DuckDB ran out of its memory limit joining 40M band keys with
    their hashes as strings at 3M documents). Two different texts share a key with
    probability about n**2 / 2**61 (4e-5 for 10M distinct texts). -#}
{% macro content_key(content_hash) -%}
    {{ return(adapter.dispatch('content_key', 'lakemix')(content_hash)) }}
{%- endmacro %}

{% macro default__content_key(content_hash) -%}
    cast(('0x' || left({{ content_hash }}, 15)) as bigint)
{%- endmacro %}

{#- Spark casts no hexadecimal string: conv() reads it. -#}
{% macro spark__content_key(content_hash) -%}
    cast(conv(left({{ content_hash }}, 15), 16, 10) as bigint)
{%- endmacro %}
