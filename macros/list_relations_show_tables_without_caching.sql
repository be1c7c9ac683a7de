{#- dbt-spark lists the tables of a schema with `show tables in <schema>` when the schema holds
    Iceberg tables, and fails when the namespace does not exist yet (it only absorbs that error
    for `show table extended`). A namespace that does not exist has no tables. -#}
{% macro list_relations_show_tables_without_caching(schema_relation) %}
    {%- set namespaces = run_query("show namespaces like '" ~ schema_relation.schema ~ "'") -%}
    {%- if namespaces | length == 0 -%}
        {{ return([]) }}
    {%- endif -%}
    {% call statement('list_relations_without_caching', fetch_result=True) -%}
        show tables in {{ schema_relation.schema }} like '*'
    {%- endcall %}
    {{ return(load_result('list_relations_without_caching').table) }}
{% endmacro %}
