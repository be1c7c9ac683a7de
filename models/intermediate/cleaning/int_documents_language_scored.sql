{{ config(incremental=true) }}
{{ lakemix.cache_key({}, udfs=['langid', 'normalize']) }}

with

documents as (
    select * from {{ ref('stg_raw__documents') }}
    where {{ lakemix.not_in_this('document_id') }}
        and {{ lakemix.ingests_not_in_this('ingest_id') }}
),

documents_identified as (
    select
        *,
        lakemix_language(text) as identified
    from documents
),

documents_language_scored as (
    select
        document_id,
        source_id,
        url,
        file_path,
        file_offset,
        ingest_id,
        ingested_at,
        is_utf8_repaired,
        raw_character_count,
        text,
        identified.language,
        identified.script,
        identified.language_score
    from documents_identified
)

select * from documents_language_scored
