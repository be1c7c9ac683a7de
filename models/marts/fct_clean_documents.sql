with

deduplicated as (
    select * from {{ ref('int_documents_deduplicated') }}
    where is_cluster_kept
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
