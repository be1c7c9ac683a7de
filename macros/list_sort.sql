{#- The list `expr` in ascending order (structs: by their first field, then the next). -#}
{% macro list_sort(expr) -%}
    {{ return(adapter.dispatch('list_sort', 'lakemix')(expr)) }}
{%- endmacro %}

{% macro duckdb__list_sort(expr) -%}
    list_sort({{ expr }})
{%- endmacro %}

{% macro spark__list_sort(expr) -%}
    array_sort({{ expr }})
{%- endmacro %}
