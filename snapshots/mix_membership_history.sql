{% snapshot mix_membership_history %}

{#- SCD2 history of a mix's membership: one row per document and version of its repeat count
    and split; a document that leaves the mix gets its dbt_valid_to. Taken by
    `lakemix mix build`. -#}

{#- DuckDB tables: not yet kept on the Spark target. -#}
{{ config(
    enabled=var('lakemix_mix') is not none and target.type == 'duckdb',
    alias='mix_' ~ (var('lakemix_mix') or 'none') ~ '_history',
    target_schema='snapshots',
    unique_key='document_id',
    strategy='check',
    check_cols=['repeat_count', 'split'],
    hard_deletes='invalidate',
) }}

select document_id, language, source_id, token_count, repeat_count, split
from {{ ref('mix_documents') }}

{% endsnapshot %}
