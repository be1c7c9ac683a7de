{#- The content hash of `text` (its md5). On DuckDB the text is also written to the text store
    under that hash, in a segment the plugin commits with the model's rows (a full refresh's
    segment replaces the store): the dedup models read texts back by hash (macro stored_text)
    instead of scanning every document's text. Spark: the hash only. -#}
{% macro store_text(text) -%}
    {{ return(adapter.dispatch('store_text', 'lakemix')(text)) }}
{%- endmacro %}

{% macro default__store_text(text) -%}
    md5({{ text }})
{%- endmacro %}

{% macro duckdb__store_text(text) -%}
    lakemix_store_text(
        '{{ this.schema }}.{{ this.identifier }}',
        {{ 'false' if is_incremental() else 'true' }},
        md5({{ text }}),
        {{ text }}
    )
{%- endmacro %}
