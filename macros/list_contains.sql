{#- Whether the list `expr` holds `element`. -#}
{% macro list_contains(expr, element) -%}
    {{ return(adapter.dispatch('list_contains', 'lakemix')(expr, element)) }}
{%- endmacro %}

{% macro duckdb__list_contains(expr, element) -%}
    list_contains({{ expr }}, {{ element }})
{%- endmacro %}

{% macro spark__list_contains(expr, element) -%}
    array_contains({{ expr }}, {{ element }})
{%- endmacro %}
