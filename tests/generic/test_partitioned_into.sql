{#- Accounting: every `column_name` of the model is in exactly one of the relations `parts`
    (same column name), and the parts hold no other keys; e.g. raw = clean + rejected. Returns
    the keys that break it, with the number of parts holding them. -#}
{% test partitioned_into(model, column_name, parts) %}
    with

    whole as (
        select distinct {{ column_name }} as key from {{ model }}
    ),

    part_keys as (
        {%- for part in parts %}
        select {{ column_name }} as key from {{ part }}
        {{- "\n        union all" if not loop.last }}
        {%- endfor %}
    ),

    part_counts as (
        select key, count(*) as part_count from part_keys group by key
    )

    select
        coalesce(whole.key, part_counts.key) as key,
        coalesce(part_counts.part_count, 0) as part_count,
        whole.key is not null as is_in_model
    from whole
    full outer join part_counts
        on whole.key = part_counts.key
    where whole.key is null or coalesce(part_counts.part_count, 0) != 1
{% endtest %}
