{#- The column names of `relation` except `exclude`, read from the warehouse when
    dbt executes; an empty list while it only parses. -#}
{% macro column_names(relation, exclude=[]) -%}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set found = namespace(relation=relation) -%}
    {%- set identifier = relation.identifier | string -%}
    {%- if identifier.startswith('__dbt__cte__') -%}
        {#- In a dbt unit test the ref is the fixture's CTE, with the model's columns; the
            test has no graph to look the model up in, so its layer's schemas are tried. -#}
        {%- for schema in ['intermediate', 'marts', 'staging'] if found.relation.identifier == identifier -%}
            {%- set model = adapter.get_relation(
                database=target.database, schema=schema, identifier=identifier[12:]) -%}
            {%- if model is not none -%}
                {%- set found.relation = model -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set names = [] -%}
    {%- for column in adapter.get_columns_in_relation(found.relation) -%}
        {%- if column.name | lower not in exclude -%}
            {%- do names.append(column.name) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(names) }}
{%- endmacro %}
