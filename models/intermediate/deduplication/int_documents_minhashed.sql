{{ config(incremental=true) }}
{{ lakemix.cache_key({
    'shingle_words': var('lakemix_minhash_shingle_words'),
    'bands': var('lakemix_minhash_bands'),
    'rows': var('lakemix_minhash_rows'),
    'seed': var('lakemix_minhash_seed'),
}, udfs=['minhash']) }}

{#- Every document is hashed once (incremental): a threshold change that keeps more documents
    needs no new signatures. A run reads the text of the documents added since its last run
    only (rows_since: by Iceberg snapshot, exact by document_id), not of every document, and
    puts each new text in the text store (store_text: content_hash is its md5), where
    int_content_pairs_verified reads the texts of its pairs by content hash. -#}

with

documents as (
    select * from {{ lakemix.rows_since(ref('int_documents_language_scored'), 'document_id') }}
),

documents_minhashed as (
    select
        document_id,
        {{ lakemix.store_text('text') }} as content_hash,
        lakemix_minhash_bands(
            text,
            {{ var('lakemix_minhash_shingle_words') }},
            {{ var('lakemix_minhash_bands') }},
            {{ var('lakemix_minhash_rows') }},
            {{ var('lakemix_minhash_seed') }}
        ) as band_keys
    from documents
)

select * from documents_minhashed
