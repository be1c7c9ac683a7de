{{ config(incremental=true) }}
{{ lakemix.cache_key(lakemix.extraction_settings(), udfs=['extract', 'normalize']) }}

{#- The main text of every fetched HTML page (content_type text/html: a web archive's
    responses, HTML files), by the extractor of var lakemix_extractor, normalized as every other
    text is in staging. Incremental: pages not yet extracted only. The extractor is in the cache
    key: another one refuses an incremental run, and the full refresh re-extracts every page
    (and the language model, whose key names it too, re-reads them). -#}

with

pages as (
    select * from {{ ref('stg_raw__documents') }}
    where content_type = 'text/html'
        and {{ lakemix.not_in_this('document_id') }}
        and {{ lakemix.ingests_not_in_this('ingest_id') }}
),

pages_extracted as (
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
        {{ lakemix.normalize_text(
            "lakemix_main_text(text, '" ~ var('lakemix_extractor') ~ "')") }} as text
    from pages
)

select * from pages_extracted
