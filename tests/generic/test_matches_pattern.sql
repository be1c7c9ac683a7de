{#- Every non-null value of `column_name` contains a match of the regular expression `pattern`
    (anchor it with ^ and $ for a whole match; the same syntax on DuckDB and Spark for the
    patterns used here). Returns the values that do not. -#}
{% test matches_pattern(model, column_name, pattern) %}
    select {{ column_name }}
    from {{ model }}
    where
        {{ column_name }} is not null
        and not {{ lakemix.regexp_matches(column_name, pattern) }}
{% endtest %}
