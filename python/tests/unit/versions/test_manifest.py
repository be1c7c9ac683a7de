"""The release manifest is parsed once into typed fields, written back byte for byte, and a
malformed or foreign one fails naming the key and where it was read."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from lakemix.loader.store import built_manifest
from lakemix.settings import Settings
from lakemix.versions.manifest import (
    GitState,
    ManifestError,
    PinnedTable,
    SplitStats,
    parse_manifest,
)


def document() -> dict[str, Any]:
    """A manifest as ``lakemix release`` writes it (keys in its order)."""
    return {
        "tag": "v1",
        "mix": "demo",
        "released_at": "2026-12-05T02:00:00.123456+00:00",
        "checksum": "42-00000000000000ff0000000000000001",
        "snapshots": {
            "marts.fct_clean_documents": {
                "snapshot_id": 7,
                "metadata_location": "/w/marts/fct/metadata/00001.metadata.json",
                "dbt_invocation_id": "abc",
            },
            "raw.documents": {
                "snapshot_id": 3,
                "metadata_location": "/w/raw/documents/metadata/00003.metadata.json",
                "dbt_invocation_id": None,
            },
        },
        "git": {"commit": "0123456789abcdef", "dirty": True},
        "dbt_invocation_id": "abc",
        "vars": {"lakemix_tokenizer": "o200k", "lakemix_filter_families": ["gopher"]},
        "config_hash": "ff" * 32,
        "config_files": {"mixes/demo.yml": "name: demo\n"},
        "versions": {"lakemix": "0.1.0", "duckdb": "1.5.5"},
        "stats": [
            {"language": "de", "split": "train", "documents": 2, "samples": 3, "tokens": 30},
            {"language": "en", "split": "train", "documents": 5, "samples": 5, "tokens": 50},
            {"language": "en", "split": "validation", "documents": 1, "samples": 1, "tokens": 9},
        ],
        "objectives": {"results": [], "accepted_unvalidated": None},
        "from_a_newer_lakemix": {"kept": True},
    }


def test_every_field_is_typed() -> None:
    manifest = parse_manifest(document(), "test")
    assert (manifest.tag, manifest.mix, manifest.checksum) == ("v1", "demo", document()["checksum"])
    assert manifest.snapshots["raw.documents"] == PinnedTable(
        3, "/w/raw/documents/metadata/00003.metadata.json", None
    )
    assert manifest.pinned("marts.fct_clean_documents").snapshot_id == 7
    assert manifest.git == GitState("0123456789abcdef", True)
    assert manifest.tokenizer == "o200k"
    assert manifest.split_stats("train") == [
        SplitStats("de", "train", 2, 3, 30),
        SplitStats("en", "train", 5, 5, 50),
    ]
    assert manifest.config_files == {"mixes/demo.yml": "name: demo\n"}
    assert manifest.versions["duckdb"] == "1.5.5"
    with pytest.raises(dataclasses.FrozenInstanceError):
        manifest.tag = "v2"  # type: ignore[misc]


def test_the_json_is_written_back_unchanged() -> None:
    written = orjson.dumps(document(), option=orjson.OPT_INDENT_2)
    manifest = parse_manifest(orjson.loads(written), "test")
    assert orjson.dumps(manifest.to_json(), option=orjson.OPT_INDENT_2) == written
    assert manifest.to_json()["from_a_newer_lakemix"] == {"kept": True}  # nothing lost


def test_a_release_made_before_the_later_keys_parses_with_defaults() -> None:
    old = {k: document()[k] for k in ("tag", "mix", "released_at", "checksum", "snapshots")}
    manifest = parse_manifest(old, "test")
    assert manifest.stats == () and manifest.objectives == {} and manifest.vars == {}
    assert manifest.git == GitState("", False) and manifest.config_hash == ""
    assert manifest.tokenizer is None


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d.pop("checksum"), "has no 'checksum'"),
        (lambda d: d.update(tag=None), "has no 'tag'"),
        (lambda d: d.update(mix=3), "has 'mix' as int, not a string"),
        (lambda d: d.update(snapshots=[]), "has 'snapshots' as list, not an object"),
        (
            lambda d: d["snapshots"]["raw.documents"].pop("snapshot_id"),
            "has no 'snapshots[raw.documents].snapshot_id'",
        ),
        (
            lambda d: d["snapshots"]["raw.documents"].update(snapshot_id="3"),
            "has 'snapshots[raw.documents].snapshot_id' as str, not an integer",
        ),
        (lambda d: d["stats"][1].pop("tokens"), "has no 'stats[1].tokens'"),
        (lambda d: d.update(stats={}), "has 'stats' as dict, not a list"),
    ],
)
def test_a_malformed_manifest_names_the_key_and_the_source(edit: Any, expected: str) -> None:
    broken = document()
    edit(broken)
    with pytest.raises(ManifestError) as caught:
        parse_manifest(broken, "/lake/releases/v1.json")
    message = str(caught.value)
    assert message.startswith("/lake/releases/v1.json: the manifest")
    assert expected in message, message
    assert "release the mix again" in message


def test_what_is_not_an_object_is_refused() -> None:
    with pytest.raises(ManifestError, match=re.escape("x.json: a release manifest is a JSON")):
        parse_manifest([1, 2], "x.json")


def test_a_table_the_release_does_not_pin_is_named() -> None:
    manifest = parse_manifest(document(), "test")
    with pytest.raises(ManifestError, match=re.escape("pins no snapshot of marts.mix_demo")):
        manifest.pinned("marts.mix_demo")


def test_the_loader_names_the_json_copy_it_cannot_read(tmp_path: Path) -> None:
    settings = Settings.from_env({"LAKEMIX_HOME": str(tmp_path)})
    releases = tmp_path / "releases"
    releases.mkdir()
    broken = document()
    del broken["released_at"]
    (releases / "v1.json").write_bytes(orjson.dumps(broken))
    with pytest.raises(ManifestError, match=re.escape(f"{releases / 'v1.json'}: the manifest")):
        built_manifest("v1", settings)
