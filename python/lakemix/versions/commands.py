"""CLI commands for released versions: release, versions, show, diff, rebuild, sql --at, gc,
verify, relocate."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from lakemix.report import table
from lakemix.writer import wait_option, writer

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest


def _measured(result: dict[str, Any] | None) -> str:
    if result is None:
        return "-"
    from lakemix.objectives.evaluate import NOT_MEASURED, outcome

    if outcome(result) == NOT_MEASURED:
        return NOT_MEASURED
    value = "-" if result["measured"] is None else f"{result['measured']:.4g}"
    return f"{value} {outcome(result)}"


def _objectives(manifest: Manifest) -> dict[tuple[str, str], dict[str, Any]]:
    """Results by (objective, name); releases made before objectives existed have none."""
    results = manifest.objectives.get("results", [])
    return {(r["objective"], r["name"]): r for r in results}


@click.command("release")
@click.argument("mix")
@click.option("--tag", required=True, help="Name of the release (letters, digits, . _ -).")
@click.option(
    "--accept-unvalidated",
    "reason",
    metavar="REASON",
    help="Release although manual validation falls short of its objective; the manifest keeps"
    " REASON.",
)
@wait_option
def release_command(mix: str, tag: str, reason: str | None, wait: float) -> None:
    """Tag every table MIX depends on and record its manifest (needs a passing dbt build and
    the quality objectives of severity error met)."""
    from lakemix.settings import Settings
    from lakemix.tables import RELEASES
    from lakemix.versions.release import release, releases_directory

    with writer(f"lakemix release {mix}", wait=wait):
        manifest = release(mix, tag, accept_unvalidated=reason)
    click.echo(
        f"released {mix} as {tag}: {len(manifest.snapshots)} tables tagged, "
        f"checksum {manifest.checksum}"
    )
    click.echo(f"manifest: {RELEASES} and {releases_directory(Settings.from_env()) / tag}.json")
    objectives = manifest.objectives
    if objectives.get("results"):
        from lakemix.objectives.evaluate import summary

        click.echo(f"quality objectives: {summary(objectives['results'])} (`lakemix show {tag}`)")
    if objectives.get("accepted_unvalidated"):
        reason = objectives["accepted_unvalidated"]
        click.echo(
            f"not validated by reviewers (--accept-unvalidated: {reason}); to review it: "
            f"lakemix review sample --mix {mix} "
            f"--n {objectives.get('verdicts_needed', 0)}, then lakemix review label --csv FILE"
        )


@click.command("versions")
def versions_command() -> None:
    """List the releases, oldest first."""
    from lakemix.versions.release import list_releases

    rows = [
        (
            m.tag,
            m.mix,
            m.released_at[:19],
            sum(s.tokens for s in m.stats),
            m.git.commit[:12] + ("+dirty" if m.git.dirty else ""),
            m.checksum,
        )
        for m in list_releases()
    ]
    if not rows:
        click.echo("no releases yet: lakemix release MIX --tag NAME")
        return
    table(rows, ("tag", "mix", "released at (UTC)", "tokens", "git", "checksum"), sys.stdout)


@click.command("show")
@click.argument("tag")
def show_command(tag: str) -> None:
    """Print the manifest of release TAG: snapshots, config, versions, tokens per language."""
    from lakemix.versions.release import get_release

    m = get_release(tag)
    click.echo(f"release {m.tag} of mix {m.mix}, {m.released_at}")
    click.echo(f"checksum {m.checksum}; config {m.config_hash[:16]}")
    click.echo(f"git {m.git.commit}{' (dirty)' if m.git.dirty else ''}")
    click.echo(f"dbt invocation {m.dbt_invocation_id}")
    click.echo("versions: " + ", ".join(f"{k} {v}" for k, v in m.versions.items()))
    click.echo("vars: " + ", ".join(f"{k}={v}" for k, v in sorted(m.vars.items())))
    if m.quality_model:
        q = m.quality_model
        trained = q.get("trained") or {}
        by = trained.get("trained_by", "a file that has changed since the build")
        click.echo(f"quality model: {q.get('name')} sha256 {q.get('sha256')}, trained by {by}")
    click.echo("")
    snapshots = [(name, str(e.snapshot_id)) for name, e in m.snapshots.items()]
    table(snapshots, ("table", "snapshot"), sys.stdout)
    click.echo("")
    stats = [(s.language, s.split, s.documents, s.samples, s.tokens) for s in m.stats]
    table(stats, ("language", "split", "documents", "samples", "tokens"), sys.stdout)
    objectives = _objectives(m)
    if objectives:
        click.echo("")
        rows = [(*key, r["target"], _measured(r)) for key, r in objectives.items()]
        table(rows, ("objective", "name", "target", "measured"), sys.stdout)
        reason = m.objectives.get("accepted_unvalidated")
        if reason:
            click.echo(f"released with --accept-unvalidated: {reason}")


@click.command("diff")
@click.argument("old_tag")
@click.argument("new_tag")
def diff_command(old_tag: str, new_tag: str) -> None:
    """Documents and tokens added and removed between two releases, and why."""
    from lakemix.versions.diff import diff

    print_diff(diff(old_tag, new_tag), old_tag, new_tag)


def print_diff(rows: list[dict[str, Any]], old_tag: str, new_tag: str) -> None:
    """Print ``diff`` rows as ``lakemix diff`` does: the releases' objectives, a table of the
    changes, then totals per change."""
    from lakemix.versions.release import get_release

    old, new = _objectives(get_release(old_tag)), _objectives(get_release(new_tag))
    if old or new:
        objective_cells = [
            (
                *key,
                (new.get(key) or old[key])["target"],
                _measured(old.get(key)),
                _measured(new.get(key)),
            )
            for key in sorted(old.keys() | new.keys())
        ]
        table(objective_cells, ("objective", "name", "target", old_tag, new_tag), sys.stdout)
        click.echo("")
    if not rows:
        click.echo(f"{old_tag} and {new_tag} hold the same documents with the same repeats")
        return
    keys = ("language", "source_id", "split", "change", "reason", "documents", "tokens")
    cells = [tuple(r[k] for k in keys) for r in rows]
    header = ("language", "source", "split", "change", "reason", "documents", "tokens")
    table(cells, header, sys.stdout)
    for change in ("added", "removed", "repeats"):
        picked = [r for r in rows if r["change"] == change]
        if picked:
            docs = sum(r["documents"] for r in picked)
            tokens = sum(r["tokens"] for r in picked)
            splits = sorted({r["split"] for r in picked})
            parts = ", ".join(
                f"{split} {sum(r['documents'] for r in picked if r['split'] == split):,} / "
                f"{sum(r['tokens'] for r in picked if r['split'] == split):+,}"
                for split in splits
            )
            click.echo(f"{change}: {docs:,} documents, {tokens:+,} tokens ({parts})")


@click.command("rebuild")
@click.argument("tag")
@click.option("--keep", is_flag=True, help="Keep the scratch lakehouse even when it matches.")
def rebuild_command(tag: str, keep: bool) -> None:
    """Re-materialize release TAG from its raw snapshot and config; verify its checksum."""
    from lakemix.versions.rebuild import rebuild

    result = rebuild(tag, keep=keep)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if not result.is_identical:
        raise click.ClickException(
            f"rebuild of {tag} differs: checksum {result.checksum}, released {result.expected}; "
            f"the rebuilt lakehouse is kept in {result.directory}"
        )
    click.echo(f"rebuilt {tag}: checksum {result.checksum} is identical to the release")


@click.command("sql")
@click.argument("query")
@click.option("--at", "version", help="Tag, snapshot id or ISO timestamp (default: current).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json", "jsonl"]),
    default="table",
    show_default=True,
    help="table: aligned text for people; csv, json (one array) or jsonl: every row, for scripts.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    help="Rows to print (default: 50 for --format table, all for the others).",
)
def sql_command(query: str, version: str | None, fmt: str, limit: int | None) -> None:
    """Run a read-only SQL QUERY over every table as it was at a version (time travel)."""
    import duckdb

    from lakemix.settings import Settings
    from lakemix.versions.refs import connect_at
    from lakemix.versions.sql import check_read_only, confine, write_rows

    settings = Settings.from_env()
    conn = connect_at(version, settings=settings)
    try:
        check_read_only(conn, query)
        confine(conn, settings)
        result = conn.execute(query)
        if fmt == "table":
            header = [d[0] for d in result.description or []]
            table(result.fetchmany(50 if limit is None else limit), header, sys.stdout)
        else:
            write_rows(result, fmt, sys.stdout, limit=limit)
    except duckdb.Error as exc:
        from lakemix.iceberg.missing import describe

        missing = describe(exc)  # a lost table file: the table, the file and `lakemix verify`
        raise click.ClickException(str(missing or f"{type(exc).__name__}: {exc}")) from None
    finally:
        conn.close()


@click.command("gc")
@click.option(
    "--grace",
    default=3600.0,
    show_default=True,
    help="Seconds: newer unreferenced files may belong to a running job and are kept.",
)
@wait_option
def gc_command(grace: float, wait: float) -> None:
    """Expire snapshots no release tag references and delete files nothing reads."""
    from lakemix.versions.gc import gc

    with writer("lakemix gc", wait=wait):
        result = gc(grace_seconds=grace)
    ghosts = result.removed_tags
    click.echo(
        f"expired {result.expired_snapshots:,} snapshots; deleted {result.deleted_files:,} "
        f"files ({result.deleted_bytes / 1e6:,.1f} MB)"
        + (f"; removed {ghosts:,} tags of unfinished releases" if ghosts else "")
    )


@click.command("relocate")
@click.option(
    "--from",
    "old_root",
    metavar="WAREHOUSE",
    help="The original's warehouse (file:///... or s3://...); inferred from the copy if omitted.",
)
@wait_option
def relocate_command(old_root: str | None, wait: float) -> None:
    """Point a copied or moved lakehouse at its own files: rewrite every table (and the release
    manifests) from the original's warehouse to this one. Run again to finish a killed run."""
    from lakemix.versions.relocate import relocate

    with writer("lakemix relocate", wait=wait):
        result = relocate(old_root=old_root, progress=click.echo)
    if not result.tables:
        click.echo(f"every table is already under {result.new_root}: nothing to relocate")
        return
    click.echo(
        f"relocated {result.tables:,} tables ({result.files:,} files) from {result.old_root} "
        f"to {result.new_root}; the original is untouched (`lakemix gc` drops the copy's "
        "superseded metadata)"
    )


