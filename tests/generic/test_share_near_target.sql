{#- A share (`column_name`, in [0, 1]) is within `tolerance` of its target (`target_column`) on
    every row; where a row's `slack_column` is larger than the tolerance (e.g. the share one
    indivisible item makes up), that slack applies instead. Returns the rows too far off. -#}
{% test share_near_target(model, column_name, target_column, tolerance=0.005, slack_column=none) %}
    select
        {{ column_name }} as share,
        {{ target_column }} as target_share,
        abs({{ column_name }} - {{ target_column }}) as gap
    from {{ model }}
    where
        abs({{ column_name }} - {{ target_column }}) > {% if slack_column is not none -%}
            greatest({{ tolerance }}, coalesce({{ slack_column }}, 0))
        {%- else -%}
            {{ tolerance }}
        {%- endif %}
{% endtest %}
