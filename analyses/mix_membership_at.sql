{#- What was in a mix at a moment: `dbt compile --select mix_membership_at --vars
    '{lakemix_mix: demo_unimax, at: "2026-12-01 12:00:00"}'`, then run the compiled SQL. -#}
select document_id, language, source_id, repeat_count, split
from snapshots.mix_{{ var('lakemix_mix') or 'demo_unimax' }}_history
where
    dbt_valid_from <= timestamptz '{{ var("at", "2100-01-01") }}'
    and (dbt_valid_to > timestamptz '{{ var("at", "2100-01-01") }}' or dbt_valid_to is null)
