{#- The extraction settings for a cache key: empty for the default extractor (its behaviour is
    the extract UDF's DEFINITION, bumped when it changes), else the extractor's name. So a
    lakehouse built before extraction existed keeps its rows; choosing another extractor
    refuses an incremental run of every model whose text it changes. -#}
{% macro extraction_settings() -%}
    {%- set name = var('lakemix_extractor') -%}
    {{ return({} if name == 'resiliparse' else {'extractor': name}) }}
{%- endmacro %}
