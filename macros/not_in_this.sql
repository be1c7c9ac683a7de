{#- In an incremental model's WHERE clause: `column` is not yet a `key` of this model (`key`
    defaults to `column`'s own name, without a table prefix), so a row is computed once; `true`
    on a first run or a full refresh. The one way to write the anti-join of an incremental
    model whose input is not append-only (rows_since reads an append-only input by snapshot). -#}
{% macro not_in_this(column, key=none) -%}
    {%- if is_incremental() -%}
        {{ column }} not in (select {{ key or column.split('.')[-1] }} from {{ this }})
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}
