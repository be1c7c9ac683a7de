{#- int_content_pairs_verified is complete: every content hash with band keys has been matched
    (its row with content_hash_b null), and every pair is stored once, as (smaller, larger). -#}

with

minhashed as (
    select * from {{ ref('int_documents_minhashed') }}
    where band_keys is not null
),

content_pairs as (
    select * from {{ ref('int_content_pairs_verified') }}
),

unmatched_hashes as (
    select distinct
        minhashed.content_hash,
        'never matched' as failure
    from minhashed
    where minhashed.content_hash not in (
        select content_hash_a from content_pairs
        where content_hash_b is null
    )
),

pairs_out_of_order as (
    select
        content_hash_a as content_hash,
        'pair not stored as (smaller, larger)' as failure
    from content_pairs
    where content_hash_a >= content_hash_b
),

failures as (
    select * from unmatched_hashes
    union all
    select * from pairs_out_of_order
)

select * from failures
