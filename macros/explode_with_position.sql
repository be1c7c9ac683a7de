{#- Select-list items: one row per element of the list `expr`, with its 0-based position in
    `position_name` and the element in `value_name`. -#}
{% macro explode_with_position(expr, position_name, value_name) -%}
    {{ return(adapter.dispatch('explode_with_position', 'lakemix')(expr, position_name, value_name)) }}
{%- endmacro %}

{% macro duckdb__explode_with_position(expr, position_name, value_name) -%}
    unnest(generate_series(0, len({{ expr }}) - 1)) as {{ position_name }},
    unnest({{ expr }}) as {{ value_name }}
{%- endmacro %}

{% macro spark__explode_with_position(expr, position_name, value_name) -%}
    posexplode({{ expr }}) as ({{ position_name }}, {{ value_name }})
{%- endmacro %}
