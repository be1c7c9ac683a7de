{#- One row per quality signal and bin: the signal's histogram over the documents the quality
    filters scored, split into those they kept and those they rejected; what `lakemix report`
    draws. Bins are equal-width between the 1st and 99th percentile, widened to take the
    signal's default thresholds (seed quality_thresholds, language '*') within ten times that
    range; values outside fall in the end bins. The percentiles are exact over at most
    lakemix_histogram_percentile_documents documents, a sample by hash of the id (every
    document of a smaller corpus): DuckDB holds every value of an exact percentile in memory
    whatever its limit (50M values under a 200MB limit peaked at 448 MB). Bins count every
    document. -#}

{%- set signals = [
    'language_score',
    'word_count',
    'mean_word_length',
    'alpha_word_fraction',
    'stop_word_count',
    'duplicate_line_fraction',
    'top_2gram_char_fraction',
    'line_punct_fraction',
    'short_line_fraction',
    'newline_word_ratio',
] -%}
{%- set bin_count = 30 -%}
{%- set percentile_documents = var('lakemix_histogram_percentile_documents') | int -%}

with

signals as (
    select * from {{ ref('int_documents_quality_scored') }}
),

filtered as (
    select * from {{ ref('int_documents_quality_filtered') }}
),

languages as (
    select * from {{ ref('int_documents_language_scored') }}
),

thresholds as (
    select * from {{ ref('quality_thresholds') }}
),

{#- The share of documents the percentiles read: all, up to percentile_documents. -#}
sampling as (
    select
        least(1.0, {{ percentile_documents }} / greatest(count(*), 1)) as sample_rate
    from signals
),

documents as (
    select
        filtered.is_kept,
        {{ lakemix.unit_hash('signals.document_id', "'histogram_percentiles'") }}
        < sampling.sample_rate as is_sampled,
        languages.language_score,
        {%- for signal in signals if signal != 'language_score' %}
            signals.{{ signal }}{{ ',' if not loop.last }}
        {%- endfor %}
    from signals
    inner join filtered on signals.document_id = filtered.document_id
    inner join languages on signals.document_id = languages.document_id
    cross join sampling
),

measurements as (
    {%- set measured = [] %}
    {%- for signal in signals %}
        {%- do measured.append(lakemix.struct_pack({
            'signal_position': 'cast(' ~ loop.index0 ~ ' as tinyint)',
            'signal_value': 'cast(' ~ signal ~ ' as double)',
        })) %}
    {%- endfor %}
    select
        is_kept,
        is_sampled,
        {{ lakemix.explode(lakemix.list_of(measured)) }} as measured
    from documents
),

{#- Each signal by its position, not its name: these rows are ten per document, read twice
    (percentiles, binned), so DuckDB keeps them; a name would be a string in every row. -#}
signal_values as (
    select
        measured.signal_position,
        is_kept,
        is_sampled,
        measured.signal_value
    from measurements
    where measured.signal_value is not null and not isnan(measured.signal_value)
),

signal_names as (
    {%- for signal in signals %}
        select
            '{{ signal }}' as signal,
            {{ loop.index0 }} as signal_position
        {{ 'union all' if not loop.last }}
    {%- endfor %}
),

percentiles as (
    select
        signal_position,
        percentile_cont(0.01) within group (order by signal_value) as low_percentile,
        percentile_cont(0.99) within group (order by signal_value) as high_percentile
    from signal_values
    where is_sampled
    group by signal_position
),

spans as (
    select
        signal_names.signal,
        signal_names.signal_position,
        coalesce(percentiles.low_percentile, 0.0) as low_percentile,
        coalesce(percentiles.high_percentile, 1.0) as high_percentile
    from signal_names
    left join percentiles on signal_names.signal_position = percentiles.signal_position
),

near_thresholds as (
    select
        spans.signal,
        min(cast(thresholds.threshold as double)) as lowest_threshold,
        max(cast(thresholds.threshold as double)) as highest_threshold
    from spans
    inner join thresholds
        on
            spans.signal = thresholds.signal
            and thresholds.language = '*'
            and cast(thresholds.threshold as double)
            <= 10 * greatest(abs(spans.high_percentile), 1.0)
    group by spans.signal
),

widened as (
    select
        spans.signal,
        spans.signal_position,
        least(
            spans.low_percentile,
            coalesce(near_thresholds.lowest_threshold, spans.low_percentile)
        ) as lower_bound,
        greatest(
            spans.high_percentile,
            coalesce(near_thresholds.highest_threshold, spans.high_percentile)
        ) as upper_bound
    from spans
    left join near_thresholds on spans.signal = near_thresholds.signal
),

bounds as (
    select
        signal,
        signal_position,
        lower_bound,
        case
            when upper_bound <= lower_bound then lower_bound + 1.0 else upper_bound
        end as upper_bound
    from widened
),

binned as (
    select
        signal_values.signal_position,
        signal_values.is_kept,
        cast(least(
            {{ bin_count - 1 }},
            greatest(
                0,
                floor(
                    (signal_values.signal_value - bounds.lower_bound)
                    / (bounds.upper_bound - bounds.lower_bound) * {{ bin_count }}
                )
            )
        ) as integer) as bin
    from signal_values
    inner join bounds on signal_values.signal_position = bounds.signal_position
),

counts as (
    select
        signal_position,
        bin,
        sum(case when is_kept then 1 else 0 end) as kept_document_count,
        sum(case when is_kept then 0 else 1 end) as rejected_document_count
    from binned
    group by signal_position, bin
),

bins as (
    {%- for bin in range(bin_count) %}
        select {{ bin }} as bin {{ 'union all' if not loop.last }}
    {%- endfor %}
),

histograms as (
    select
        bounds.signal,
        bounds.signal_position,
        bins.bin,
        bounds.lower_bound
        + (bounds.upper_bound - bounds.lower_bound) * bins.bin / {{ bin_count }}
        as lower_edge,
        bounds.lower_bound
        + (bounds.upper_bound - bounds.lower_bound) * (bins.bin + 1) / {{ bin_count }}
        as upper_edge,
        cast(coalesce(counts.kept_document_count, 0) as bigint) as kept_document_count,
        cast(coalesce(counts.rejected_document_count, 0) as bigint) as rejected_document_count
    from bounds
    cross join bins
    left join counts
        on bounds.signal_position = counts.signal_position and bins.bin = counts.bin
)

select * from histograms
