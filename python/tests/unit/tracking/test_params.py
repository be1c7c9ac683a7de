"""What a tracked run logs of its release: params, tags, digest, dataset source."""

from __future__ import annotations

import orjson
import pytest

from lakemix.tracking.params import MAX_VALUE, flatten, release_params
from lakemix.versions.manifest import parse_manifest

MANIFEST = {
    "tag": "v1",
    "mix": "demo",
    "released_at": "2026-12-05T00:00:00+00:00",
    "snapshots": {},
    "checksum": "123456-0123456789abcdef0123456789abcdef",
    "config_hash": "ab" * 32,
    "config_files": {
        "mixes/demo.yml": "name: demo\ndescription: long words\nstrategy:\n  kind: unimax\n"
        "  max_epochs: 4\nlanguages: [en, de]\n",
        "mixes/other.yml": "name: other\n",
    },
    "vars": {"lakemix_filter_families": ["language", "c4"], "lakemix_minhash_bands": 14},
}


def test_params_name_the_mix_filter_and_release_settings() -> None:
    params = release_params(parse_manifest(MANIFEST, "test"))
    assert params == {
        "release.tag": "v1",
        "release.mix": "demo",
        "release.checksum": MANIFEST["checksum"],
        "release.config_hash": "ab" * 32,
        "mix.name": "demo",
        "mix.strategy.kind": "unimax",
        "mix.strategy.max_epochs": "4",
        "mix.languages": '["en","de"]',
        "vars.lakemix_filter_families": '["language","c4"]',
        "vars.lakemix_minhash_bands": "14",
    }


def test_params_name_the_quality_model_a_release_recorded() -> None:
    manifest = {**MANIFEST, "quality_model": {"name": "default", "sha256": "cd" * 32}}
    assert release_params(parse_manifest(manifest, "test"))["release.quality_model"] == "cd" * 32


def test_a_long_value_is_cut_to_mlflows_limit() -> None:
    assert len(flatten("x", "a" * (MAX_VALUE + 10))["x"]) == MAX_VALUE


def test_the_digest_fits_mlflow_and_the_source_round_trips() -> None:
    from lakemix.tracking.dataset import ReleaseSource, digest_of

    digest = digest_of(MANIFEST["checksum"])
    assert digest == "0123456789abcdef0123456789abcdef" and len(digest) <= 36
    source = ReleaseSource(tag="v1", mix="demo", checksum=MANIFEST["checksum"])
    assert ReleaseSource.from_json(source.to_json()).to_dict() == source.to_dict()
    assert orjson.loads(source.to_json())["checksum"] == MANIFEST["checksum"]
    with pytest.raises(ValueError, match="needs checksum"):
        ReleaseSource(tag="v1", mix="demo")
