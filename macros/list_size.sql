{#- The number of elements of the list `expr`. -#}
{% macro list_size(expr) -%}
    {{ return(adapter.dispatch('list_size', 'lakemix')(expr)) }}
{%- endmacro %}

{% macro duckdb__list_size(expr) -%}
    len({{ expr }})
{%- endmacro %}

{% macro spark__list_size(expr) -%}
    size({{ expr }})
{%- endmacro %}