@click.command("recover-metadata")
@click.argument("table")
@wait_option
def recover_metadata_command(table: str, wait: float) -> None:
    """Point TABLE (schema.table), whose current metadata file is lost or damaged, at its newest
    older metadata file that reads; the commits after it are dropped from the table."""
    from lakemix.catalog import catalog
    from lakemix.iceberg.recover import recover_table
    from lakemix.iceberg.views import metadata_locations
    from lakemix.settings import Settings
    from lakemix.tables import RAW, split

    settings = Settings.from_env()
    cat = catalog(settings)
    schema, name = split(table)
    current = metadata_locations(cat).get((schema, name))
    if current is None:
        raise click.UsageError(f"no table {table!r} in the catalog (`lakemix tables` lists raw)")
    with writer(f"lakemix recover-metadata {table}", wait=wait):
        done = recover_table(cat, table, current, settings.s3)
    then = (
        "ingests committed since are forgotten: ingest their files again (`lakemix ingests`)"
        if schema == RAW
        else f"rebuild it: `dbt build --full-refresh --select {name}+`"
    )
    click.echo(
        f"{table}: now at {done.restored} ({done.lost_commits} commit(s) after it dropped); {then}"
    )


@click.command("verify")
@click.option("--tag", help="Check the snapshots release TAG pinned (instead of the current ones).")
@click.option("--all-tags", is_flag=True, help="Check the current snapshots and every tag's.")
@click.option("--deep", is_flag=True, help="Also read every row group and count its rows.")
def verify_command(tag: str | None, all_tags: bool, deep: bool) -> None:
    """Check that every data and delete file the catalog references exists, has its recorded
    size and reads; print what is wrong per table and how to repair it (exit 1 if anything)."""
    from lakemix.versions.verify import format_reports, verify

    if tag is not None and all_tags:
        raise click.UsageError("give --tag TAG or --all-tags, not both")
    reports = verify(tag=tag, all_tags=all_tags, deep=deep)
    click.echo(format_reports(reports))
    if any(not r.ok for r in reports):
        sys.exit(1)
