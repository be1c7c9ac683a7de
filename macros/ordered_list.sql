{#- Aggregate: the values of `expr` as a list ordered by the expressions `order_by` (a list),
    the same on every engine whatever the partitioning. -#}
{% macro ordered_list(expr, order_by) -%}
    {{ return(adapter.dispatch('ordered_list', 'lakemix')(expr, order_by)) }}
{%- endmacro %}

{% macro duckdb__ordered_list(expr, order_by) -%}
    list({{ expr }} order by {{ order_by | join(', ') }})
{%- endmacro %}

{#- Spark's collect_list has no order: sort (keys..., value) structs, then keep the values. -#}
{% macro spark__ordered_list(expr, order_by) -%}
    transform(
        array_sort(collect_list(named_struct(
            {%- for key in order_by %}'k{{ loop.index }}', {{ key }}, {% endfor -%}
            'v', {{ expr }}
        ))),
        sorted -> sorted.v
    )
{%- endmacro %}
