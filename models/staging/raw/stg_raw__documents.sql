with

source_documents as (
    select * from {{ source('raw', 'documents') }}
),

documents_normalized as (
    select
        document_id,
        source as source_id,
        url,
        file as file_path,
        file_sha256,
        {{ adapter.quote("offset") }} as file_offset,
        line_number,
        ingest_id,
        ingested_at,
        {{ lakemix.normalize_text('text') }} as text,
        cast(length(text) as bigint) as raw_character_count,
        metadata,
        is_utf8_repaired
    from source_documents
)

select * from documents_normalized
