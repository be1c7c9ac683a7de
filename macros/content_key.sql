{#- A content hash (an MD5 hex digest) as a number: its first 60 bits as a bigint, the same on
    every engine. Joins on millions of rows carry this instead of the 32-character string
    (int_content_pairs_verified: DuckDB ran out of its memory limit joining 40M band keys with
    their hashes as strings at 3M documents). Two different texts share a key with
    probability about n**2 / 2**61 (4e-5 for 10M distinct texts). -#}
{% macro content_key(content_hash) -%}
    {{ lakemix.hex_bigint(content_hash, 15) }}
{%- endmacro %}
