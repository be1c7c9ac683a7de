{#- Accounting within a row: `column_name` equals the sum of the columns `parts` (e.g. raw
    documents = rejected + removed + clean). Returns the rows where it does not. -#}
{% test sum_of(model, column_name, parts) %}
    select
        {{ column_name }},
        {{ parts | join(' + ') }} as parts_sum
    from {{ model }}
    where {{ column_name }} != {{ parts | join(' + ') }}
{% endtest %}
