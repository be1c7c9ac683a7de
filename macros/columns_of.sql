{#- The columns of `relation` except `exclude`, comma-separated, quoted, qualified by `alias`
    when given: a portable `alias.* exclude (...)`; `*` while dbt only parses. -#}
{% macro columns_of(relation, alias=none, exclude=[]) -%}
    {%- set prefix = alias ~ '.' if alias else '' -%}
    {%- if not execute -%}
        {{ return(prefix ~ '*') }}
    {%- endif -%}
    {%- set names = [] -%}
    {%- for name in lakemix.column_names(relation, exclude) -%}
        {%- do names.append(prefix ~ adapter.quote(name)) -%}
    {%- endfor -%}
    {{ return(names | join(', ')) }}
{%- endmacro %}
