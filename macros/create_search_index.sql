{#- post-hook of search_documents: DuckDB's BM25 full-text index over `relation`'s text, and
    the table macro search.match_documents(query_text) that ranks documents by it.
    Words are runs of Unicode letters and digits (fts's default keeps only a-z), lower-cased,
    accents stripped, stemmed with var lakemix_search_stemmer. -#}
{% macro create_search_index(relation) -%}
    {%- set stemmer = var('lakemix_search_stemmer', 'none') -%}
    {%- set index_schema = 'fts_' ~ relation.schema ~ '_' ~ relation.identifier -%}
    pragma create_fts_index(
        '{{ relation.schema }}.{{ relation.identifier }}', 'document_id', 'text',
        stemmer = '{{ stemmer }}', stopwords = 'none', ignore = '[^\p{L}\p{N}]+',
        strip_accents = 1, lower = 1, overwrite = 1
    );
    create or replace macro {{ relation.schema }}.match_documents(query_text) as table
        select * from (
            select
                {{ index_schema }}.match_bm25(document_id, query_text) as score,
                *
            from {{ relation }}
        )
        where score is not null
        order by score desc, document_id
{%- endmacro %}
