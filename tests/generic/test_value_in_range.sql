{#- Every non-null value of `column_name` lies within [min_value, max_value] (either bound may
    be omitted; `inclusive=false` makes both bounds strict), and with `allow_null=false` no value
    is null (one query for both). Returns the rows outside. -#}
{% test value_in_range(
    model, column_name, min_value=none, max_value=none, inclusive=true, allow_null=true
) %}
    {%- if min_value is none and max_value is none -%}
        {{ exceptions.raise_compiler_error("value_in_range on " ~ column_name ~ ": give min_value, max_value or both") }}
    {%- endif -%}
    {%- set lower = '>=' if inclusive else '>' -%}
    {%- set upper = '<=' if inclusive else '<' -%}
    select {{ column_name }}
    from {{ model }}
    where
        {%- if allow_null %}
        {{ column_name }} is not null and not (
        {%- else %}
        {{ column_name }} is null or not (
        {%- endif %}
            true
            {%- if min_value is not none %}
            and {{ column_name }} {{ lower }} {{ min_value }}
            {%- endif %}
            {%- if max_value is not none %}
            and {{ column_name }} {{ upper }} {{ max_value }}
            {%- endif %}
        )
{% endtest %}
