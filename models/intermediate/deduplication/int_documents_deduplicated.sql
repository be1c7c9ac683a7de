{#- One row per document kept by the quality filters: its duplicate cluster (connected
    components of int_duplicate_edges: lakemix.connected_components), and
    whether it is the one document its cluster keeps: the earliest ingested, then the smallest
    document_id. The same input gives the same clusters whatever the order or thread count:
    a component's label is its smallest node (DuckDB numbers nodes in document_id order).

    Only the documents on an edge can share a cluster (a few percent of them): components,
    sizes and kept documents are computed over those, and every other kept document is its
    own cluster of one, without a sort or a join of the whole corpus. -#}
{#- Spark computes the components in round tables beside this model: dropped once it is built. -#}
{{ config(post_hook="{{ lakemix.drop_connected_components() }}") }}
{%- set kept_first = lakemix.struct_pack({'ingested_at': 'ingested_at', 'document_id': 'document_id'}) %}

with

kept as (
    select document_id from {{ ref('int_documents_quality_filtered') }}
    where is_kept
),

documents as (
    select * from {{ ref('int_documents_language_scored') }}
),

minhashed as (
    select * from {{ ref('int_documents_minhashed') }}
),

edges as (
    select * from {{ ref('int_duplicate_edges') }}
),

linked as (
    select document_id_a as document_id from edges
    union
    select document_id_b as document_id from edges
),

{#- Labels of the connected components of the edges: the lakemix_connected_components UDF
    on DuckDB, distributed rounds of joins on Spark (macros/connected_components.sql). -#}
document_components as (
    {{ lakemix.connected_components(
        ref('int_duplicate_edges'), 'document_id_a', 'document_id_b'
    ) | indent(4) }}
),

documents_clustered as (
    select
        document_components.node as document_id,
        document_components.component,
        documents.ingested_at,
        minhashed.content_hash
    from document_components
    inner join documents
        on document_components.node = documents.document_id
    inner join minhashed
        on document_components.node = minhashed.document_id
),

{#- One row per cluster: its size, its distinct texts and the document it keeps (the earliest
    ingested, then the smallest document_id), as aggregates that combine partially, so that no
    cluster ever meets in one task on Spark (a window partitioned by cluster would put a large
    cluster's rows in one). -#}
clusters as (
    select
        component,
        count(*) as cluster_size,
        count(distinct content_hash) as cluster_content_count,
        min_by(document_id, {{ kept_first }}) as kept_document_id,
        min_by(content_hash, {{ kept_first }}) as kept_content_hash
    from documents_clustered
    group by component
),

linked_deduplicated as (
    select
        documents_clustered.document_id,
        clusters.kept_document_id as cluster_id,
        clusters.cluster_size,
        case
            when clusters.cluster_size = 1 then 'unique'
            when clusters.cluster_content_count = 1 then 'exact'
            else 'near'
        end as cluster_kind,
        documents_clustered.document_id = clusters.kept_document_id as is_cluster_kept,
        clusters.kept_document_id,
        case
            when documents_clustered.document_id = clusters.kept_document_id then null
            when documents_clustered.content_hash = clusters.kept_content_hash
                then 'exact_duplicate'
            else 'near_duplicate'
        end as duplicate_kind
    from documents_clustered
    inner join clusters
        on documents_clustered.component = clusters.component
),

singletons as (
    select
        kept.document_id,
        kept.document_id as cluster_id,
        cast(1 as bigint) as cluster_size,
        'unique' as cluster_kind,
        true as is_cluster_kept,
        kept.document_id as kept_document_id,
        cast(null as string) as duplicate_kind
    from kept
    left join linked
        on kept.document_id = linked.document_id
    where linked.document_id is null
),

documents_deduplicated as (
    select * from linked_deduplicated
    union all
    select * from singletons
)

select * from documents_deduplicated
