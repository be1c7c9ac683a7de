{#- The full-text search corpus: every document, kept or rejected, with its lineage. A view
    (nothing is copied): the search_index model indexes its new and changed rows. -#}
{{ config(materialized='view') }}
with

clean_documents as (
    select * from {{ ref('fct_clean_documents') }}
),

rejections as (
    select * from {{ ref('fct_document_rejections') }}
),

documents as (
    select * from {{ ref('int_documents_language_scored') }}
),

clean_searchable as (
    select
        document_id,
        true as is_clean,
        source_id,
        language,
        language_score,
        url,
        file_path,
        file_offset,
        ingest_id,
        ingested_at,
        cast([] as varchar[]) as failed_rule_names,
        cast(null as varchar) as duplicate_of_document_id,
        text
    from clean_documents
),

rejected_searchable as (
    select
        rejections.document_id,
        false as is_clean,
        rejections.source_id,
        rejections.language,
        rejections.language_score,
        documents.url,
        rejections.file_path,
        rejections.file_offset,
        documents.ingest_id,
        rejections.ingested_at,
        rejections.failed_rule_names,
        rejections.duplicate_of_document_id,
        documents.text
    from rejections
    inner join documents
        on rejections.document_id = documents.document_id
),

searchable_documents as (
    select * from clean_searchable
    union all by name
    select * from rejected_searchable
)

select * from searchable_documents
