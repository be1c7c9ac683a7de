{#- dbt-spark's seed loader with string values escaped and empty values NULL. Its session
    connection puts each value between single quotes without escaping, so a seed value with a
    quote (the stop words d', l', 'r) breaks the insert; values are escaped for Spark SQL
    literals (backslash, quote) before they are bound. And it binds an empty value (None) as the
    string 'None': an empty field is written as NULL instead, as DuckDB loads it (a string column
    such as language_configs.fineweb2_config would otherwise hold 'None'). Everything else is as
    dbt-spark 1.11 loads seeds. -#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set bindings = [] -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for column_name in agate_table.column_names -%}
                    {%- set inferred_type = adapter.convert_type(agate_table, loop.index0) -%}
                    {%- set value = row[loop.index0] -%}
                    {%- if value is none -%}
                        cast(null as {{ column_override.get(column_name, inferred_type) }})
                    {%- else -%}
                        {%- if value is string -%}
                            {%- do bindings.append(value | replace('\\', '\\\\') | replace("'", "\\'")) -%}
                        {%- else -%}
                            {%- do bindings.append(value) -%}
                        {%- endif -%}
                        cast({{ get_binding_char() }} as {{ column_override.get(column_name, inferred_type) }})
                    {%- endif -%}
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%})
                {%- if not loop.last %},{% endif %}
            {% endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, bindings=bindings, abridge_sql_log=True) -%}
        {%- if loop.first -%}
            {%- do statements.append(sql) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(statements[0]) }}
{% endmacro %}
