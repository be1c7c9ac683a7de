"""What a tracked run logs as MLflow params and tags: the mix, filter and loader settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson
import yaml

if TYPE_CHECKING:
    from lakemix.versions.manifest import Manifest

# Tags every tracked run carries: `lakemix runs --release TAG` searches by them.
TAG_RELEASE = "lakemix.release"
TAG_MIX = "lakemix.mix"
TAG_CHECKSUM = "lakemix.checksum"
TAG_SPLIT = "lakemix.split"
TAG_LAKEHOUSE = "lakemix.lakehouse"
TAG_RUN_DIR = "lakemix.run_dir"
MAX_VALUE = 6000  # MLflow's limit on a param value


def flatten(prefix: str, value: Any) -> dict[str, str]:
    """``{"a": {"b": 1}}`` under ``prefix`` -> ``{"prefix.a.b": "1"}``; lists as JSON."""
    if isinstance(value, Mapping):
        out: dict[str, str] = {}
        for key, inner in value.items():
            out.update(flatten(f"{prefix}.{key}", inner))
        return out
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    return {prefix: text[:MAX_VALUE]}


def release_params(manifest: Manifest) -> dict[str, str]:
    """The release's settings: the mix file (``mix.*``), dbt vars such as the filter families,
    thresholds and deduplication settings (``vars.*``), the release itself (``release.*``)."""
    mix_file = manifest.config_files.get(f"mixes/{manifest.mix}.yml")
    mix = yaml.safe_load(mix_file) if mix_file else {}
    return {
        "release.tag": manifest.tag,
        "release.mix": manifest.mix,
        "release.checksum": manifest.checksum,
        "release.config_hash": manifest.config_hash,
        **(
            {"release.quality_model": str(manifest.quality_model["sha256"])}
            if manifest.quality_model.get("sha256")
            else {}
        ),
        **flatten("mix", {k: v for k, v in (mix or {}).items() if k != "description"}),
        **flatten("vars", dict(manifest.vars)),
    }


def release_tags(manifest: Manifest, split: str, lakehouse: str) -> dict[str, str]:
    """The tags that link a run to its release (and let ``lakemix runs`` find it)."""
    return {
        TAG_RELEASE: manifest.tag,
        TAG_MIX: manifest.mix,
        TAG_CHECKSUM: manifest.checksum,
        TAG_SPLIT: split,
        TAG_LAKEHOUSE: lakehouse,
    }
