{#- Fetched HTML pages (content_type text/html) keep their markup: int_pages_extracted takes
    their main text, normalized there. Every other text is normalized here. -#}

{%- set raw = source('raw', 'documents') -%}
{%- set content_type = lakemix.raw_column(raw, 'content_type', 'string') -%}

with

source_documents as (
    select * from {{ raw }}
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
        case
            when {{ content_type }} = 'text/html' then text
            else {{ lakemix.normalize_text('text') }}
        end as text,
        cast(length(text) as bigint) as raw_character_count,
        metadata,
        is_utf8_repaired,
        {{ lakemix.raw_column(raw, 'record_id', 'string') }} as record_id,
        {{ content_type }} as content_type,
        {{ lakemix.raw_column(raw, 'charset', 'string') }} as charset,
        {{ lakemix.raw_column(raw, 'http_status', 'int') }} as http_status,
        {{ lakemix.raw_column(raw, 'fetched_at', 'timestamp') }} as fetched_at,
        {{ lakemix.raw_column(raw, 'payload_digest', 'string') }} as payload_digest,
        {{ lakemix.raw_column(raw, 'record_offset', 'bigint') }} as record_offset,
        {{ lakemix.raw_column(raw, 'record_length', 'bigint') }} as record_length
    from source_documents
)

select * from documents_normalized
