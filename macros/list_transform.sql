{#- The list `expr` with `body` applied to each element, named `element` in `body`. -#}
{% macro list_transform(expr, element, body) -%}
    {{ return(adapter.dispatch('list_transform', 'lakemix')(expr, element, body)) }}
{%- endmacro %}

{% macro duckdb__list_transform(expr, element, body) -%}
    list_transform({{ expr }}, {{ element }} -> {{ body }})
{%- endmacro %}

{% macro spark__list_transform(expr, element, body) -%}
    transform({{ expr }}, {{ element }} -> {{ body }})
{%- endmacro %}
