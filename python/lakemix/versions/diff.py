"""``lakemix diff``: what changed between two releases, per language and source, and why."""

from __future__ import annotations

from typing import Any

from lakemix import duck, tables
from lakemix.catalog import catalog as open_catalog
from lakemix.settings import Settings
from lakemix.versions.refs import scan_at
from lakemix.versions.release import get_release

# Tables whose state at each release explains why a document entered or left the mix.
EXPLAINERS = {
    "documents": tables.LANGUAGE_SCORED,
    "filtered": tables.QUALITY_FILTERED,
    "deduplicated": tables.DEDUPLICATED,
}


def _status_sql(scans: dict[str, str]) -> str:
    """One row per document known at a release: why it is (not) clean there."""
    return f"""
        select
            documents.document_id,
            case
                when not filtered.is_kept then 'filter: ' || array_to_string(
                    list_sort(list_transform(filtered.failed_rules, failed -> failed.rule)), ', ')
                when not deduplicated.is_cluster_kept
                    then 'deduplication: ' || deduplicated.duplicate_kind
                else 'sampling'
            end as status
        from {scans["documents"]} as documents
        left join {scans["filtered"]} as filtered using (document_id)
        left join {scans["deduplicated"]} as deduplicated using (document_id)
    """


def diff(old_tag: str, new_tag: str, *, settings: Settings | None = None) -> list[dict[str, Any]]:
    """Documents and tokens added to and removed from the mix between two releases.

    Returns:
        Rows of ``language``, ``source_id``, ``split`` (train, validation: the loader and
        MLflow's dataset profile count train only), ``change`` (added, removed, repeats), ``reason``
        (new data, filter: <rules>, deduplication: <kind>, sampling, removed from raw),
        ``documents`` and ``tokens`` (token count times repeats), sorted.

    Raises:
        ReleaseError: A tag is not a release.
    """
    settings = settings or Settings.from_env()
    catalog = open_catalog(settings)
    releases = [get_release(tag, settings) for tag in (old_tag, new_tag)]
    scans = []
    for manifest in releases:
        tag = manifest.tag
        named = {"mix": tables.mix_table(manifest.mix), **EXPLAINERS}
        scans.append({key: scan_at(catalog.load_table(name), tag) for key, name in named.items()})
    old, new = scans
    conn = duck.connect(settings=settings)
    rows = conn.execute(
        f"""
        with
        old_mix as (select * from {old["mix"]}),
        new_mix as (select * from {new["mix"]}),
        old_status as ({_status_sql(old)}),
        new_status as ({_status_sql(new)}),
        changes as (
            select
                coalesce(new_mix.language, old_mix.language) as language,
                coalesce(new_mix.source_id, old_mix.source_id) as source_id,
                coalesce(new_mix.split, old_mix.split) as split,
                case
                    when old_mix.document_id is null then 'added'
                    when new_mix.document_id is null then 'removed'
                    else 'repeats'
                end as change,
                case
                    when old_mix.document_id is null
                        then coalesce(old_status.status, 'new data')
                    when new_mix.document_id is null
                        then coalesce(new_status.status, 'removed from raw')
                    else 'sampling'
                end as reason,
                coalesce(new_mix.token_count * new_mix.repeat_count, 0)
                - coalesce(old_mix.token_count * old_mix.repeat_count, 0) as tokens
            from old_mix
            full outer join new_mix using (document_id)
            left join old_status using (document_id)
            left join new_status using (document_id)
            where old_mix.repeat_count is distinct from new_mix.repeat_count
        )
        select language, source_id, split, change, reason, count(*), sum(tokens)
        from changes
        group by all
        order by language, source_id, split, change, reason
        """
    ).fetchall()
    conn.close()
    keys = ("language", "source_id", "split", "change", "reason", "documents", "tokens")
    return [dict(zip(keys, (*r[:6], int(r[6])), strict=True)) for r in rows]
