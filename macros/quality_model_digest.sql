{#- SHA-256 of the quality model the build scores with (var lakemix_quality_model: 'default',
    the model that ships with lakemix, or the path of a model file), for the cache key of the
    model that scores: a new model re-scores every document. Fails, naming the var, when the
    file is missing or damaged. '' while parsing and on engines without the query. -#}
{% macro quality_model_digest() -%}
    {{ return(adapter.dispatch('quality_model_digest', 'lakemix')()) }}
{%- endmacro %}

{% macro default__quality_model_digest() -%}
    {{ return('') }}
{%- endmacro %}

{% macro duckdb__quality_model_digest() -%}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set model = var('lakemix_quality_model') | replace("'", "''") -%}
    {%- set sql = "select lakemix_quality_model_digest('" ~ model ~ "')" -%}
    {{ return(run_query(sql).columns[0].values()[0]) }}
{%- endmacro %}
