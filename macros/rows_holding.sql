{#- The Iceberg model `relation` read from the data files that hold a row whose `key` is in
    the query `keys` alone (found by reading the key column): DuckDB does not push a join's
    keys into a Parquet scan, so taking a few documents' texts out of a model by a join
    decodes every text of it (int_documents_pii_redacted at 1M documents with nothing new to
    redact: 5 s). `relation` itself when the model is not incremental (it reads every row),
    before execution, and on targets without the lakemix plugin (Spark). -#}
{% macro rows_holding(relation, keys, key='document_id') %}
    {{- return(adapter.dispatch('rows_holding', 'lakemix')(relation, keys, key)) -}}
{% endmacro %}

{% macro default__rows_holding(relation, keys, key) %}
    {{- return(relation) -}}
{% endmacro %}

{% macro duckdb__rows_holding(relation, keys, key) %}
    {%- if not execute or not is_incremental() -%}
        {{- return(relation) -}}
    {%- endif -%}
    {%- set scan = run_query(
        "select lakemix_scan('" ~ relation.schema ~ "." ~ relation.identifier ~ "')"
    ).columns[0].values()[0] -%}
    {#- the files holding the keys, and the scan of those files (plugin UDF lakemix_in_files) -#}
    {%- set files = "select coalesce(list(filename order by filename), []::varchar[]) from ("
        ~ "select distinct filename from " ~ scan ~ " semi join (" ~ keys ~ ") as keys using ("
        ~ key ~ "))" -%}
    {{- return(run_query(
        "select lakemix_in_files('" ~ scan | replace("'", "''") ~ "', (" ~ files ~ "))"
    ).columns[0].values()[0]) -}}
{% endmacro %}
