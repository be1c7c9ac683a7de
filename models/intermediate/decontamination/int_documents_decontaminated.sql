{#- One row per document that shares a word n-gram with an item of a stored benchmark (family
    decontamination of var lakemix_filter_families): its failures in the shape of
    failed_rules, which int_documents_quality_filtered adds to the document's own. Rule
    decontamination:<benchmark>, value the n-grams shared, threshold_source the first item
    that shares one. Only the benchmarks as they are now (meta.benchmarks): a removed one
    rejects nothing from the next build on. -#}

with

document_overlaps as (
    select * from {{ ref('int_documents_benchmark_overlaps') }}
),

benchmark_items as (
    {{ lakemix.rows_or_none(source('meta', 'benchmarks')) | indent(4) }}
),

benchmark_versions as (
    select distinct
        benchmark,
        added_at
    from benchmark_items
),

documents_contaminated as (
    select
        document_overlaps.document_id,
        {{ lakemix.list_sort(lakemix.list_agg(lakemix.struct_pack({
            'rule': "concat('decontamination:', document_overlaps.benchmark)",
            'family': "'decontamination'",
            'signal': "'ngrams_" ~ var('lakemix_decontamination_ngram_words') ~ "'",
            'value': 'cast(document_overlaps.overlapping_ngrams as double)',
            'operator': "'<'",
            'threshold': 'cast(1 as double)',
            'threshold_source': 'document_overlaps.item_id',
        }))) }} as contamination_failures
    from document_overlaps
    inner join benchmark_versions
        on
            document_overlaps.benchmark = benchmark_versions.benchmark
            and document_overlaps.benchmark_added_at = benchmark_versions.added_at
    {%- if 'decontamination' not in var('lakemix_filter_families') %}
    where false
    {%- endif %}
    group by document_overlaps.document_id
)

select * from documents_contaminated
