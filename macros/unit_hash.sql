{#- A number in [0, 1) that is a pure function of its arguments (MD5 of their ':'-joined
    text, first 52 bits), the same on every engine, partitioning and order: the basis of
    every sampling decision. -#}
{% macro unit_hash() -%}
    {{ return(adapter.dispatch('unit_hash', 'lakemix')(varargs)) }}
{%- endmacro %}

{% macro default__unit_hash(parts) -%}
    (cast(('0x' || left(md5(concat_ws(':', {{ parts | join(', ') }})), 13)) as bigint) / 4503599627370496.0)
{%- endmacro %}

{#- Spark casts no hexadecimal string: conv() reads it. -#}
{% macro spark__unit_hash(parts) -%}
    (cast(conv(left(md5(concat_ws(':', {{ parts | join(', ') }})), 13), 16, 10) as bigint) / 4503599627370496.0)
{%- endmacro %}
