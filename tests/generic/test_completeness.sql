{#- Completeness: the share of rows where `column_name` is null stays at or below
    `max_missing_fraction` (default: the completeness objective of var
    lakemix_quality_objectives, else 0.005, i.e. 0.5%). Returns one row when it does not. -#}
{% test completeness(model, column_name, max_missing_fraction=none) %}
    {%- if max_missing_fraction is none -%}
        {%- set declared = (var('lakemix_quality_objectives', {}) or {}).get('completeness') or {} -%}
        {%- set max_missing_fraction = declared.get('max_missing_fraction', 0.005) -%}
    {%- endif %}
    with

    missing as (
        select
            count(*) as row_count,
            count_if({{ column_name }} is null) as missing_count
        from {{ model }}
    )

    select
        row_count,
        missing_count,
        missing_count / row_count as missing_fraction,
        {{ max_missing_fraction }} as max_missing_fraction
    from missing
    where row_count > 0 and missing_count / row_count > {{ max_missing_fraction }}
{% endtest %}
