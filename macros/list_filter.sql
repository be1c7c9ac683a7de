{#- The elements of the list `expr` for which `body` is true. -#}
{% macro list_filter(expr, element, body) -%}
    {{ return(adapter.dispatch('list_filter', 'lakemix')(expr, element, body)) }}
{%- endmacro %}

{% macro duckdb__list_filter(expr, element, body) -%}
    list_filter({{ expr }}, {{ element }} -> {{ body }})
{%- endmacro %}

{% macro spark__list_filter(expr, element, body) -%}
    filter({{ expr }}, {{ element }} -> {{ body }})
{%- endmacro %}
