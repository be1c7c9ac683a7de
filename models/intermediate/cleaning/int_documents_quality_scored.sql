{{ config(incremental=true, post_hook="{{ lakemix.release_udfs('quality') }}") }}
{{ lakemix.cache_key({
    'stop_words': lakemix.relation_digest(ref('stop_words'), ['language', 'word']),
    'quality_model': lakemix.quality_model_digest(),
}, udfs=['quality', 'quality_model']) }}

{#- Every signal of every document, measured once (incremental: documents added since the last
    run only). The words of a document are its language's: the UDF segments the languages
    written without spaces, and counts the stop words of the document's language, which come
    from the stop_words seed (so a release rebuilds with the stop words it was made with; the
    seed's digest is in the cache key, so changed stop words refuse an incremental run). The
    only model that calls the UDF: its post-hook drops the segmenters it loaded (release_udfs),
    some 400 MB the rest of the build would otherwise carry.
    quality_score is the trained quality model's probability that the document is worth keeping
    (var lakemix_quality_model: the model that ships with lakemix, or a file of `lakemix quality
    train`); the model's digest is in the cache key, so a new model refuses an incremental run
    and the full refresh re-scores every document. -#}

with

documents as (
    select * from {{ lakemix.rows_since(ref('int_documents_language_scored'), 'document_id') }}
),

stop_words as (
    select * from {{ ref('stop_words') }}
),

stop_words_per_language as (
    select
        language,
        {{ lakemix.ordered_list('word', ['word']) }} as stop_words
    from stop_words
    group by language
),

documents_measured as (
    select
        documents.document_id,
        documents.language,
        documents.language_score,
        lakemix_quality_signals(
            documents.text,
            documents.language,
            stop_words_per_language.stop_words
        ) as signals,
        lakemix_quality_score(
            documents.text, '{{ var("lakemix_quality_model") | replace("'", "''") }}'
        ) as quality_score
    from documents
    left join stop_words_per_language
        on documents.language = stop_words_per_language.language
),

documents_quality_scored as (
    select
        document_id,
        language,
        language_score,
        {{ lakemix.struct_columns('signals') }},
        quality_score
    from documents_measured
)

select * from documents_quality_scored
