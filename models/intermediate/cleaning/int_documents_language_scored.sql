{{ config(incremental=true) }}
{{ lakemix.cache_key(lakemix.extraction_settings(), udfs=['langid', 'normalize', 'extract']) }}

{#- Every document's language, read from its normalized text; a fetched HTML page's from its
    extracted main text (int_pages_extracted), never from its markup. -#}

{%- set columns = [
    'document_id', 'source_id', 'url', 'file_path', 'file_offset', 'ingest_id', 'ingested_at',
    'is_utf8_repaired', 'raw_character_count', 'text'
] %}

with

texts as (
    select {{ columns | join(', ') }}
    from {{ ref('stg_raw__documents') }}
    where content_type is distinct from 'text/html'
        and {{ lakemix.not_in_this('document_id') }}
        and {{ lakemix.ingests_not_in_this('ingest_id') }}
),

pages as (
    select {{ columns | join(', ') }}
    from {{ ref('int_pages_extracted') }}
    where {{ lakemix.not_in_this('document_id') }}
        and {{ lakemix.ingests_not_in_this('ingest_id') }}
),

documents as (
    select * from texts
    union all
    select * from pages
),

documents_identified as (
    select
        *,
        lakemix_language(text) as identified
    from documents
),

documents_language_scored as (
    select
        {{ columns | join(', ') }},
        identified.language,
        identified.script,
        identified.language_score
    from documents_identified
)

select * from documents_language_scored
