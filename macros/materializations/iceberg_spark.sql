{#-
    materialized='iceberg' on Spark: the model's rows become the new snapshot of the Iceberg
    table <schema>.<alias> in the lakehouse catalog (Spark's default catalog, the same tables
    DuckDB writes): CREATE OR REPLACE TABLE ... USING iceberg keeps the table and its history
    and commits one snapshot; incremental runs INSERT their new rows as one snapshot. A model
    of incremental_strategy='sync' (it selects every row) is replaced whole on Spark.
-#}
{% materialization iceberg, adapter="spark" %}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set incremental = is_incremental() and config.get('incremental_strategy') != 'sync' -%}

    {{ run_hooks(pre_hooks) }}
    {% do adapter.create_schema(target_relation) %}

    {% call statement('main') -%}
        {%- if incremental %}
        insert into {{ target_relation }}
        {{ sql }}
        {%- else %}
        create or replace table {{ target_relation }}
        using iceberg
        as
        {{ sql }}
        {%- endif %}
    {%- endcall %}

    {{ run_hooks(post_hooks) }}
    {% do persist_docs(target_relation, model) %}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
