{#- One column per field of the struct `expr` (in a select list). -#}
{% macro struct_columns(expr) -%}
    {{ return(adapter.dispatch('struct_columns', 'lakemix')(expr)) }}
{%- endmacro %}

{% macro duckdb__struct_columns(expr) -%}
    unnest({{ expr }})
{%- endmacro %}

{% macro spark__struct_columns(expr) -%}
    {{ expr }}.*
{%- endmacro %}
