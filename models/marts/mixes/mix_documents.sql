{{ config(
    enabled=var('lakemix_mix') is not none,
    alias='mix_' ~ (var('lakemix_mix') or 'none'),
) }}

{#- One row per document in the mix named by the var lakemix_mix, with how many times it is
    repeated and its split. Each document is repeated its whole expected epochs; the fractional
    rest of each (language, source) is filled by documents in the order of a weighted hash of
    (document_id, seed) (Efraimidis-Spirakis keys u^(1/fraction)) until their tokens reach
    the planned fractional tokens (a document is taken when at least half of it fits), so realized token shares follow the plan even on small corpora.
    The split is a hash of (document_id, seed) too; a kept document stands for its whole
    duplicate cluster, so validation never shares a cluster with train. Decisions depend only on
    the documents and the seed, never on partitioning or order. -#}

with

plans as (
    select * from {{ ref('stg_meta__mix_plans') }}
),

documents as (
    select * from {{ ref('fct_clean_documents') }}
),

documents_planned as (
    select
        documents.document_id,
        documents.language,
        documents.source_id,
        documents.token_count,
        documents.duplicate_cluster_size,
        plans.seed,
        plans.validation_fraction,
        plans.rate * case
            when plans.upsample_max_factor is null then 1
            else least(documents.duplicate_cluster_size, plans.upsample_max_factor)
        end as expected_repeats
    from documents
    inner join plans
        on
            documents.language = plans.language
            and documents.source_id = plans.source_id
    where
        (
            plans.min_language_score is null
            or documents.language_score >= plans.min_language_score
        )
        and (
            plans.min_quality_score is null
            or documents.quality_score >= plans.min_quality_score
        )
),

documents_ranked as (
    select
        *,
        floor(expected_repeats) as whole_repeats,
        expected_repeats - floor(expected_repeats) as fraction,
        case
            when expected_repeats - floor(expected_repeats) > 0
                then
                    ln(greatest({{ lakemix.unit_hash('document_id', 'seed', "'repeat'") }}, 1e-300))
                / (expected_repeats - floor(expected_repeats))
        end as fraction_key
    from documents_planned
),

documents_filled as (
    select
        *,
        sum(fraction * token_count) over (partition by language, source_id) as fraction_tokens,
        sum(case when fraction_key is not null then token_count else 0 end) over (
            partition by language, source_id
            order by fraction_key desc nulls last, document_id asc
            rows between unbounded preceding and current row
        ) - token_count as tokens_before
    from documents_ranked
),

documents_sampled as (
    select
        document_id,
        language,
        source_id,
        token_count,
        duplicate_cluster_size,
        expected_repeats,
        cast(whole_repeats as bigint)
        + case
            -- a document is taken when at least half of it fits: the closest total to the plan
            when
                fraction_key is not null and tokens_before + token_count / 2 < fraction_tokens
                then 1
            else 0
        end as repeat_count,
        case
            when {{ lakemix.unit_hash('document_id', 'seed', "'split'") }} < validation_fraction
                then 'validation'
            else 'train'
        end as split
    from documents_filled
),

mix_documents as (
    select * from documents_sampled
    where repeat_count > 0
)

select * from mix_documents
