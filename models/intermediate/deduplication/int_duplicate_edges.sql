{#- Edges of the duplicate graph among the documents kept by the quality filters:
    exact duplicates (same content hash) are linked to the smallest document_id of their hash,
    and the LSH candidate pairs among those representatives (documents sharing a band key) are
    kept when their word 5-gram Jaccard reaches lakemix_dedup_jaccard_threshold (or all of them
    when lakemix_dedup_verify is false, as FineWeb does). Collapsing exact duplicates first
    keeps a large exact cluster from producing a quadratic number of pairs. -#}

with

kept as (
    select document_id from {{ ref('int_documents_quality_filtered') }}
    where is_kept
),

minhashed as (
    select * from {{ ref('int_documents_minhashed') }}
),

band_keys as (
    select * from {{ ref('int_document_band_keys') }}
),

documents as (
    select * from {{ ref('int_documents_language_scored') }}
),

kept_hashes as (
    select
        minhashed.document_id,
        minhashed.content_hash,
        min(minhashed.document_id) over (partition by minhashed.content_hash) as representative_id
    from minhashed
    inner join kept
        on minhashed.document_id = kept.document_id
),

exact_edges as (
    select
        representative_id as document_id_a,
        document_id as document_id_b,
        'exact' as edge_kind,
        1.0 as jaccard
    from kept_hashes
    where document_id != representative_id
),

representative_keys as (
    select band_keys.*
    from band_keys
    inner join kept_hashes
        on
            band_keys.document_id = kept_hashes.document_id
            and kept_hashes.document_id = kept_hashes.representative_id
),

candidate_pairs as (
    select distinct
        a.document_id as document_id_a,
        b.document_id as document_id_b
    from representative_keys as a
    inner join representative_keys as b
        on
            a.band_key = b.band_key
            and a.document_id < b.document_id
),

candidates_verified as (
    select
        candidate_pairs.document_id_a,
        candidate_pairs.document_id_b,
        'near' as edge_kind,
        {% if var('lakemix_dedup_verify') -%}
            lakemix_jaccard(text_a.text, text_b.text)
        {%- else -%}
            cast(null as double)
        {%- endif %} as jaccard
    from candidate_pairs
    inner join documents as text_a
        on candidate_pairs.document_id_a = text_a.document_id
    inner join documents as text_b
        on candidate_pairs.document_id_b = text_b.document_id
),

near_edges as (
    select * from candidates_verified
    {% if var('lakemix_dedup_verify') %}
        where jaccard >= {{ var('lakemix_dedup_jaccard_threshold') }}
    {% endif %}
),

edges as (
    select * from exact_edges
    union all
    select * from near_edges
)

select * from edges
