with

{{ lakemix.stage_counts('source_id') }},

quarantine as (
    select * from {{ ref('stg_raw__quarantine') }}
),

ingested as (
    select * from {{ ref('stg_raw__documents') }}
),

ingest_per_source as (
    select
        source_id,
        count(distinct file_sha256) as file_count,
        cast(count_if(is_utf8_repaired) as bigint) as utf8_repaired_count,
        min(ingested_at) as first_ingested_at,
        max(ingested_at) as last_ingested_at
    from ingested
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
        coalesce(stage_counts.source_id, quarantine_per_source.source_id) as source_id,
        coalesce(stage_counts.raw_document_count, 0) as raw_document_count,
        coalesce(quarantine_per_source.quarantined_count, 0) as quarantined_count,
        coalesce(stage_counts.rejected_by_rules_count, 0) as rejected_by_rules_count,
        coalesce(stage_counts.removed_duplicate_count, 0) as removed_duplicate_count,
        coalesce(stage_counts.clean_document_count, 0) as clean_document_count,
        coalesce(stage_counts.clean_token_count, 0) as clean_token_count,
        coalesce(stage_counts.clean_character_count, 0) as clean_character_count,
        coalesce(ingest_per_source.file_count, 0) as file_count,
        coalesce(ingest_per_source.utf8_repaired_count, 0) as utf8_repaired_count,
        ingest_per_source.first_ingested_at,
        ingest_per_source.last_ingested_at
    from stage_counts
    full outer join quarantine_per_source
        on stage_counts.source_id = quarantine_per_source.source_id
    left join ingest_per_source
        on
            coalesce(stage_counts.source_id, quarantine_per_source.source_id)
            = ingest_per_source.source_id
)

select * from sources_joined
