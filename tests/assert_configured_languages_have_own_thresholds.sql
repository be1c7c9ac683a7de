{#- No language with thresholds of its own runs on the global fallback: every language whose
    threshold_source (seed language_configs) is fineweb2 or macrolanguage (its own FineWeb-2
    config) or script (its script's medians) has its own row in quality_thresholds for every rule FineWeb-2 tunes
    per language. One row per missing (language, rule). The rules are TUNED_RULES of
    scripts/make_language_seeds.py, which writes both seeds. -#}
{%- set tuned_rules = [
    'min_language_score',
    'gopher_min_mean_word_length',
    'gopher_max_mean_word_length',
    'gopher_min_alpha_word_fraction',
    'gopher_max_duplicate_line_fraction',
    'gopher_max_top_2gram_char_fraction',
    'gopher_max_top_3gram_char_fraction',
    'gopher_max_top_4gram_char_fraction',
    'gopher_max_duplicated_5gram_char_fraction',
    'gopher_max_duplicated_6gram_char_fraction',
    'gopher_max_duplicated_7gram_char_fraction',
    'gopher_max_duplicated_8gram_char_fraction',
    'gopher_max_duplicated_9gram_char_fraction',
    'gopher_max_duplicated_10gram_char_fraction',
    'fineweb_min_line_punct_fraction',
    'fineweb_max_duplicate_line_char_ratio',
    'fineweb_max_newline_word_ratio',
] -%}

with

language_configs as (
    select * from {{ ref('language_configs') }}
),

thresholds as (
    select * from {{ ref('quality_thresholds') }}
),

tuned_rules as (
    {%- for rule in tuned_rules %}
    select '{{ rule }}' as rule{{ ' union all' if not loop.last }}
    {%- endfor %}
),

languages_with_own_thresholds as (
    select
        language,
        threshold_source
    from language_configs
    where threshold_source in ('fineweb2', 'macrolanguage', 'script')
),

expected_rows as (
    select
        languages_with_own_thresholds.language,
        languages_with_own_thresholds.threshold_source,
        tuned_rules.rule
    from languages_with_own_thresholds
    cross join tuned_rules
),

missing_rows as (
    select
        expected_rows.language,
        expected_rows.threshold_source,
        expected_rows.rule
    from expected_rows
    left join thresholds
        on
            expected_rows.language = thresholds.language
            and expected_rows.rule = thresholds.rule
    where thresholds.rule is null
)

select * from missing_rows
