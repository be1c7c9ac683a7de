{#- The first `digits` hexadecimal digits of a string (at most 15: a positive bigint) as a
    number, the same on every engine: what content_key and unit_hash make of an MD5 digest. -#}
{% macro hex_bigint(hex, digits) -%}
    {{ return(adapter.dispatch('hex_bigint', 'lakemix')(hex, digits)) }}
{%- endmacro %}

{% macro default__hex_bigint(hex, digits) -%}
    cast(('0x' || left({{ hex }}, {{ digits }})) as bigint)
{%- endmacro %}

{#- Spark casts no hexadecimal string: conv() reads it. -#}
{% macro spark__hex_bigint(hex, digits) -%}
    cast(conv(left({{ hex }}, {{ digits }}), 16, 10) as bigint)
{%- endmacro %}
