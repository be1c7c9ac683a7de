{#- One row per language as identified: its counts at each stage, and where its quality
    thresholds come from (seed language_configs): its own FineWeb-2 config, its script's
    fallback, or the global '*' rows. A language lid.176 does not know ('und') runs on the
    global rows. -#}

with

{{ lakemix.stage_counts('language') }},

language_configs as (
    select * from {{ ref('language_configs') }}
),

languages_configured as (
    select
        stage_counts.*,
        coalesce(language_configs.threshold_source, 'global') as threshold_source,
        language_configs.fineweb2_config
    from stage_counts
    left join language_configs
        on stage_counts.language = language_configs.language
)

select * from languages_configured
