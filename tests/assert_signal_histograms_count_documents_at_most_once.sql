{#- Every histogram of fct_signal_histograms counts each scored document at most once: no
    signal counts more kept or more rejected documents than the word count, which every scored
    document has. (It reads the mart alone, so a build that selects the quality models without
    the mart does not run it against a stale mart; test_report.py checks the counts against
    the scored documents.) Returns the signals that break it. -#}

with

histograms as (
    select * from {{ ref('fct_signal_histograms') }}
),

totals as (
    select
        signal,
        sum(kept_document_count) as kept_document_count,
        sum(rejected_document_count) as rejected_document_count
    from histograms
    group by signal
),

every_document as (
    select * from totals
    where signal = 'word_count'
)

select
    totals.signal,
    totals.kept_document_count,
    totals.rejected_document_count,
    every_document.kept_document_count as kept_documents,
    every_document.rejected_document_count as rejected_documents
from totals
cross join every_document
where
    totals.kept_document_count > every_document.kept_document_count
    or totals.rejected_document_count > every_document.rejected_document_count
