{#- Whether value passes "value <operator> threshold". A null value (a signal that does not
    apply, e.g. no stop-word list for the language) passes. -#}
{% macro threshold_passed(value, operator, threshold) -%}
    coalesce(
        case {{ operator }}
            when '>=' then {{ value }} >= {{ threshold }}
            when '<=' then {{ value }} <= {{ threshold }}
            when '>' then {{ value }} > {{ threshold }}
            when '<' then {{ value }} < {{ threshold }}
        end,
        true
    )
{%- endmacro %}
