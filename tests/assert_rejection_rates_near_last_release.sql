{#- Rejection drift: on the documents of the last release, no quality rule's rejection rate has
    moved by more than var lakemix_rejection_drift_points percentage points, unless the rule's
    configuration changed since (its rows in seeds/quality_thresholds.csv or
    seeds/calibrated_thresholds.csv, or its family in var lakemix_filter_families, or, for a rule
    on quality_score, the quality model: the release's recorded digest against the var's). Same
    documents, same configuration, another rate: the signature of a broken filter. Before the first release there is nothing to compare.
    meta.releases is written by `lakemix release`, not by dbt, and may not exist yet: it is
    looked up, not declared as a source (a source view over a missing table breaks the build). -#}
-- depends_on: {{ ref('int_documents_quality_filtered') }}
-- depends_on: {{ ref('quality_thresholds') }}
-- depends_on: {{ ref('calibrated_thresholds') }}
{#- It reads the release manifests with DuckDB's JSON functions: DuckDB target only. -#}
{{ config(
    severity=var('lakemix_rejection_drift_severity', 'error'),
    enabled=target.type == 'duckdb',
) }}
{%- set last = none -%}
{%- if execute and adapter.get_relation(
    database=target.database, schema='meta', identifier='releases'
) is not none -%}
    {%- set found = run_query("select tag from meta.releases order by released_at desc limit 1") -%}
    {%- if found.rows | length > 0 -%}
        {%- set last = found.rows[0][0] -%}
    {%- endif -%}
{%- endif -%}
{%- if last is none %}
select cast(null as string) as rule
where false
{%- else %}
with

released_documents as (
    select
        document_id,
        failed_rules
    from {{ lakemix.at('intermediate.int_documents_quality_filtered', last) }}
),

current_documents as (
    select
        document_id,
        failed_rules
    from {{ ref('int_documents_quality_filtered') }}
),

current_thresholds as (
    select * from {{ ref('quality_thresholds') }}
),

current_calibrated as (
    select * from {{ ref('calibrated_thresholds') }}
),

released_manifest as (
    select cast(manifest as json) as manifest
    from meta.releases
    where tag = '{{ last }}'
),

{#- The seed files as the release recorded them, parsed as CSV (quotes, column names). -#}
released_thresholds as (
    select
        seed_row.language,
        seed_row.rule,
        seed_row.signal,
        seed_row.operator,
        cast(seed_row.threshold as double) as threshold,
        seed_row.family
    from (
        select unnest(from_json(
            lakemix_csv_json((manifest -> 'config_files') ->> 'seeds/quality_thresholds.csv'),
            '[{"language": "VARCHAR", "rule": "VARCHAR", "signal": "VARCHAR",
               "operator": "VARCHAR", "threshold": "VARCHAR", "family": "VARCHAR"}]'
        )) as seed_row
        from released_manifest
    ) as seed_rows
),

{#- A release made before the seed existed recorded none: no calibrated row then. -#}
released_calibrated as (
    select
        seed_row.language,
        seed_row.rule,
        cast(seed_row.threshold as double) as threshold
    from (
        select unnest(from_json(
            lakemix_csv_json((manifest -> 'config_files') ->> 'seeds/calibrated_thresholds.csv'),
            '[{"language": "VARCHAR", "rule": "VARCHAR", "threshold": "VARCHAR"}]'
        )) as seed_row
        from released_manifest
    ) as seed_rows
),

released_families as (
    select unnest(cast(manifest -> '$.vars.lakemix_filter_families' as varchar[])) as family
    from released_manifest
),

{#- A rule's configuration: its rows in both seeds (calibrated rows have no family) and, for a
    rule on the quality model's score, the model's digest (a release before the model: none). -#}
released_settings as (
    select
        rule,
        language || operator || threshold as setting,
        family
    from released_thresholds
    union all
    select
        rule,
        'calibrated ' || language || threshold as setting,
        null as family
    from released_calibrated
    union all
    select distinct
        released_thresholds.rule,
        'model ' || coalesce(released_manifest.manifest ->> '$.quality_model.sha256', '')
        as setting,
        null as family
    from released_thresholds
    cross join released_manifest
    where released_thresholds.signal = 'quality_score'
),

current_settings as (
    select
        rule,
        language || operator || threshold as setting,
        family
    from current_thresholds
    union all
    select
        rule,
        'calibrated ' || language || threshold as setting,
        null as family
    from current_calibrated
    union all
    select distinct
        rule,
        'model {{ lakemix.quality_model_digest() }}' as setting,
        null as family
    from current_thresholds
    where signal = 'quality_score'
),

released_config as (
    select
        rule,
        string_agg(setting, ',' order by setting)
        || cast(bool_or(family in (select family from released_families)) as varchar) as config
    from released_settings
    group by rule
),

current_config as (
    select
        rule,
        string_agg(setting, ',' order by setting)
        || (bool_or(family in (
            {%- for family in var('lakemix_filter_families') %}
            '{{ family }}'{{ "," if not loop.last }}
            {%- endfor %}
            {%- if var('lakemix_filter_families') | length == 0 %}null{% endif %}
        )) is true)::varchar as config
    from current_settings
    group by rule
),

unchanged_rules as (
    select current_config.rule
    from current_config
    inner join released_config
        on current_config.rule = released_config.rule
    where current_config.config = released_config.config
),

{#- Each rule's failures counted over the documents in both, one unnest of each side's
    failed rules (a cross join of every document with every rule took 25 s at 1M documents). -#}
documents_in_both as (
    select
        released_documents.failed_rules as failed_then,
        current_documents.failed_rules as failed_now
    from released_documents
    inner join current_documents
        on released_documents.document_id = current_documents.document_id
),

document_total as (
    select count(*) as document_count
    from documents_in_both
),

failures_then as (
    select
        rule,
        count(*) as failed
    from (
        select unnest(list_distinct(list_transform(failed_then, f -> f.rule))) as rule
        from documents_in_both
    ) as rules_then
    group by rule
),

failures_now as (
    select
        rule,
        count(*) as failed
    from (
        select unnest(list_distinct(list_transform(failed_now, f -> f.rule))) as rule
        from documents_in_both
    ) as rules_now
    group by rule
),

rates as (
    select
        unchanged_rules.rule,
        document_total.document_count,
        coalesce(failures_then.failed, 0) / document_total.document_count
            as released_rejection_rate,
        coalesce(failures_now.failed, 0) / document_total.document_count
            as current_rejection_rate
    from unchanged_rules
    cross join document_total
    left join failures_then
        on unchanged_rules.rule = failures_then.rule
    left join failures_now
        on unchanged_rules.rule = failures_now.rule
    where document_total.document_count > 0
)

select
    '{{ last }}' as release_tag,
    rule,
    document_count,
    released_rejection_rate,
    current_rejection_rate,
    100 * (current_rejection_rate - released_rejection_rate) as drift_points
from rates
where abs(current_rejection_rate - released_rejection_rate) * 100
    > {{ var('lakemix_rejection_drift_points', 5) }}
{%- endif %}
