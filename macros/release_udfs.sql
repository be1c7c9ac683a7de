{#- Post-hook of the one model that calls a UDF module with large state (the quality signals'
    word segmenters): drop that state once the model is done, so the rest of the build does not
    carry it (lakemix.udf.release). Spark's UDFs live in its Python workers: nothing to do. -#}
{% macro release_udfs(module) -%}
    {{ return(adapter.dispatch('release_udfs', 'lakemix')(module)) }}
{%- endmacro %}

{#- The hook is left empty (dbt skips it). -#}
{% macro default__release_udfs(module) -%}
{%- endmacro %}

{% macro duckdb__release_udfs(module) -%}
    select lakemix_release_udfs('{{ module }}')
{%- endmacro %}
