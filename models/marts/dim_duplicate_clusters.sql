with

deduplicated as (
    select * from {{ ref('int_documents_deduplicated') }}
),

clusters as (
    select
        cluster_id,
        any_value(cluster_size) as cluster_size,
        any_value(cluster_kind) as cluster_kind,
        any_value(kept_document_id) as kept_document_id,
        {{ lakemix.ordered_list('document_id', ['document_id']) }} as member_document_ids
    from deduplicated
    where cluster_size > 1
    group by cluster_id
)

select * from clusters
