{#- Per `key` (language or source_id): raw documents, documents rejected by rules, removed as
    duplicates, and clean documents with their tokens and characters. Shared by dim_languages
    and dim_sources. -#}
{% macro stage_counts(key) -%}
    raw_documents as (
        select {{ key }}, count(*) as raw_document_count
        from {{ ref('int_documents_language_scored') }}
        group by {{ key }}
    ),

    rejections as (
        select
            {{ key }},
            cast(count_if(duplicate_of_document_id is null) as bigint) as rejected_by_rules_count,
            cast(count_if(duplicate_of_document_id is not null) as bigint) as removed_duplicate_count
        from {{ ref('fct_document_rejections') }}
        group by {{ key }}
    ),

    clean as (
        select
            {{ key }},
            count(*) as clean_document_count,
            sum(token_count) as clean_token_count,
            sum(character_count) as clean_character_count
        from {{ ref('fct_clean_documents') }}
        group by {{ key }}
    ),

    stage_counts as (
        select
            raw_documents.{{ key }},
            raw_documents.raw_document_count,
            coalesce(rejections.rejected_by_rules_count, 0) as rejected_by_rules_count,
            coalesce(rejections.removed_duplicate_count, 0) as removed_duplicate_count,
            coalesce(clean.clean_document_count, 0) as clean_document_count,
            cast(coalesce(clean.clean_token_count, 0) as bigint) as clean_token_count,
            cast(coalesce(clean.clean_character_count, 0) as bigint) as clean_character_count
        from raw_documents
        left join rejections
            on raw_documents.{{ key }} = rejections.{{ key }}
        left join clean
            on raw_documents.{{ key }} = clean.{{ key }}
    )
{%- endmacro %}
