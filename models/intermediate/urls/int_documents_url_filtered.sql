{#- One row per document that fails a URL rule (family url of var lakemix_filter_families), with
    its failures in the shape of int_documents_quality_filtered's failed_rules, which adds them
    to the document's own: a rule's name, the signal it read (host, registered_domain,
    url_key, url_words, url_letters, robots, url_normalized), the count where it counts, and in
    threshold_source where the decision came from (the block list, the seed, the header).

    - url_blocklist:<category>: the host, the registered domain or the URL is on a list of
      meta.url_blocklists (`lakemix blocklist add`: UT1's lists, a do-not-train list);
    - url_banned_word / url_soft_banned_words / url_banned_subword: seeds/url_banned_words.csv;
    - url_opt_out: the page says noai (X-Robots-Tag or <meta name="robots">);
    - url_fetched_again: a later fetch of the same normalised URL is the one kept (the latest
      fetched_at, then the latest ingest, then the larger document_id).

    A table rebuilt each build from int_documents_urls (computed once per document): a list or
    seed edited since the last build applies to every document, without a full refresh. -#}

{%- set soft_threshold = var('lakemix_url_soft_banned_words') %}

with

urls as (
    select * from {{ ref('int_documents_urls') }}
    where document_id in (select document_id from {{ ref('int_documents_quality_scored') }})
),

banned_words as (
    select * from {{ ref('url_banned_words') }}
),

blocklists as (
    {{ lakemix.rows_or_none(source('meta', 'url_blocklists')) | indent(4) }}
),

word_lists as (
    select
        {{ lakemix.list_agg('word') }} filter (where kind = 'word') as words,
        {{ lakemix.list_agg('word') }} filter (where kind = 'soft') as soft_words,
        {{ lakemix.list_agg('word') }} filter (where kind = 'subword') as subwords
    from banned_words
),

domain_entries as (
    select * from blocklists
    where kind = 'domain'
),

url_entries as (
    select * from blocklists
    where kind = 'url'
),

blocked_hosts as (
    select
        urls.document_id,
        domain_entries.category,
        domain_entries.list_name,
        'host' as signal
    from urls
    inner join domain_entries
        on urls.host = domain_entries.value
),

blocked_domains as (
    select
        urls.document_id,
        domain_entries.category,
        domain_entries.list_name,
        'registered_domain' as signal
    from urls
    inner join domain_entries
        on urls.registered_domain = domain_entries.value
    where urls.registered_domain != urls.host
),

blocked_urls as (
    select
        urls.document_id,
        url_entries.category,
        url_entries.list_name,
        'url_key' as signal
    from urls
    inner join url_entries
        on urls.url_key = url_entries.value
),

blocked as (
    select * from blocked_hosts
    union all
    select * from blocked_domains
    union all
    select * from blocked_urls
),

{#- A document on several lists of one category fails its rule once, naming the first list. -#}
blocklist_failures as (
    select
        document_id,
        concat('url_blocklist:', category) as rule,
        min(signal) as signal,
        cast(null as double) as value,
        'in' as operator,
        cast(null as double) as threshold,
        min(list_name) as threshold_source
    from blocked
    group by document_id, category
),

word_counts as (
    select
        urls.document_id,
        {{ lakemix.list_size(lakemix.list_filter(
            'coalesce(word_lists.words, ' ~ lakemix.list_of([], 'string') ~ ')', 'w',
            lakemix.list_contains('urls.url_words', 'w'),
        )) }} as banned,
        {{ lakemix.list_size(lakemix.list_filter(
            'coalesce(word_lists.soft_words, ' ~ lakemix.list_of([], 'string') ~ ')', 'w',
            lakemix.list_contains('urls.url_words', 'w'),
        )) }} as soft,
        {{ lakemix.list_size(lakemix.list_filter(
            'coalesce(word_lists.subwords, ' ~ lakemix.list_of([], 'string') ~ ')', 'w',
            'instr(urls.url_letters, w) > 0',
        )) }} as subwords
    from urls
    cross join word_lists
    where urls.url_words is not null
),

word_failures as (
    select
        document_id,
        'url_banned_word' as rule,
        'url_words' as signal,
        cast(banned as double) as value,
        '<' as operator,
        cast(1 as double) as threshold,
        'url_banned_words' as threshold_source
    from word_counts
    where banned > 0
    union all
    select
        document_id,
        'url_soft_banned_words' as rule,
        'url_words' as signal,
        cast(soft as double) as value,
        '<' as operator,
        cast({{ soft_threshold }} as double) as threshold,
        'url_banned_words' as threshold_source
    from word_counts
    where soft >= {{ soft_threshold }}
    union all
    select
        document_id,
        'url_banned_subword' as rule,
        'url_letters' as signal,
        cast(subwords as double) as value,
        '<' as operator,
        cast(1 as double) as threshold,
        'url_banned_words' as threshold_source
    from word_counts
    where subwords > 0
),

opt_out_failures as (
    select
        document_id,
        'url_opt_out' as rule,
        'robots' as signal,
        cast(null as double) as value,
        'in' as operator,
        cast(null as double) as threshold,
        robots_opt_out as threshold_source
    from urls
    where robots_opt_out is not null
),

{#- The fetch each normalised URL keeps: aggregates that combine partially (no window over a
    URL's fetches in one task on Spark). -#}
{%- set latest_first = lakemix.struct_pack({
    'fetched_at': 'fetched_at', 'ingested_at': 'ingested_at', 'document_id': 'document_id'
}) %}
refetched_urls as (
    select
        url_normalized,
        max_by(document_id, {{ latest_first }}) as kept_document_id
    from urls
    where url_normalized is not null
    group by url_normalized
    having count(*) > 1
),

refetch_failures as (
    select
        urls.document_id,
        'url_fetched_again' as rule,
        'url_normalized' as signal,
        cast(null as double) as value,
        'latest' as operator,
        cast(null as double) as threshold,
        refetched_urls.kept_document_id as threshold_source
    from urls
    inner join refetched_urls
        on urls.url_normalized = refetched_urls.url_normalized
    where urls.document_id != refetched_urls.kept_document_id
),

failures as (
    select * from blocklist_failures
    union all
    select * from word_failures
    union all
    select * from opt_out_failures
    union all
    select * from refetch_failures
),

documents_failed as (
    select
        document_id,
        {{ lakemix.list_sort(lakemix.list_agg(lakemix.struct_pack({
            'rule': 'rule',
            'family': "'url'",
            'signal': 'signal',
            'value': 'value',
            'operator': 'operator',
            'threshold': 'threshold',
            'threshold_source': 'threshold_source',
        }))) }} as url_failures
    from failures
    {%- if 'url' not in var('lakemix_filter_families') %}
    where false
    {%- endif %}
    group by document_id
)

select * from documents_failed
