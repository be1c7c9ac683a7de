{#- Fail the query with `message` (a SQL string expression) when evaluated. -#}
{% macro raise_error(message) -%}
    {{ return(adapter.dispatch('raise_error', 'lakemix')(message)) }}
{%- endmacro %}

{% macro duckdb__raise_error(message) -%}
    error({{ message }})
{%- endmacro %}

{% macro spark__raise_error(message) -%}
    raise_error({{ message }})
{%- endmacro %}
