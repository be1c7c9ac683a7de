{#- on-run-end: after a passing `dbt build` of the whole project (no --select/--exclude),
    remember the ingests whose rows it tested: later builds test only newer ingests' rows where
    a test says `where: __new_rows__` (macro new_rows_predicate); and the snapshot of each table
    a `where: __written_rows__` test read (macro written_rows_relation). A failed or partial build
    records nothing, so the next build tests those rows again. -#}
{% macro record_tested_ingests(results) %}
    {{- return(adapter.dispatch('record_tested_ingests', 'lakemix')(results)) -}}
{% endmacro %}

{% macro default__record_tested_ingests(results) %}
{% endmacro %}

{% macro duckdb__record_tested_ingests(results) %}
    {%- if execute and flags.WHICH == 'build'
        and not invocation_args_dict.get('select') and not invocation_args_dict.get('exclude') -%}
        {%- set failed = [] -%}
        {%- for result in results -%}
            {%- if result.status in ('error', 'fail', 'runtime error', 'skipped') -%}
                {%- do failed.append(result.node.unique_id) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if not failed -%}
            create table if not exists main.lakemix_tested_ingests (
                ingest_id varchar,
                invocation_id varchar,
                tested_at timestamptz
            );
            insert into main.lakemix_tested_ingests
            select distinct ingest_id, '{{ invocation_id }}', now()
            from raw.documents
            where ingest_id not in (select ingest_id from main.lakemix_tested_ingests);
            {#- and the snapshot of each table a `where: __written_rows__` test read: later
                builds test only the rows written after it (written_rows_relation) #}
            {%- set written = [] -%}
            {%- for result in results
                if result.node.resource_type == 'test'
                and '__written_rows__' in (result.node.config.get('where') or '') -%}
                {%- set model = graph.nodes.get(result.node.attached_node) -%}
                {%- if model is not none and (model.schema ~ '.' ~ model.alias) not in written -%}
                    {%- do written.append(model.schema ~ '.' ~ model.alias) -%}
                {%- endif -%}
            {%- endfor %}
            create table if not exists main.lakemix_tested_snapshots (
                table_name varchar,
                snapshot_id bigint,
                invocation_id varchar,
                tested_at timestamptz
            );
            {%- for name in written %}
            insert into main.lakemix_tested_snapshots
            select * from (
                select '{{ name }}', lakemix_current_snapshot('{{ name }}') as snapshot_id,
                    '{{ invocation_id }}', now()
            ) where snapshot_id is not null;
            {%- endfor -%}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
