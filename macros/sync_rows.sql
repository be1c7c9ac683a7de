{#- In a model of incremental_strategy 'sync', in the WHERE of the CTE that drives its rows
    (one row per unique_key, joined to the rest): true when the model's rows are hashed, and
    the keys of the rows to write when the materialization writes them, so that the joins
    read only those rows (on a 1M-document lakehouse, writing 77,000 of the clean mart's rows
    took 5.7 s so, 22.7 s with the keys joined to the whole query). -#}
{% macro sync_rows() -%}
    (true /* lakemix_sync_rows */)
{%- endmacro %}
