{#- Overrides dbt's: a test's `where` config may say __new_rows__, replaced at run time by
    lakemix.new_rows_predicate() (the rows of ingests no passing full build has tested yet). -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- if where -%}
        {%- if '__new_rows__' in where -%}
            {%- set where = where | replace('__new_rows__', lakemix.new_rows_predicate()) -%}
        {%- endif -%}
        {%- set filtered -%}
            (select * from {{ relation }} where {{ where }}) dbt_subquery
        {%- endset -%}
        {% do return(filtered) %}
    {%- else -%}
        {% do return(relation) %}
    {%- endif -%}
{%- endmacro %}
