{#-
    materialized='iceberg': the model's rows become the new snapshot of the Iceberg table
    <schema>.<alias>, committed through pyiceberg by the lakemix plugin; DuckDB then reads it
    in place through a view over iceberg_scan.

    1. COPY the model's rows to Parquet files where the plugin says (lakemix_staging_location):
       a staging folder under LAKEMIX_HOME on a local warehouse, the table's own data folder on
       an object store (no rename there: the files are written once, at their final keys).
    2. The plugin moves them into the table's data folder (local) and commits them as one
       snapshot with add_files (overwrite, or append for incremental runs), with the dbt
       invocation id, the model and the git commit in the snapshot properties.
    3. The view <schema>.<alias> is pointed at the new metadata file.
-#}
{% materialization iceberg, adapter="duckdb" %}
    {%- set target_relation = this.incorporate(type='view') -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set identifier = target_relation.schema ~ '.' ~ target_relation.identifier -%}
    {%- set incremental = is_incremental() -%}
    {%- set staged = run_query("select lakemix_staging_location('" ~ identifier ~ "', '" ~ invocation_id ~ "')").columns[0].values()[0] -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {% if existing_relation is not none and existing_relation.type != 'view' %}
        {{ adapter.drop_relation(existing_relation) }}
    {% endif %}
    {% do adapter.create_schema(target_relation) %}

    {#- Parquet has no 128-bit or unsigned 64-bit integer Iceberg can read: DuckDB would write
        HUGEINT (sum, count_if) as DOUBLE without a word, so refuse it here. -#}
    {%- for column in get_column_schema_from_query(sql) -%}
        {%- if column.dtype | upper in ('HUGEINT', 'UHUGEINT', 'UBIGINT') -%}
            {{ exceptions.raise_compiler_error(
                "model " ~ model.name ~ ": column " ~ column.name ~ " is " ~ column.dtype
                ~ ", which Iceberg cannot store; cast it (e.g. cast(count_if(...) as bigint))") }}
        {%- endif -%}
    {%- endfor %}

    {#- The model's config compression_level (zstd; DuckDB's default 3 unless set). -#}
    {%- set level = config.get('compression_level', 3) -%}
    {%- if level is not number or level is boolean or level < 1 or level > 22 -%}
        {{ exceptions.raise_compiler_error(
            "model " ~ model.name ~ ": compression_level must be a zstd level from 1 to 22, not "
            ~ level) }}
    {%- endif %}
    {% call statement('main') -%}
        copy ({{ sql }}) to '{{ staged }}' (
            format parquet,
            compression zstd,
            compression_level {{ level }},
            file_size_bytes '512MB',
            row_group_size_bytes '64MB',
            overwrite_or_ignore true
        )
    {%- endcall %}

    {% do adapter.store_relation('lakemix', target_relation, [], staged, 'parquet', {
        'invocation_id': invocation_id,
        'unique_id': model.unique_id,
        'mode': 'append' if incremental else 'overwrite',
        'full_refresh': should_full_refresh(),
    }) %}

    {%- set location = run_query("select lakemix_metadata_location('" ~ identifier ~ "')").columns[0].values()[0] -%}
    {% call statement('view') -%}
        create or replace view {{ target_relation }} as
        select * from iceberg_scan('{{ location }}')
    {%- endcall %}

    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {% do persist_docs(target_relation, model) %}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
