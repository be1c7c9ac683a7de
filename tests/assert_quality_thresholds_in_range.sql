{#- A threshold a signal can never reach is a typo, not a filter: fractions and the language
    score live in [0, 1], every other signal (counts, lengths, ratios) is non-negative. -#}

with

thresholds as (
    select * from {{ ref('quality_thresholds') }}
),

thresholds_out_of_range as (
    select
        language,
        rule,
        signal,
        threshold
    from thresholds
    where
        threshold < 0
        or (
            (signal like '%!_fraction' escape '!' or signal = 'language_score')
            and threshold > 1
        )
)

select * from thresholds_out_of_range
