{#- dbt-duckdb's seed loader, reading the CSV under the project as this run sees it. dbt-duckdb
    takes the seed's folder from the parsed node, and partial parsing keeps that from the run
    that parsed the project: once the checkout is moved or renamed (target/ with it), every seed
    failed with "No files found that match the pattern <old path>" (dbt-core fixed its own loader
    the same way, dbt-core#8762). Everything else is as dbt-duckdb 1.11 loads seeds. -#}
{% macro duckdb__load_csv_rows(model, agate_table) %}
    {%- if not config.get('fast', true) -%}
        {{ return(dbt_duckdb.duckdb__load_csv_rows(model, agate_table)) }}
    {%- endif -%}
    {%- if model.package_name == project_name -%}
        {%- set path = invocation_args_dict['project_dir'] ~ '/' ~ model.original_file_path -%}
    {%- else -%}
        {%- set path = adapter.get_seed_file_path(model) -%}
    {%- endif -%}
    {%- set sql -%}
        copy {{ this.render() }} from '{{ path | replace("'", "''") }}'
        (format csv, header true, delimiter '{{ config.get('delimiter', ',') }}')
    {%- endset -%}
    {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
    {{ return(sql) }}
{% endmacro %}
