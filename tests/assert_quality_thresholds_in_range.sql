{#- A threshold a signal can never reach (in quality_thresholds or calibrated_thresholds) is a
    typo, not a filter: fractions and the language score live in [0, 1], every other signal
    (counts, lengths, ratios) is non-negative. The top n-gram character fractions are the
    exception: every occurrence of the most frequent n-gram counts, overlapping ones too (as in
    datatrove), so they can exceed 1, and FineWeb-2 has per-language limits above 1 (e.g. 1.031
    for aba_Latn, 1.597 for ast_Latn). -#}

with

configured_thresholds as (
    select * from {{ ref('quality_thresholds') }}
),

calibrated_thresholds as (
    select * from {{ ref('calibrated_thresholds') }}
),

{#- A calibrated threshold reads the signal of its rule's '*' row. -#}
thresholds as (
    select
        language,
        rule,
        signal,
        threshold
    from configured_thresholds
    union all
    select
        calibrated_thresholds.language,
        calibrated_thresholds.rule,
        configured_thresholds.signal,
        calibrated_thresholds.threshold
    from calibrated_thresholds
    inner join configured_thresholds
        on
            calibrated_thresholds.rule = configured_thresholds.rule
            and configured_thresholds.language = '*'
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
