{#- A struct value from `fields`, a mapping of field name to SQL expression (in order). -#}
{% macro struct_pack(fields) -%}
    {{ return(adapter.dispatch('struct_pack', 'lakemix')(fields)) }}
{%- endmacro %}

{% macro duckdb__struct_pack(fields) -%}
    { {%- for name, value in fields.items() %}'{{ name }}': {{ value }}{{ ", " if not loop.last }}{% endfor -%} }
{%- endmacro %}

{% macro spark__struct_pack(fields) -%}
    named_struct( {%- for name, value in fields.items() %}'{{ name }}', {{ value }}{{ ", " if not loop.last }}{% endfor -%} )
{%- endmacro %}
