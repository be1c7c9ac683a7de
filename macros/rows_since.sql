{#- In an incremental model's FROM clause: the rows of the Iceberg model `relation` that this
    model has not read yet, found by snapshot, not by reading every row: the data files added
    since the snapshot of `relation` its last run read (the plugin records it with the rows
    the run commits), or every row on a first run, a full refresh, or when those files cannot
    be told.

    With `unique_key` (a column of `relation` that this model keeps), exactly the rows whose
    key this model lacks: when the files hold only rows appended since (the usual case), they
    are read as they are, without scanning this model's own table; otherwise (the source was
    rebuilt, or the files cannot be told) through an anti-join on the key against this model.
    Without it, a superset of the new rows: keep the model's own anti-join. -#}
{% macro rows_since(relation, unique_key=none) -%}
    {{ return(adapter.dispatch('rows_since', 'lakemix')(relation, unique_key)) }}
{%- endmacro %}

{#- Spark: every row, anti-joined on the key in an incremental run. -#}
{% macro default__rows_since(relation, unique_key=none) -%}
    {{ lakemix._unread(relation, unique_key) }}
{%- endmacro %}

{% macro duckdb__rows_since(relation, unique_key=none) -%}
    {%- if execute -%}
        {%- set sql = "select lakemix_rows_since('" ~ relation.schema ~ "." ~ relation.identifier
            ~ "', '" ~ this.schema ~ "." ~ this.identifier ~ "', "
            ~ ('true' if is_incremental() else 'false') ~ ")" -%}
        {%- set rows = fromjson(run_query(sql).columns[0].values()[0]) -%}
        {%- if not rows.sql -%}
            {{- lakemix._unread(relation, unique_key) -}}
        {%- elif rows.exact -%}
            {{- rows.sql -}}
        {%- else -%}
            {{- lakemix._unread(rows.sql, unique_key) -}}
        {%- endif -%}
    {%- else -%}
        {{ lakemix._unread(relation, unique_key) }}
    {%- endif -%}
{%- endmacro %}

{#- `rows` without the keys this model already has (incremental runs with a `unique_key`). -#}
{% macro _unread(rows, unique_key) -%}
    {%- if unique_key and is_incremental() -%}
        (
            select * from {{ rows }}
            where {{ lakemix.not_in_this(unique_key) }}
        ) as unread
    {%- else -%}
        {{ rows }}
    {%- endif -%}
{%- endmacro %}
