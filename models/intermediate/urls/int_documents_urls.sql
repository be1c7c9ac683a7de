{{ config(incremental=true) }}
{{ lakemix.cache_key({}, udfs=['urls']) }}

{#- One row per document with a URL: what the URL filters read of it (int_documents_url_filtered
    decides each build, against the lists as they are then). The URL normalised (one spelling
    per page: a refetch is found by it), its host, registered domain and block-list key, its
    words and letters, when it was fetched, and the AI-training opt-out the page declares
    (X-Robots-Tag, <meta name="robots">). Incremental: each document once. It reads the raw
    table, not the staging view, which would normalize every text first; the HTML is read for
    pages only. -#}

{%- set raw = source('raw', 'documents') %}
{%- set content_type = lakemix.raw_column(raw, 'content_type', 'string') %}

with

pages as (
    select
        document_id,
        ingest_id,
        url,
        metadata,
        text as html,
        {{ lakemix.raw_column(raw, 'fetched_at', 'timestamptz') }} as fetched_at,
        ingested_at
    from {{ raw }}
    where url is not null
        and {{ content_type }} = 'text/html'
        and {{ lakemix.not_in_this('document_id') }}
        and {{ lakemix.ingests_not_in_this('ingest_id') }}
),

texts as (
    select
        document_id,
        ingest_id,
        url,
        metadata,
        cast(null as string) as html,
        {{ lakemix.raw_column(raw, 'fetched_at', 'timestamptz') }} as fetched_at,
        ingested_at
    from {{ raw }}
    where url is not null
        and ({{ content_type }} is null or {{ content_type }} != 'text/html')
        and {{ lakemix.not_in_this('document_id') }}
        and {{ lakemix.ingests_not_in_this('ingest_id') }}
),

documents as (
    select * from pages
    union all
    select * from texts
),

documents_parsed as (
    select
        document_id,
        ingest_id,
        lakemix_url_parts(url) as parts,
        lakemix_url_words(url) as url_words,
        lakemix_robots_opt_out(html, metadata) as robots_opt_out,
        fetched_at,
        ingested_at
    from documents
),

urls as (
    select
        document_id,
        ingest_id,
        parts.normalized as url_normalized,
        parts.host,
        parts.registered_domain,
        parts.key as url_key,
        parts.letters as url_letters,
        url_words,
        robots_opt_out,
        fetched_at,
        ingested_at
    from documents_parsed
)

select * from urls
