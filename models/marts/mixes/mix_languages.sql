{{ config(
    enabled=var('lakemix_mix') is not none,
    alias='mix_' ~ (var('lakemix_mix') or 'none') ~ '_languages',
) }}

{#- One row per language of the mix: target and feasible share, available, planned and sampled
    tokens, realized share and epochs. -#}

with

plans as (
    select * from {{ ref('stg_meta__mix_plans') }}
),

mix as (
    select * from {{ ref('mix_documents') }}
),

clean as (
    select * from {{ ref('fct_clean_documents') }}
),

largest_per_language as (
    select
        language,
        max(token_count) as largest_document_tokens
    from clean
    group by language
),

plans_per_language as (
    select
        language,
        any_value(target_share) as target_share,
        any_value(feasible_share) as feasible_share,
        any_value(available_tokens) as available_tokens,
        any_value(planned_tokens) as planned_tokens,
        any_value(max_epochs) as max_epochs,
        any_value(note) as note
    from plans
    group by language
),

sampled_per_language as (
    select
        language,
        count(*) as document_count,
        sum(repeat_count) as sampled_document_count,
        sum(token_count * repeat_count) as sampled_tokens,
        sum(case when split = 'validation' then token_count * repeat_count else 0 end)
            as validation_tokens
    from mix
    group by language
),

languages_summarized as (
    select
        plans_per_language.language,
        plans_per_language.target_share,
        plans_per_language.feasible_share,
        plans_per_language.available_tokens,
        plans_per_language.planned_tokens,
        coalesce(sampled_per_language.document_count, 0) as document_count,
        cast(coalesce(sampled_per_language.sampled_document_count, 0) as bigint)
            as sampled_document_count,
        cast(coalesce(sampled_per_language.sampled_tokens, 0) as bigint) as sampled_tokens,
        cast(coalesce(sampled_per_language.validation_tokens, 0) as bigint) as validation_tokens,
        coalesce(sampled_per_language.sampled_tokens, 0)
        / sum(coalesce(sampled_per_language.sampled_tokens, 0)) over () as realized_share,
        coalesce(sampled_per_language.sampled_tokens, 0)
        / plans_per_language.available_tokens as realized_epochs,
        largest_per_language.largest_document_tokens
        / sum(coalesce(sampled_per_language.sampled_tokens, 0)) over () as granularity_share,
        plans_per_language.max_epochs,
        plans_per_language.note
    from plans_per_language
    left join sampled_per_language
        on plans_per_language.language = sampled_per_language.language
    left join largest_per_language
        on plans_per_language.language = largest_per_language.language
)

select * from languages_summarized
