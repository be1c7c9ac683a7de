{#- The aggregate list of `expr` over a group's rows (no order). -#}
{% macro list_agg(expr) -%}
    {{ return(adapter.dispatch('list_agg', 'lakemix')(expr)) }}
{%- endmacro %}

{% macro duckdb__list_agg(expr) -%}
    list({{ expr }})
{%- endmacro %}

{% macro spark__list_agg(expr) -%}
    collect_list({{ expr }})
{%- endmacro %}
