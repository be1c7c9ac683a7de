{#- The text stored under `content_hash` in the text store (macro store_text), or null when the
    store lacks it: a model falls back to reading the documents for those. Spark: null. -#}
{% macro stored_text(content_hash) -%}
    {{ return(adapter.dispatch('stored_text', 'lakemix')(content_hash)) }}
{%- endmacro %}

{% macro default__stored_text(content_hash) -%}
    cast(null as string)
{%- endmacro %}

{% macro duckdb__stored_text(content_hash) -%}
    lakemix_stored_text({{ content_hash }})
{%- endmacro %}
