{#- No two rows share the same values in `columns`. -#}
{% test unique_combination(model, columns) %}
    select
        {{ columns | join(', ') }},
        count(*) as row_count
    from {{ model }}
    group by {{ columns | join(', ') }}
    having count(*) > 1
{% endtest %}
