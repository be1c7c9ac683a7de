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

    incremental_strategy='sync' (with unique_key, one column): the model selects every row,
    and an incremental run writes only the rows whose hash of columns (but unhashed_columns)
    differs from the table's row of the same key, and deletes by position the changed rows
    and the rows whose key is gone, in one snapshot (lakemix.dbt.sync says when it rebuilds
    whole instead, lakemix.iceberg.row_delta how). The model marks the CTE that drives its
    rows with lakemix.sync_rows(), so that the rows it writes are read alone. Without a
    strategy, an incremental model selects its new rows itself and they are appended.
-#}
{% materialization iceberg, adapter="duckdb" %}
    {%- set target_relation = this.incorporate(type='view') -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set identifier = target_relation.schema ~ '.' ~ target_relation.identifier -%}
    {%- set incremental = is_incremental() -%}
    {%- set strategy = config.get('incremental_strategy') -%}
    {%- if strategy not in (none, 'sync') -%}
        {{ exceptions.raise_compiler_error(
            "model " ~ model.name ~ ": incremental_strategy must be 'sync' or unset (append the "
            ~ "new rows the model selects), not " ~ strategy) }}
    {%- endif -%}
    {%- set sync = lakemix._sync_plan(identifier, incremental)
        if strategy == 'sync' and config.get('incremental', false) else none -%}
    {%- set staged = run_query("select lakemix_staging_location('" ~ identifier ~ "', '" ~ invocation_id ~ "')").columns[0].values()[0] -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {% if existing_relation is not none and existing_relation.type != 'view' %}
        {{ adapter.drop_relation(existing_relation) }}
    {% endif %}
    {% do adapter.create_schema(target_relation) %}

    {#- Parquet has no 128-bit or unsigned 64-bit integer Iceberg can read: DuckDB would write
        HUGEINT (sum, count_if) as DOUBLE without a word, so refuse it here. -#}
    {%- set columns = get_column_schema_from_query(sql) -%}
    {%- for column in columns -%}
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
    {%- set rows_sql = sql -%}
    {%- if sync is not none and sync.sync -%}
        {%- set rows_sql = lakemix._sync_changes(sql, columns, sync) -%}
    {%- endif %}
    {% call statement('main') -%}
        copy ({{ rows_sql }}) to '{{ staged }}' (
            format parquet,
            compression zstd,
            compression_level {{ level }},
            file_size_bytes '512MB',
            row_group_size_bytes '64MB',
            overwrite_or_ignore true
        )
    {%- endcall %}

    {%- set options = {
        'invocation_id': invocation_id,
        'unique_id': model.unique_id,
        'mode': 'append' if incremental and sync is none else 'overwrite',
        'full_refresh': should_full_refresh(),
    } -%}
    {%- if sync is not none and sync.sync -%}
        {%- do options.update({
            'mode': 'sync', 'key': config.get('unique_key'), 'deleted_keys': sync.deleted_keys}) -%}
        {{ lakemix._sync_deleted_keys(sync) }}
    {%- endif %}
    {% do adapter.store_relation('lakemix', target_relation, [], staged, 'parquet', options) %}

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

{#- The plugin's plan for a sync model (lakemix_sync_plan: sync or rebuild whole, and why),
    given the incremental iceberg models it reads; a rebuild of an incremental run says why. -#}
{% macro _sync_plan(identifier, incremental) %}
    {%- set key = config.get('unique_key') -%}
    {%- if key is not string -%}
        {{ exceptions.raise_compiler_error(
            "model " ~ model.name ~ ": incremental_strategy 'sync' needs unique_key, one column") }}
    {%- endif -%}
    {%- set sources = [] -%}
    {%- for node_id in model.depends_on.nodes -%}
        {%- set node = graph.nodes.get(node_id) -%}
        {%- if node and node.resource_type == 'model' and node.config.materialized == 'iceberg'
            and node.config.get('incremental', false) -%}
            {%- do sources.append(node.schema ~ '.' ~ node.alias) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set sql = "select lakemix_sync_plan('" ~ identifier ~ "', '" ~ tojson(sources | sort)
        ~ "', " ~ ('true' if incremental else 'false') ~ ", '" ~ invocation_id ~ "', '"
        ~ local_md5(model.compiled_code) ~ "')" -%}
    {%- set plan = fromjson(run_query(sql).columns[0].values()[0]) -%}
    {%- if incremental and not plan.sync -%}
        {{ log(model.name ~ ": rebuilt whole: " ~ plan.reason, info=true) }}
    {%- endif -%}
    {{ return(plan) }}
{% endmacro %}

{#- The rows of a sync model's `sql` that its table lacks or holds otherwise, by a hash of
    their columns per key (temp tables lakemix_sync_new and lakemix_sync_old, and the keys to
    write and to delete, lakemix_sync_write and lakemix_sync_delete); with the
    table's columns other than the model's, none: rebuild whole (sync.sync set false). -#}
{% macro _sync_changes(sql, columns, sync) %}
    {%- set key = config.get('unique_key') -%}
    {%- set unhashed = config.get('unhashed_columns', []) -%}
    {%- set names = columns | map(attribute='name') | list -%}
    {%- for name in unhashed + [key] if name not in names -%}
        {{ exceptions.raise_compiler_error(
            "model " ~ model.name ~ ": unique_key or unhashed_columns name " ~ name
            ~ ", which the model does not select") }}
    {%- endfor -%}
    {%- set hashed = [] -%}
    {%- for column in columns if column.name not in unhashed -%}
        {%- do hashed.append(adapter.quote(column.name)) -%}
    {%- endfor -%}
    {%- set stored = adapter.get_columns_in_relation(this) -%}
    {%- set before = stored | map(attribute='name') | map('lower') | list -%}
    {%- set types = stored | map(attribute='dtype') | map('lower') | list -%}
    {%- if before != names | map('lower') | list
        or types != columns | map(attribute='dtype') | map('lower') | list -%}
        {{ log(model.name ~ ": rebuilt whole: its columns changed", info=true) }}
        {%- do sync.update({'sync': false}) -%}
        {{ return(sql) }}
    {%- endif -%}
    {% call statement('sync_fingerprints') -%}
        create or replace temp table lakemix_sync_new as
        select {{ key }} as sync_key, hash({{ hashed | join(', ') }}) as sync_fingerprint
        from ({{ sql }}) as model_rows;
        create or replace temp table lakemix_sync_old as
        select {{ key }} as sync_key, hash({{ hashed | join(', ') }}) as sync_fingerprint
        from {{ sync.stored }} as stored_rows;
        create or replace temp table lakemix_sync_write as
        select sync_key from lakemix_sync_new
        anti join lakemix_sync_old using (sync_key, sync_fingerprint);
        create or replace temp table lakemix_sync_delete as
        select sync_key from lakemix_sync_old
        anti join lakemix_sync_new using (sync_key, sync_fingerprint);
    {%- endcall %}
    {%- set written = "(" ~ key ~ " in (select sync_key from lakemix_sync_write))" -%}
    {%- set marker = lakemix.sync_rows() -%}
    {%- if marker in sql -%}
        {{ return(sql.replace(marker, written)) }}
    {%- endif -%}
    {{ return("select * from (" ~ sql ~ ") as model_rows where " ~ written) }}
{% endmacro %}

{#- The keys of the rows a sync deletes (changed or gone) to the file the plugin reads, with
    how many rows the sync writes and deletes in the log. -#}
{% macro _sync_deleted_keys(sync) %}
    {%- set key = config.get('unique_key') -%}
    {% call statement('sync_deleted_keys') -%}
        copy (select sync_key as {{ key }} from lakemix_sync_delete)
        to '{{ sync.deleted_keys }}' (format parquet)
    {%- endcall %}
    {%- set counted = run_query(
        "select (select count(*) from lakemix_sync_write), "
        ~ "(select count(*) from lakemix_sync_delete)").rows[0] -%}
    {{ log(model.name ~ ": synced, " ~ counted[0] ~ " rows written, " ~ counted[1]
        ~ " deleted (changed or gone)", info=true) }}
    {% call statement('sync_drop') -%}
        drop table lakemix_sync_new;
        drop table lakemix_sync_old;
        drop table lakemix_sync_write;
        drop table lakemix_sync_delete
    {%- endcall %}
{% endmacro %}
