{#- A threshold a signal can never reach is a typo, not a filter: fractions and the language
    score live in [0, 1], every other signal (counts, lengths, ratios) is non-negative. The
    top n-gram character fractions are the exception: every occurrence of the most frequent
    n-gram counts, overlapping ones too (as in datatrove), so they can exceed 1, and FineWeb-2
    has per-language limits above 1 (e.g. 1.031 for aba_Latn, 1.597 for ast_Latn). -#}

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
            and signal not like 'top!_%gram!_char!_fraction' escape '!'
            and threshold > 1
        )
)

select * from thresholds_out_of_range
