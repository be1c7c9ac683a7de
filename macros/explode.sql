{#- One row per element of the list `expr` (in a select list). -#}
{% macro explode(expr) -%}
    {{ return(adapter.dispatch('explode', 'lakemix')(expr)) }}
{%- endmacro %}

{% macro duckdb__explode(expr) -%}
    unnest({{ expr }})
{%- endmacro %}

{% macro spark__explode(expr) -%}
    explode({{ expr }})
{%- endmacro %}
