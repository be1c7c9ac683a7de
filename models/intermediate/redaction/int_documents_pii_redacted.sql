{{ config(incremental=true) }}
{{ lakemix.cache_key({}, udfs=['pii']) }}

{#- Redaction runs only on the documents that end up in the mix (kept by the filters and by
    deduplication); a document kept later (a threshold change, a new cluster keeper) is picked
    up by the next incremental run. That set is not append-only, so the model anti-joins on its
    own keys instead of reading rows_since (new rows of its sources miss documents kept later).
    A changed redaction (the pii UDF's DEFINITION) refuses an incremental run. The texts are
    read from the data files that hold the documents to redact (rows_holding), not from every
    file of int_documents_language_scored. -#}

{%- set to_redact -%}
    select document_id from {{ ref('int_documents_deduplicated') }}
    where is_cluster_kept and {{ lakemix.not_in_this('document_id') }}
{%- endset %}

with

{# the kept documents not redacted yet #}
kept_documents as (
    {{ to_redact }}
),

documents as (
    select * from {{ lakemix.rows_holding(ref('int_documents_language_scored'), to_redact) }}
),

documents_to_redact as (
    select
        documents.document_id,
        documents.text
    from documents
    inner join kept_documents
        on documents.document_id = kept_documents.document_id
),

documents_redacted as (
    select
        document_id,
        lakemix_redact_pii(text) as redaction
    from documents_to_redact
),

documents_pii_redacted as (
    select
        document_id,
        redaction.text,
        redaction.email_count as pii_email_count,
        redaction.ip_address_count as pii_ip_address_count,
        redaction.phone_number_count as pii_phone_number_count,
        redaction.credit_card_count as pii_credit_card_count
    from documents_redacted
)

select * from documents_pii_redacted
