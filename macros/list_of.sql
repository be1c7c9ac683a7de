{#- A list literal of the expressions `items`; with `element_type` (a type of
    lakemix.sql_type) and no items, an empty list of that type. -#}
{% macro list_of(items, element_type=none) -%}
    {{ return(adapter.dispatch('list_of', 'lakemix')(items, element_type)) }}
{%- endmacro %}

{% macro duckdb__list_of(items, element_type) -%}
    {%- if element_type is none -%}
        [{{ items | join(', ') }}]
    {%- else -%}
        cast([{{ items | join(', ') }}] as {{ lakemix.sql_type(element_type) }}[])
    {%- endif -%}
{%- endmacro %}

{% macro spark__list_of(items, element_type) -%}
    {%- if element_type is none -%}
        array({{ items | join(', ') }})
    {%- else -%}
        cast(array({{ items | join(', ') }}) as array<{{ lakemix.sql_type(element_type) }}>)
    {%- endif -%}
{%- endmacro %}
