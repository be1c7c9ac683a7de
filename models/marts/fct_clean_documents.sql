{#- Every clean document; an incremental run writes only the rows that are new or changed (a
    kept document whose duplicate cluster grew) and deletes those that left (see the YAML).
    The text and its length are not hashed to find changed rows: they come from
    int_documents_pii_redacted, whose rows never change while it is only appended to. The
    kept documents drive the joins: lakemix.sync_rows() keeps those the run writes. -#}
{{ config(
    incremental=true,
    incremental_strategy='sync',
    unique_key='document_id',
    unhashed_columns=['text', 'character_count'],
) }}

with

deduplicated as (
    select * from {{ ref('int_documents_deduplicated') }}
    where is_cluster_kept and {{ lakemix.sync_rows() }}
),

documents as (
    select * from {{ ref('int_documents_language_scored') }}
),

signals as (
    select * from {{ ref('int_documents_quality_scored') }}
),

redacted as (
    select * from {{ ref('int_documents_pii_redacted') }}
),

tokenized as (
    select * from {{ ref('int_documents_tokenized') }}
),

clean_documents as (
    select
        documents.document_id,
        documents.source_id,
        documents.url,
        documents.language,
        documents.script,
        documents.language_score,
        redacted.text,
        cast(length(redacted.text) as bigint) as character_count,
        tokenized.token_count,
        tokenized.tokenizer,
        deduplicated.cluster_size as duplicate_cluster_size,
        redacted.pii_email_count,
        redacted.pii_ip_address_count,
        redacted.pii_phone_number_count,
        redacted.pii_credit_card_count,
        {{ lakemix.star_except(
            'signals',
            ref('int_documents_quality_scored'),
            ['document_id', 'language', 'language_score'],
        ) }},
        documents.file_path,
        documents.file_offset,
        documents.ingest_id,
        documents.ingested_at
    from deduplicated
    inner join documents
        on deduplicated.document_id = documents.document_id
    inner join signals
        on deduplicated.document_id = signals.document_id
    inner join redacted
        on deduplicated.document_id = redacted.document_id
    inner join tokenized
        on deduplicated.document_id = tokenized.document_id
)

select * from clean_documents
