{{ config(incremental=true) }}
{{ lakemix.cache_key(
    {'ngram_words': var('lakemix_decontamination_ngram_words')}, udfs=['ngrams']
) }}

{#- One row per (document, benchmark version) that share a word n-gram (13 words, GPT-3's and
    FineWeb-Edu's): the benchmark's items of `lakemix benchmark add` (meta.benchmarks), the
    document's text as language ID read it. Incremental, like deduplication: each run checks
    the documents new since its last run against every benchmark, and, when benchmark items were
    added since (a new or replaced benchmark), every document against those; a document and a
    benchmark version are checked once. int_documents_decontaminated keeps the rows of the
    benchmarks as they are now (a removed or replaced one's rows stay here, unread). -#}

{%- set n = var('lakemix_decontamination_ngram_words') %}
{%- set benchmarks = source('meta', 'benchmarks') %}
{%- set found = adapter.get_relation(
    database=benchmarks.database, schema=benchmarks.schema, identifier=benchmarks.identifier
) if execute else none %}
{#- Items to check every document against: those added since this model's last run (DuckDB
    reads the data files added since; Spark every item). None on a first run or a full
    refresh, where every document is new. -#}
{%- set recheck = {'sql': none} %}
{%- if found is not none and is_incremental() %}
    {%- set added = lakemix.rows_since(benchmarks) %}
    {%- if target.type != 'duckdb'
        or run_query('select count(*) from ' ~ added).columns[0].values()[0] > 0 %}
        {%- do recheck.update({'sql': added}) %}
    {%- endif %}
{%- endif %}

with

benchmark_items as (
    {{ lakemix.rows_or_none(benchmarks) | indent(4) }}
),

benchmark_ngrams as (
    select
        benchmark,
        item_id,
        added_at,
        {{ lakemix.explode('lakemix_ngram_hashes(text, ' ~ n ~ ')') }} as ngram
    from benchmark_items
),

{#- The documents new since the last run (their watermark advances even while no benchmark is
    stored: they were checked against none, and a benchmark added later checks them all). -#}
new_documents as (
    select
        document_id,
        text
    from {{ lakemix.rows_since(ref('int_documents_language_scored'), 'document_id') }}
    {%- if found is none %}
    where false
    {%- endif %}
),

new_document_ngrams as (
    select
        document_id,
        {{ lakemix.explode('lakemix_ngram_hashes(text, ' ~ n ~ ')') }} as ngram
    from new_documents
),

new_document_overlaps as (
    select
        new_document_ngrams.document_id,
        benchmark_ngrams.benchmark,
        benchmark_ngrams.added_at,
        benchmark_ngrams.item_id,
        new_document_ngrams.ngram
    from new_document_ngrams
    inner join benchmark_ngrams
        on new_document_ngrams.ngram = benchmark_ngrams.ngram
),

{%- if recheck.sql %}

added_items as (
    select * from {{ recheck.sql }}
),

added_ngrams as (
    select
        benchmark,
        item_id,
        added_at,
        {{ lakemix.explode('lakemix_ngram_hashes(text, ' ~ n ~ ')') }} as ngram
    from added_items
),

document_ngrams as (
    select
        document_id,
        {{ lakemix.explode('lakemix_ngram_hashes(text, ' ~ n ~ ')') }} as ngram
    from {{ ref('int_documents_language_scored') }}
),

rechecked_overlaps as (  -- noqa: ST03
    select
        document_ngrams.document_id,
        added_ngrams.benchmark,
        added_ngrams.added_at,
        added_ngrams.item_id,
        document_ngrams.ngram
    from document_ngrams
    inner join added_ngrams
        on document_ngrams.ngram = added_ngrams.ngram
),
{%- endif %}

found_overlaps as (
    select * from new_document_overlaps
    {%- if recheck.sql %}
    union all
    select * from rechecked_overlaps
    {%- endif %}
),

overlaps_counted as (
    select
        document_id,
        benchmark,
        added_at as benchmark_added_at,
        min(item_id) as item_id,
        count(distinct ngram) as overlapping_ngrams
    from found_overlaps
    group by document_id, benchmark, added_at
),

{#- A (document, benchmark version) checked before is not stored again. -#}
overlaps_new as (
    select overlaps_counted.*
    from overlaps_counted
    {%- if is_incremental() %}
    left join {{ this }} as checked
        on
            overlaps_counted.document_id = checked.document_id
            and overlaps_counted.benchmark = checked.benchmark
            and overlaps_counted.benchmark_added_at = checked.benchmark_added_at
    where checked.document_id is null
    {%- endif %}
)

select * from overlaps_new
