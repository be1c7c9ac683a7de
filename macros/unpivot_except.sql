{#- A query over `cte`: one row per (keys, column) for every other column of `cte`, the column's
    name in `name` and its value in `value` (NULLs left out). `relation` is what `cte` reads
    (with `renamed` mapping its column names to the CTE's), for engines that need the list. -#}
{% macro unpivot_except(cte, relation, keys, name, value, renamed={}) -%}
    {{ return(adapter.dispatch('unpivot_except', 'lakemix')(cte, relation, keys, name, value, renamed)) }}
{%- endmacro %}

{% macro duckdb__unpivot_except(cte, relation, keys, name, value, renamed) -%}
    unpivot {{ cte }}
    on columns(* exclude ({{ keys | join(', ') }}))
    into name {{ name }} value {{ value }}
{%- endmacro %}

{% macro spark__unpivot_except(cte, relation, keys, name, value, renamed) -%}
    {%- set sources = [] -%}
    {%- for key in keys -%}
        {%- do sources.append(renamed.get(key, key)) -%}
    {%- endfor -%}
    select {{ keys | join(', ') }}, {{ name }}, {{ value }}
    from {{ cte }}
    unpivot ({{ value }} for {{ name }} in ({{ lakemix.columns_of(relation, exclude=sources) }}))
{%- endmacro %}
