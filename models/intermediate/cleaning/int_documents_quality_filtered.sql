{#- One row per document: the rules it failed (with the measured value, the threshold that
    applied to its language and where that threshold came from) and whether it is kept.
    Rules come from the seed quality_thresholds (a '*' row per rule, overridden per language);
    a threshold of the seed calibrated_thresholds (`lakemix calibrate --write`) overrides
    both, and only the threshold: signal, operator and family stay the rule's. Whole filter
    families are switched with the var lakemix_filter_families. Signals are not recomputed
    here.
    Each document is checked in one pass against its language's row of rules, one list per
    signal column: no row per (document, signal) and no aggregate over documents, so memory
    does not grow with the corpus. -#}

{#- Every column but the key and the language is a signal (language_score and stop_word_count
    included). -#}
{%- set signal_columns = lakemix.column_names(
    ref('int_documents_quality_scored'), exclude=['document_id', 'language']
) %}

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

url_filtered as (
    select * from {{ ref('int_documents_url_filtered') }}
),

decontaminated as (
    select * from {{ ref('int_documents_decontaminated') }}
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

{#- One row per language: for each signal column, the rules on it (possibly none). -#}
language_rules as (
    select
        language
        {%- for signal in signal_columns %},
        {{ lakemix.list_agg(lakemix.struct_pack({
            'rule': 'rule',
            'family': 'family',
            'operator': 'operator',
            'threshold': 'threshold',
            'threshold_source': 'threshold_source',
        })) }} filter (where signal = '{{ signal }}') as {{ adapter.quote('rules_on_' ~ signal) }}
        {%- endfor %}
    from effective_thresholds
    group by language
),

{#- Per signal column: the rules on it that the document's value fails, with the value. -#}
{%- set no_failures = lakemix.list_of([], lakemix.failure_type()) %}
{%- set failures = [] %}
{%- for signal in signal_columns %}
    {%- set value = 'cast(signals.' ~ adapter.quote(signal) ~ ' as double)' %}
    {%- do failures.append(lakemix.list_transform(
        lakemix.list_filter(
            'language_rules.' ~ adapter.quote('rules_on_' ~ signal),
            'candidate',
            'not ' ~ lakemix.threshold_passed(value, 'candidate.operator', 'candidate.threshold'),
        ),
        'failed',
        lakemix.struct_pack({
            'rule': 'failed.rule',
            'family': 'failed.family',
            'signal': "'" ~ signal ~ "'",
            'value': value,
            'operator': 'failed.operator',
            'threshold': 'failed.threshold',
            'threshold_source': 'failed.threshold_source',
        }),
    )) %}
{%- endfor %}

documents_checked as (
    select
        signals.document_id,
        signals.language,
        {%- if failures %}
        {#- By rule (the struct's first field), as the lineage and the rejections mart show;
            the URL rules' and decontamination's failures (int_documents_url_filtered,
            int_documents_decontaminated) with the signals' own. A language without rules has
            no lists (null), one with rules may have empty ones. -#}
        {{ lakemix.list_sort(lakemix.list_concat([
            'coalesce(' ~ lakemix.list_concat(failures) ~ ', ' ~ no_failures ~ ')',
            'coalesce(url_filtered.url_failures, ' ~ no_failures ~ ')',
            'coalesce(decontaminated.contamination_failures, ' ~ no_failures ~ ')',
        ])) }} as failures
        {%- else %}
        null as failures {#- only while dbt parses: no columns are read then -#}
        {%- endif %}
    from signals
    {#- noqa below: sqlfluff renders the model as dbt parses it, without the signal columns. #}
    left join language_rules  -- noqa: ST11
        on signals.language = language_rules.language
    left join url_filtered  -- noqa: ST11
        on signals.document_id = url_filtered.document_id
    left join decontaminated  -- noqa: ST11
        on signals.document_id = decontaminated.document_id
),

{#- A language without rules has no lists (null), one with rules may have empty ones. -#}
documents_counted as (
    select
        document_id,
        language,
        failures,
        case
            when failures is null then 0
            else {{ lakemix.list_size('failures') }}
        end as failed_rule_count
    from documents_checked
),

documents_filtered as (
    select
        document_id,
        language,
        failed_rule_count,
        case when failed_rule_count > 0 then failures end as failed_rules,
        failed_rule_count = 0 as is_kept
    from documents_counted
)

select * from documents_filtered
