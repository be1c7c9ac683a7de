{#- One row per document: the rules it failed (with the measured value, the threshold that
    applied to its language and where that threshold came from) and whether it is kept.
    Rules come from the seed quality_thresholds (a '*' row per rule, overridden per language);
    a threshold of the seed calibrated_thresholds (`lakemix calibrate --write`) overrides
    both, and only the threshold: signal, operator and family stay the rule's. Whole filter
    families are switched with the var lakemix_filter_families. Signals are not recomputed
    here. -#}

with

signals as (
    select * from {{ ref('int_documents_quality_scored') }}
),

thresholds as (
    select * from {{ ref('quality_thresholds') }}
    {%- set families = var('lakemix_filter_families') %}
    {%- if families | length == 0 %}
    where false
    {%- else %}
    where family in (
        {%- for family in families %}
            '{{ family }}'{{ "," if not loop.last }}
        {%- endfor %}
    )
    {%- endif %}
),

calibrated_thresholds as (
    select * from {{ ref('calibrated_thresholds') }}
),

default_thresholds as (
    select * from thresholds
    where language = '*'
),

language_thresholds as (
    select * from thresholds
    where language != '*'
),

document_languages as (
    select distinct language from signals
),

effective_thresholds as (
    select
        document_languages.language,
        default_thresholds.rule,
        default_thresholds.family,
        coalesce(language_thresholds.signal, default_thresholds.signal) as signal,
        coalesce(language_thresholds.operator, default_thresholds.operator) as operator,
        coalesce(
            calibrated_thresholds.threshold,
            language_thresholds.threshold,
            default_thresholds.threshold
        ) as threshold,
        case
            when calibrated_thresholds.threshold is not null then 'calibrated'
            when language_thresholds.threshold is not null then 'language'
            else 'default'
        end as threshold_source
    from document_languages
    cross join default_thresholds
    left join language_thresholds
        on
            document_languages.language = language_thresholds.language
            and default_thresholds.rule = language_thresholds.rule
    left join calibrated_thresholds
        on
            document_languages.language = calibrated_thresholds.language
            and default_thresholds.rule = calibrated_thresholds.rule
),

{#- Every column but the key is a signal (language_score and stop_word_count included). -#}
signals_renamed as (
    select
        {{ lakemix.star_except('signals', ref('int_documents_quality_scored'), ['language']) }},
        language as document_language
    from signals
),

signals_long as (
    {{ lakemix.unpivot_except(
        'signals_renamed',
        ref('int_documents_quality_scored'),
        ['document_id', 'document_language'],
        'signal',
        'signal_value',
        renamed={'document_language': 'language'},
    ) }}
),

rules_evaluated as (
    select
        signals_long.document_id,
        effective_thresholds.rule,
        effective_thresholds.family,
        effective_thresholds.signal,
        cast(signals_long.signal_value as double) as signal_value,
        effective_thresholds.operator,
        effective_thresholds.threshold,
        effective_thresholds.threshold_source,
        {{ lakemix.threshold_passed(
            'cast(signals_long.signal_value as double)',
            'effective_thresholds.operator',
            'effective_thresholds.threshold',
        ) }} as is_passed
    from signals_long
    inner join effective_thresholds
        on
            signals_long.document_language = effective_thresholds.language
            and signals_long.signal = effective_thresholds.signal
),

failures_per_document as (
    select
        document_id,
        count(*) as failed_rule_count,
        {{ lakemix.ordered_list(lakemix.struct_pack({
            'rule': 'rule',
            'family': 'family',
            'signal': 'signal',
            'value': 'signal_value',
            'operator': 'operator',
            'threshold': 'threshold',
            'threshold_source': 'threshold_source',
        }), ['rule']) }} as failed_rules
    from rules_evaluated
    where not is_passed
    group by document_id
),

documents_filtered as (
    select
        signals.document_id,
        signals.language,
        coalesce(failures_per_document.failed_rule_count, 0) as failed_rule_count,
        failures_per_document.failed_rules,
        failures_per_document.document_id is null as is_kept
    from signals
    left join failures_per_document
        on signals.document_id = failures_per_document.document_id
)

select * from documents_filtered
