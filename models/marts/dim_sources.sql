with

documents as (
    select * from {{ ref('stg_raw__documents') }}
),

quarantine as (
    select * from {{ ref('stg_raw__quarantine') }}
),

documents_per_source as (
    select
        source_id,
        count(*) as document_count,
        cast(sum(length(text)) as bigint) as character_count,
        count(distinct file_sha256) as file_count,
        count_if(is_utf8_repaired) as utf8_repaired_count,
        min(ingested_at) as first_ingested_at,
        max(ingested_at) as last_ingested_at
    from documents
    group by source_id
),

quarantine_per_source as (
    select
        source_id,
        count(*) as quarantined_count
    from quarantine
    group by source_id
),

sources_joined as (
    select
        coalesce(documents_per_source.source_id, quarantine_per_source.source_id) as source_id,
        coalesce(documents_per_source.document_count, 0) as document_count,
        coalesce(documents_per_source.character_count, 0) as character_count,
        coalesce(documents_per_source.file_count, 0) as file_count,
        coalesce(documents_per_source.utf8_repaired_count, 0) as utf8_repaired_count,
        coalesce(quarantine_per_source.quarantined_count, 0) as quarantined_count,
        documents_per_source.first_ingested_at,
        documents_per_source.last_ingested_at
    from documents_per_source
    full outer join quarantine_per_source
        on documents_per_source.source_id = quarantine_per_source.source_id
)

select * from sources_joined
