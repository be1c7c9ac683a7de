{#- The type of one failed rule of a document's failed_rules (int_documents_quality_filtered,
    int_documents_url_filtered, fct_document_rejections): a mapping for lakemix.sql_type. -#}
{% macro failure_type() -%}
    {{ return({
        'rule': 'string',
        'family': 'string',
        'signal': 'string',
        'value': 'double',
        'operator': 'string',
        'threshold': 'double',
        'threshold_source': 'string',
    }) }}
{%- endmacro %}
