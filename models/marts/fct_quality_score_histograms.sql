{#- One row per language and quality-score bin that holds a document: how many documents whose
    quality model score falls in the bin the filters kept and rejected; what the report draws
    per language. Twenty bins of 0.05 over the score's range [0, 1] (1 falls in the last). -#}

{%- set bin_count = 20 -%}

with

scores as (
    select * from {{ ref('int_documents_quality_scored') }}
),

filtered as (
    select * from {{ ref('int_documents_quality_filtered') }}
),

languages as (
    select * from {{ ref('int_documents_language_scored') }}
),

documents_binned as (
    select
        languages.language,
        filtered.is_kept,
        cast(
            least(floor(scores.quality_score * {{ bin_count }}), {{ bin_count - 1 }}) as integer
        ) as bin
    from scores
    inner join filtered on scores.document_id = filtered.document_id
    inner join languages on scores.document_id = languages.document_id
    where scores.quality_score is not null
),

bins_counted as (
    select
        language,
        bin,
        cast(bin as double) / {{ bin_count }} as lower_edge,
        cast(bin + 1 as double) / {{ bin_count }} as upper_edge,
        cast(sum(case when is_kept then 1 else 0 end) as bigint) as kept_document_count,
        cast(sum(case when is_kept then 0 else 1 end) as bigint) as rejected_document_count
    from documents_binned
    group by language, bin
)

select * from bins_counted
