{{ config(enabled=var('lakemix_mix') is not none) }}

with

source_plans as (
    select * from {{ source('meta', 'mix_plans') }}
),

plans as (
    select
        mix_name,
        language,
        source_id,
        rate,
        target_share,
        feasible_share,
        available_tokens,
        planned_tokens,
        max_epochs,
        note,
        seed,
        validation_fraction,
        min_language_score,
        upsample_max_factor,
        tokenizer,
        planned_at,
        min_quality_score
    from source_plans
    where mix_name = '{{ var("lakemix_mix") }}'
)

select * from plans
