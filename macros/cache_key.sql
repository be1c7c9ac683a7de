{#- In an incremental model: the settings its rows are computed with (a dict of vars) and the
    lakemix UDFs whose definitions they depend on. The plugin records them with the rows a run
    commits, and refuses an incremental run whose settings differ from those of the rows
    already stored (the result would no longer equal a full rebuild): the way out it names is
    a --full-refresh. Renders nothing. -#}
{% macro cache_key(settings, udfs=[]) -%}
    {{ return(adapter.dispatch('cache_key', 'lakemix')(settings, udfs)) }}
{%- endmacro %}

{% macro default__cache_key(settings, udfs) -%}
{%- endmacro %}

{% macro duckdb__cache_key(settings, udfs) -%}
    {%- if execute -%}
        {%- set spec = tojson({'settings': settings, 'udfs': udfs}) | replace("'", "''") -%}
        {%- set sql = "select lakemix_cache_key('" ~ this.schema ~ "." ~ this.identifier
            ~ "', '" ~ spec ~ "', " ~ ('true' if is_incremental() else 'false') ~ ")" -%}
        {%- do run_query(sql) -%}
    {%- endif -%}
{%- endmacro %}
