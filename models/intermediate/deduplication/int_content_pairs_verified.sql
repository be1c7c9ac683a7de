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

{#- The content hash of each key in a pair (candidate_hashes): an import of its own, so that
    the band keys of every document are streamed once into band_index, not materialized for
    two readers. -#}
keyed_contents as (
    select
        content_hash,
        {{ lakemix.content_key('content_hash') }} as content_key
    from {{ ref('int_documents_minhashed') }}
),

{#- For the fallback only (missing_documents): another import, for the same reason. -#}
hashed_documents as (
    select
        document_id,
        content_hash
    from {{ ref('int_documents_minhashed') }}
),

documents as (
    select * from {{ ref('int_documents_language_scored') }}
),

{#- Documents with the same text have the same band keys: one row per new content hash, and
    one of its documents stands for it (the smallest id, to be deterministic). The aggregate
    keeps that id, not its band keys: at 5M documents, every text's list of band keys held in
    one aggregate ran DuckDB out of its 2GB limit. -#}
new_contents as (
    select
        content_hash,
        min(document_id) as document_id
    from minhashed_since
    {% if is_incremental() %}
        where content_hash not in (
            select content_hash_a from {{ this }}
            where content_hash_b is null
        )
    {% endif %}
    group by content_hash
),

{#- The band keys are matched by each text's content_key (lakemix.content_key: 60 bits of its
    MD5 as a bigint), not its 32-character hash: at 3M documents the join holds some 40M keys,
    and DuckDB ran out of its memory limit with the strings in it. The hashes come back in
    candidate_pairs, for the pairs found alone. -#}
new_band_keys as (
    select
        {{ lakemix.content_key('content_hash') }} as content_key,
        {{ lakemix.explode('band_keys') }} as band_key
    from minhashed_since
    where document_id in (select document_id from new_contents)
),

{#- Every document's keys: a text with several documents is found once per document, and
    candidate_keys keeps one. -#}
band_index as (
    select
        {{ lakemix.content_key('content_hash') }} as content_key,
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
        new_band_keys.content_key,
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
        band_index.content_key,
        band_index.band_key,
        case
            when hot_band_keys.band_key is null then 0
            else pmod(band_index.content_key, {{ band_salts }})
        end as band_salt
    from band_index
    left join hot_band_keys
        on band_index.band_key = hot_band_keys.band_key
),

{#- A pair of two new texts is found from both sides: distinct keeps one. -#}
candidate_keys as (
    select distinct
        least(new_band_keys.content_key, band_index.content_key) as content_key_a,
        greatest(new_band_keys.content_key, band_index.content_key) as content_key_b
    from new_band_keys_salted as new_band_keys
    inner join band_index_salted as band_index
        on
            new_band_keys.band_key = band_index.band_key
            and new_band_keys.band_salt = band_index.band_salt
            and new_band_keys.content_key != band_index.content_key
),

{%- else %}

{%- if is_incremental() %}

{#- The new texts' keys are few (a build's new documents): the index rows that share one are
    found by a semi-join on them, one pass over the index, not grouped. -#}
new_shared_keys as (
    select * from new_band_keys
),

shared_index as (
    select * from band_index
    where band_key in (select band_key from new_band_keys)
),

{%- else %}

{#- Every text is new: the join takes the keys two texts share, found by an aggregate (which
    spills), not every key (DuckDB ran out of its memory limit joining the 40M keys of 3M
    documents, their hash tables held to the end of the query). Most keys belong to one text. -#}
shared_band_keys as (
    select band_key
    from band_index
    group by band_key
    having min(content_key) < max(content_key)
),

new_shared_keys as (
    select * from new_band_keys
    where band_key in (select band_key from shared_band_keys)
),

shared_index as (
    select * from band_index
    where band_key in (select band_key from shared_band_keys)
),

{%- endif %}

{#- A pair of two new texts is found from both sides: distinct keeps one. -#}
candidate_keys as (
    select distinct
        least(new_shared_keys.content_key, shared_index.content_key) as content_key_a,
        greatest(new_shared_keys.content_key, shared_index.content_key) as content_key_b
    from new_shared_keys
    inner join shared_index
        on
            new_shared_keys.band_key = shared_index.band_key
            and new_shared_keys.content_key != shared_index.content_key
),

{%- endif %}

paired_keys as (
    select content_key_a as content_key from candidate_keys
    union
    select content_key_b as content_key from candidate_keys
),

{#- The content hash of each key in a pair (two texts sharing a key would both be here). -#}
candidate_hashes as (
    select distinct
        keyed_contents.content_key,
        keyed_contents.content_hash
    from keyed_contents
    inner join paired_keys
        on keyed_contents.content_key = paired_keys.content_key
),

candidate_pairs as (
    select distinct
        least(hash_a.content_hash, hash_b.content_hash) as content_hash_a,
        greatest(hash_a.content_hash, hash_b.content_hash) as content_hash_b
    from candidate_keys
    inner join candidate_hashes as hash_a
        on candidate_keys.content_key_a = hash_a.content_key
    inner join candidate_hashes as hash_b
        on candidate_keys.content_key_b = hash_b.content_key
),

{%- if var('lakemix_dedup_verify') %}

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
