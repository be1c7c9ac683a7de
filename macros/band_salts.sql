{#- How many join tasks share the pairs of one hot LSH band key (int_content_pairs_verified):
    1 on DuckDB (one process: nothing to spread), lakemix_spark_band_salts on Spark. -#}
{% macro band_salts() -%}
    {{ return(adapter.dispatch('band_salts', 'lakemix')()) }}
{%- endmacro %}

{% macro default__band_salts() -%}
    {{ return(1) }}
{%- endmacro %}

{% macro spark__band_salts() -%}
    {{ return(var('lakemix_spark_band_salts') | int) }}
{%- endmacro %}
