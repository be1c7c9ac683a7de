{{ config(incremental=true) }}
{{ lakemix.cache_key({'tokenizer': var('lakemix_tokenizer')}, udfs=['tokens']) }}

{#- Token counts of the documents that end up clean (kept by the filters and by
    deduplication), with the tokenizer named by the var lakemix_tokenizer. Incremental: a
    document is tokenized once (an anti-join on its own keys, as int_documents_pii_redacted:
    the kept set is not append-only); another tokenizer, or a changed tokens UDF, refuses an
    incremental run and names the --full-refresh. The texts are read from the data files that
    hold the documents to tokenize (rows_holding). -#}

{%- set to_tokenize -%}
    select document_id from {{ ref('int_documents_deduplicated') }}
    where is_cluster_kept and {{ lakemix.not_in_this('document_id') }}
{%- endset %}

with

{# the kept documents not tokenized yet #}
kept as (
    {{ to_tokenize }}
),

redacted as (
    select * from {{ lakemix.rows_holding(ref('int_documents_pii_redacted'), to_tokenize) }}
),

documents_to_tokenize as (
    select
        redacted.document_id,
        redacted.text
    from redacted
    inner join kept
        on redacted.document_id = kept.document_id
),

documents_tokenized as (
    select
        document_id,
        '{{ var("lakemix_tokenizer") }}' as tokenizer,
        lakemix_token_count(text, '{{ var("lakemix_tokenizer") }}') as token_count
    from documents_to_tokenize
)

select * from documents_tokenized
