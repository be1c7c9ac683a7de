{{ config(enabled=var('lakemix_mix') is not none) }}
{#- The strategy's language shares sum to 1. -#}
with

shares as (
    select distinct
        language,
        target_share
    from {{ ref('stg_meta__mix_plans') }}
)

select sum(target_share) as total
from shares
having abs(sum(target_share) - 1) > 1e-6
