{#- One row per quality rule and language (as identified): the language's documents, how many
    of them failed the rule, and that fraction. Every rule of the seed quality_thresholds and
    every duplicate kind, for every language with documents (0 when none failed it). The one
    place this measure is computed: meta.build_stats records it each build and the report
    shows it. -#}

with

languages as (
    select * from {{ ref('dim_languages') }}
),

rejections as (
    select * from {{ ref('fct_document_rejections') }}
),

thresholds as (
    select * from {{ ref('quality_thresholds') }}
),

failures as (
    select
        language,
        {{ lakemix.explode('failed_rule_names') }} as rule
    from rejections
),

failures_per_rule_and_language as (
    select
        rule,
        language,
        count(*) as rejected_document_count
    from failures
    group by rule, language
),

rules as (
    select distinct rule from thresholds
    union
    select distinct rule from failures
),

rules_by_language as (
    select
        rules.rule,
        languages.language,
        languages.raw_document_count as document_count,
        coalesce(failures_per_rule_and_language.rejected_document_count, 0)
            as rejected_document_count,
        coalesce(failures_per_rule_and_language.rejected_document_count, 0)
        / languages.raw_document_count as rejection_fraction
    from rules
    cross join languages
    left join failures_per_rule_and_language
        on
            rules.rule = failures_per_rule_and_language.rule
            and languages.language = failures_per_rule_and_language.language
)

select * from rules_by_language
