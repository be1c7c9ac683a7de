with

source_quarantine as (
    select * from {{ source('raw', 'quarantine') }}
),

quarantine_renamed as (
    select
        quarantine_id,
        source as source_id,
        file as file_path,
        file_sha256,
        {{ adapter.quote("offset") }} as file_offset,
        line_number,
        reason,
        excerpt,
        ingest_id,
        ingested_at
    from source_quarantine
)

select * from quarantine_renamed
