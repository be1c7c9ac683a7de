with

filtered as (
    select * from {{ ref('int_documents_quality_filtered') }}
),

deduplicated as (
    select * from {{ ref('int_documents_deduplicated') }}
),

documents as (
    select * from {{ ref('int_documents_language_scored') }}
),

rejected_by_rules as (
    select
        document_id,
        failed_rule_count,
        {{ lakemix.list_transform('failed_rules', 'failed', 'failed.rule') }} as failed_rule_names,
        failed_rules,
        cast(null as string) as duplicate_of_document_id
    from filtered
    where not is_kept
),

removed_as_duplicates as (
    select
        document_id,
        1 as failed_rule_count,
        {{ lakemix.list_of(['duplicate_kind']) }} as failed_rule_names,
        {{ lakemix.list_of([], lakemix.failure_type()) }} as failed_rules,
        kept_document_id as duplicate_of_document_id
    from deduplicated
    where not is_cluster_kept
),

all_rejections as (
    select * from rejected_by_rules
    union all
    select * from removed_as_duplicates
),

rejections as (
    select
        all_rejections.document_id,
        documents.source_id,
        documents.language,
        documents.script,
        documents.language_score,
        all_rejections.failed_rule_count,
        all_rejections.failed_rule_names,
        all_rejections.failed_rules,
        all_rejections.duplicate_of_document_id,
        cast(length(documents.text) as bigint) as character_count,
        documents.file_path,
        documents.file_offset,
        documents.ingested_at
    from all_rejections
    inner join documents
        on all_rejections.document_id = documents.document_id
)

select * from rejections
