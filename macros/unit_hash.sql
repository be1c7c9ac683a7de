{#- A number in [0, 1) that is a pure function of its arguments (MD5 of their ':'-joined
    text, first 52 bits), the same on every engine, partitioning and order: the basis of
    every sampling decision. -#}
{% macro unit_hash() -%}
    ({{ lakemix.hex_bigint("md5(concat_ws(':', " ~ (varargs | join(', ')) ~ "))", 13) }} / 4503599627370496.0)
{%- endmacro %}
