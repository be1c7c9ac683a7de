{{ config(incremental=true) }}
{{ lakemix.cache_key({
    'shingle_words': var('lakemix_minhash_shingle_words'),
    'bands': var('lakemix_minhash_bands'),
    'rows': var('lakemix_minhash_rows'),
    'seed': var('lakemix_minhash_seed'),
}, udfs=['minhash', 'jaccard']) }}

{#- The LSH candidate pairs of distinct texts, verified once and kept (incremental).

    Candidates and their Jaccard depend only on the text, so they are cached by content hash
    (MD5 of the normalized text), over every document with band keys whatever the quality
    filters decide: a threshold change never needs a new pair. Each run takes the documents
    hashed since its last run (by Iceberg snapshot: lakemix.rows_since), keeps the content
    hashes among them it has not matched before, matches their band keys against the band keys
    of every document, computes the word 5-gram Jaccard of those new pairs only, and appends
    them, with one row per new hash (content_hash_b null) that records it was matched: that
    row is the watermark of the matching, so a run whose new texts gave no pair does not match
    them again. Rows are (smaller hash, larger hash), so a full refresh gives the same rows. -#}

with

minhashed as (
    select * from {{ ref('int_documents_minhashed') }}
    where band_keys is not null
),

{#- The documents hashed since this model's last run, by Iceberg snapshot (rows_since): the
    band keys of every other document are read, not grouped. -#}
minhashed_since as (
    select * from {{ lakemix.rows_since(ref('int_documents_minhashed')) }}
    where band_keys is not null
),

{#- For the fallback only (missing_documents): a second import, so that the band keys of
    every document are streamed once into band_index, not materialized for two readers. -#}
hashed_documents as (
    select
        document_id,
        content_hash
    from {{ ref('int_documents_minhashed') }}
),

documents as (
    select * from {{ ref('int_documents_language_scored') }}
),

{#- Documents with the same text have the same band keys: one row per new content hash (any of
    its documents stands for it; the smallest id, to be deterministic). -#}
new_contents as (
    select
        content_hash,
        min_by(band_keys, document_id) as band_keys
    from minhashed_since
    {% if is_incremental() %}
        where content_hash not in (
            select content_hash_a from {{ this }}
            where content_hash_b is null
        )
    {% endif %}
    group by content_hash
),

new_band_keys as (
    select
        content_hash,
        {{ lakemix.explode('band_keys') }} as band_key
    from new_contents
),

{#- Every document's keys: a text with several documents is found once per document, and
    candidate_pairs keeps one. -#}
band_index as (
    select
        content_hash,
        {{ lakemix.explode('band_keys') }} as band_key
    from minhashed
),

{%- set band_salts = lakemix.band_salts() | int %}
{%- if band_salts > 1 %}

{#- Spark: the pairs of one band key are one join task, and a key shared by many documents
    (boilerplate) would make it a straggler. The keys of more than lakemix_spark_hot_band_rows
    documents are salted: each document's row takes one of band_salts salts (by its hash),
    each new key's row is repeated once per salt, and the join matches salts too, so the
    pairs of a hot key are found by band_salts tasks; other keys keep salt 0, unrepeated. -#}
hot_band_keys as (
    select band_key
    from band_index
    group by band_key
    having count(*) > {{ var('lakemix_spark_hot_band_rows') }}
),

new_band_keys_salted as (
    select
        new_band_keys.content_hash,
        new_band_keys.band_key,
        {{ lakemix.explode(
            'case when hot_band_keys.band_key is null then array(0) else sequence(0, '
            ~ (band_salts - 1) ~ ') end'
        ) }} as band_salt
    from new_band_keys
    left join hot_band_keys
        on new_band_keys.band_key = hot_band_keys.band_key
),

band_index_salted as (
    select
        band_index.content_hash,
        band_index.band_key,
        case
            when hot_band_keys.band_key is null then 0
            else pmod(hash(band_index.content_hash), {{ band_salts }})
        end as band_salt
    from band_index
    left join hot_band_keys
        on band_index.band_key = hot_band_keys.band_key
),

{#- A pair of two new hashes is found from both sides: distinct keeps one. -#}
candidate_pairs as (
    select distinct
        least(new_band_keys.content_hash, band_index.content_hash) as content_hash_a,
        greatest(new_band_keys.content_hash, band_index.content_hash) as content_hash_b
    from new_band_keys_salted as new_band_keys
    inner join band_index_salted as band_index
        on
            new_band_keys.band_key = band_index.band_key
            and new_band_keys.band_salt = band_index.band_salt
            and new_band_keys.content_hash != band_index.content_hash
),

{%- else %}

{#- A pair of two new hashes is found from both sides: distinct keeps one. -#}
candidate_pairs as (
    select distinct
        least(new_band_keys.content_hash, band_index.content_hash) as content_hash_a,
        greatest(new_band_keys.content_hash, band_index.content_hash) as content_hash_b
    from new_band_keys
    inner join band_index
        on
            new_band_keys.band_key = band_index.band_key
            and new_band_keys.content_hash != band_index.content_hash
),

{%- endif %}

{%- if var('lakemix_dedup_verify') %}

candidate_hashes as (
    select content_hash_a as content_hash from candidate_pairs
    union
    select content_hash_b as content_hash from candidate_pairs
),

{#- The text of each hash of a pair, read by hash from the text store that
    int_documents_minhashed writes (stored_text): the texts of the new pairs only, not every
    document's. -#}
stored_texts as (
    select
        content_hash,
        {{ lakemix.stored_text('content_hash') }} as text
    from candidate_hashes
),

{#- A hash the store lacks (the store was deleted, or Spark wrote the tables) is read from the
    documents, as the text of its smallest document_id: the same text, so the same Jaccard.
    When none is missing, no document is read. -#}
missing_documents as (
    select
        hashed_documents.content_hash,
        min(hashed_documents.document_id) as document_id
    from hashed_documents
    inner join stored_texts
        on hashed_documents.content_hash = stored_texts.content_hash
    where stored_texts.text is null
    group by hashed_documents.content_hash
),

read_texts as (
    select
        missing_documents.content_hash,
        documents.text
    from documents
    inner join missing_documents
        on documents.document_id = missing_documents.document_id
),

candidate_texts as (
    select * from stored_texts
    where text is not null
    union all
    select * from read_texts
),

pairs_verified as (
    select
        candidate_pairs.content_hash_a,
        candidate_pairs.content_hash_b,
        lakemix_jaccard(
            text_a.text, text_b.text, {{ var('lakemix_minhash_shingle_words') }}
        ) as jaccard
    from candidate_pairs
    inner join candidate_texts as text_a
        on candidate_pairs.content_hash_a = text_a.content_hash
    inner join candidate_texts as text_b
        on candidate_pairs.content_hash_b = text_b.content_hash
),

{%- else %}

pairs_verified as (
    select
        content_hash_a,
        content_hash_b,
        cast(null as double) as jaccard
    from candidate_pairs
),

{%- endif %}

contents_matched as (
    select
        content_hash as content_hash_a,
        cast(null as string) as content_hash_b,
        cast(null as double) as jaccard
    from new_contents
),

content_pairs as (
    select * from pairs_verified
    union all
    select * from contents_matched
)

select * from content_pairs
