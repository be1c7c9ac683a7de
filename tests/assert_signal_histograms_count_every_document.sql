{#- Every histogram of fct_signal_histograms counts each scored document at most once, kept and
    rejected apart, and the word count (which every document has) counts each exactly once.
    Returns the signals whose counts break that. -#}

with

filtered as (
    select * from {{ ref('int_documents_quality_filtered') }}
),

histograms as (
    select * from {{ ref('fct_signal_histograms') }}
),

documents as (
    select
        sum(case when is_kept then 1 else 0 end) as kept_document_count,
        sum(case when is_kept then 0 else 1 end) as rejected_document_count
    from filtered
),

totals as (
    select
        signal,
        sum(kept_document_count) as kept_document_count,
        sum(rejected_document_count) as rejected_document_count
    from histograms
    group by signal
)

select
    totals.signal,
    totals.kept_document_count,
    totals.rejected_document_count,
    documents.kept_document_count as kept_documents,
    documents.rejected_document_count as rejected_documents
from totals
cross join documents
where
    totals.kept_document_count > documents.kept_document_count
    or totals.rejected_document_count > documents.rejected_document_count
    or (
        totals.signal = 'word_count'
        and (
            totals.kept_document_count != documents.kept_document_count
            or totals.rejected_document_count != documents.rejected_document_count
        )
    )
