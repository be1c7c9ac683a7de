{#- Overrides dbt's: a test's `where` config may say __new_rows__, replaced at run time by
    lakemix.new_rows_predicate() (the rows of ingests no passing full build has tested yet), or
    __written_rows__: the test reads lakemix.written_rows_relation(relation) instead (the rows
    of the table written since the snapshot the last passing full build tested). -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- if where -%}
        {%- if '__new_rows__' in where -%}
            {%- set where = where | replace('__new_rows__', lakemix.new_rows_predicate()) -%}
        {%- endif -%}
        {%- set source = relation -%}
        {%- if '__written_rows__' in where -%}
            {%- set source = lakemix.written_rows_relation(relation) or relation -%}
            {%- set where = where | replace('__written_rows__', 'true') -%}
        {%- endif -%}
        {%- set filtered -%}
            (select * from {{ source }} where {{ where }}) dbt_subquery
        {%- endset -%}
        {% do return(filtered) %}
    {%- else -%}
        {% do return(relation) %}
    {%- endif -%}
{%- endmacro %}
