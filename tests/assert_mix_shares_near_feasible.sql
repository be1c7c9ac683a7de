{{ config(enabled=var('lakemix_mix') is not none) }}
{#- Realized token shares are within 0.5 percentage points of the shares the plan can realize
    (the strategy's targets unless a source cap says otherwise in `note`), or, where a language
    has too few documents for that, within the share of its largest sampled document: documents
    are atomic, so that is the closest feasible share. -#}
select *
from {{ ref('mix_languages') }}
where abs(realized_share - feasible_share) > greatest(0.005, granularity_share)
