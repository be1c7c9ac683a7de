{#- Accounting: every raw document is in exactly one of fct_clean_documents and
    fct_document_rejections. Returns the documents that break it. -#}
with

raw_documents as (
    select document_id from {{ ref('stg_raw__documents') }}
),

outcomes as (
    select document_id, 'clean' as outcome from {{ ref('fct_clean_documents') }}
    union all
    select document_id, 'rejected' as outcome from {{ ref('fct_document_rejections') }}
),

outcomes_per_document as (
    select
        raw_documents.document_id,
        count(outcomes.outcome) as outcome_count
    from raw_documents
    left join outcomes
        on raw_documents.document_id = outcomes.document_id
    group by raw_documents.document_id
)

select * from outcomes_per_document
where outcome_count != 1
