{#- Edges of the duplicate graph among the documents kept by the quality filters:
    exact duplicates (same content hash) are linked to the smallest document_id of their hash,
    and the LSH candidate pairs among those representatives are kept when their word 5-gram
    Jaccard reaches lakemix_dedup_jaccard_threshold (or all of them when lakemix_dedup_verify
    is false, as FineWeb does). Collapsing exact duplicates first keeps a large exact cluster
    from producing a quadratic number of pairs.

    Documents with the same text have the same band keys, so the candidate pairs among the
    representatives are the cached content-hash pairs (int_content_pairs_verified) whose two
    hashes have a kept document, each hash mapped to its representative: no band key is joined
    and no text is read here, whatever the quality filters keep. -#}

with

kept as (
    select document_id from {{ ref('int_documents_quality_filtered') }}
    where is_kept
),

minhashed as (
    select * from {{ ref('int_documents_minhashed') }}
),

content_pairs as (
    select * from {{ ref('int_content_pairs_verified') }}
    where content_hash_b is not null
),

kept_hashes as (
    select
        minhashed.document_id,
        minhashed.content_hash
    from minhashed
    inner join kept
        on minhashed.document_id = kept.document_id
),

{#- A group-by, not min() over (partition by content_hash): a window sorts every document. -#}
representatives as (
    select
        content_hash,
        min(document_id) as representative_id
    from kept_hashes
    group by content_hash
),

exact_edges as (
    select
        representatives.representative_id as document_id_a,
        kept_hashes.document_id as document_id_b,
        'exact' as edge_kind,
        cast(1.0 as double) as jaccard
    from kept_hashes
    inner join representatives
        on kept_hashes.content_hash = representatives.content_hash
    where kept_hashes.document_id != representatives.representative_id
),

candidate_pairs as (
    select
        least(representative_a.representative_id, representative_b.representative_id)
            as document_id_a,
        greatest(representative_a.representative_id, representative_b.representative_id)
            as document_id_b,
        'near' as edge_kind,
        {% if var('lakemix_dedup_verify') -%}
            {#- A pair cached by a run with lakemix_dedup_verify false has no Jaccard. -#}
            coalesce(
                content_pairs.jaccard,
                {{ lakemix.raise_error(
                    "'int_content_pairs_verified holds pairs without a Jaccard (cached with '"
                    ~ " || 'lakemix_dedup_verify false): run it with --full-refresh'"
                ) }}
            )
        {%- else -%}
            cast(null as double)
        {%- endif %} as jaccard
    from content_pairs
    inner join representatives as representative_a
        on content_pairs.content_hash_a = representative_a.content_hash
    inner join representatives as representative_b
        on content_pairs.content_hash_b = representative_b.content_hash
),

near_edges as (
    select * from candidate_pairs
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
