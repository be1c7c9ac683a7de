{% snapshot mix_plan_history %}

{#- SCD2 history of a mix's configuration as planned: one row per (language, source) and
    version of its rate, shares, budget split and settings. Taken by `lakemix mix build`. -#}

{#- DuckDB tables: not yet kept on the Spark target. -#}
{{ config(
    enabled=var('lakemix_mix') is not none and target.type == 'duckdb',
    alias='mix_' ~ (var('lakemix_mix') or 'none') ~ '_plan_history',
    target_schema='snapshots',
    unique_key=['language', 'source_id'],
    strategy='check',
    check_cols=[
        'rate', 'target_share', 'feasible_share', 'available_tokens', 'planned_tokens',
        'max_epochs', 'note', 'seed', 'validation_fraction', 'min_language_score',
        'upsample_max_factor', 'tokenizer', 'min_quality_score',
    ],
    hard_deletes='invalidate',
) }}

select * exclude (planned_at) from {{ ref('stg_meta__mix_plans') }}

{% endsnapshot %}
