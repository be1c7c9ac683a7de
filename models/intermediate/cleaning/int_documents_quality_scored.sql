{{ config(incremental=true) }}

with

documents as (
    select * from {{ ref('int_documents_language_scored') }}
    {% if is_incremental() %}
        where document_id not in (select document_id from {{ this }})
    {% endif %}
),

documents_measured as (
    select
        document_id,
        language,
        language_score,
        lakemix_quality_signals(text) as signals,
        lakemix_stop_word_count(text, language) as stop_word_count
    from documents
),

documents_quality_scored as (
    select
        document_id,
        language,
        language_score,
        stop_word_count,
        {{ lakemix.struct_columns('signals') }}
    from documents_measured
)

select * from documents_quality_scored
