{#- An engine's name of a type given as a scalar name (bigint, double, string, boolean,
    timestamptz: an instant, Iceberg's timestamptz, which Spark calls timestamp) or a struct: a
    mapping of field name to type. -#}
{% macro sql_type(type) -%}
    {{ return(adapter.dispatch('sql_type', 'lakemix')(type)) }}
{%- endmacro %}

{% macro duckdb__sql_type(type) -%}
    {%- if type is mapping -%}
        struct({% for name, field in type.items() %}{{ name }} {{ lakemix.sql_type(field) }}{{ ", " if not loop.last }}{% endfor %})
    {%- else -%}
        {{ type }}
    {%- endif -%}
{%- endmacro %}

{% macro spark__sql_type(type) -%}
    {%- if type is mapping -%}
        struct<{% for name, field in type.items() %}{{ name }}: {{ lakemix.sql_type(field) }}{{ ", " if not loop.last }}{% endfor %}>
    {%- elif type == 'timestamptz' -%}
        timestamp
    {%- else -%}
        {{ type }}
    {%- endif -%}
{%- endmacro %}
