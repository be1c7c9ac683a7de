{#- The columns of a table lakemix writes outside dbt only once a user asks for it, as
    lakemix.rows_or_none takes them (name to a type of lakemix.sql_type). -#}
{% macro meta_columns(table) -%}
    {%- set columns = {
        'url_blocklists': {
            'list_name': 'string',
            'category': 'string',
            'kind': 'string',
            'value': 'string',
            'added_at': 'timestamptz',
        },
        'benchmarks': {
            'benchmark': 'string',
            'item_id': 'string',
            'text': 'string',
            'file': 'string',
            'file_sha256': 'string',
            'added_at': 'timestamptz',
        },
    } -%}
    {{ return(columns[table]) }}
{%- endmacro %}
