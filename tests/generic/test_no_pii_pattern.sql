{#- No value of `column_name` still contains an e-mail address or an IPv4 address (the
    patterns lakemix's PII redaction removes). -#}
{% test no_pii_pattern(model, column_name) %}
    select {{ column_name }}
    from {{ model }}
    where
        {{ lakemix.regexp_matches(column_name, lakemix.pii_pattern("email")) }}
        or {{ lakemix.regexp_matches(column_name, lakemix.pii_pattern("ipv4")) }}
{% endtest %}
