{#- The lists `items` one after the other. -#}
{% macro list_concat(items) -%}
    {{ return(adapter.dispatch('list_concat', 'lakemix')(items)) }}
{%- endmacro %}

{% macro duckdb__list_concat(items) -%}
    list_concat({{ items | join(', ') }})
{%- endmacro %}

{% macro spark__list_concat(items) -%}
    concat({{ items | join(', ') }})
{%- endmacro %}
