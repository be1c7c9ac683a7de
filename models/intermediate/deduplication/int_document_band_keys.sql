{{ config(incremental=true) }}

{#- The LSH band index: one row per (document, band key). New documents are matched against
    the whole index when candidate pairs are formed. -#}

with

minhashed as (
    select * from {{ ref('int_documents_minhashed') }}
    where band_keys is not null
    {% if is_incremental() %}
        and document_id not in (select document_id from {{ this }})
    {% endif %}
),

band_keys as (
    select
        document_id,
        unnest(band_keys) as band_key
    from minhashed
)

select * from band_keys
