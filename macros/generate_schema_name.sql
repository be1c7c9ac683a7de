{#- Use a model's custom schema as it is (marts, not main_marts): schemas are Iceberg namespaces. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {{ return(adapter.dispatch('generate_schema_name', 'lakemix')(custom_schema_name, node)) }}
{%- endmacro %}

{% macro default__generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}

{#- On Spark every table lives in the Iceberg catalog, seeds included: Spark's copies of the
    seeds go to spark_seeds, so that they never take the names of DuckDB's seed tables. -#}
{% macro spark__generate_schema_name(custom_schema_name, node) -%}
    {%- set name = default__generate_schema_name(custom_schema_name, node) | trim -%}
    {{ 'spark_' ~ name if node.resource_type == 'seed' else name }}
{%- endmacro %}
