{{ config(enabled=var('lakemix_mix') is not none) }}
{#- UniMax: no language is repeated more than the mix's epoch limit. -#}
select *
from {{ ref('mix_languages') }}
where max_epochs is not null and realized_epochs > max_epochs + 1e-9
