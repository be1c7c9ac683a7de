"""The scratch project of a rebuild has the release's seeds, and no rows in seeds added since."""

from __future__ import annotations

from pathlib import Path

from lakemix.versions.manifest import parse_manifest
from lakemix.versions.rebuild import _scratch_project
from tests.conftest import ROOT


def test_a_seed_added_after_the_release_is_emptied(tmp_path: Path) -> None:
    thresholds = "language,rule,signal,operator,threshold,family\n*,r,word_count,>=,1,gopher\n"
    manifest = parse_manifest(
        {
            "tag": "v1",
            "mix": "m",
            "released_at": "2026-12-05T00:00:00+00:00",
            "checksum": "1-0",
            "snapshots": {},
            "config_files": {"seeds/quality_thresholds.csv": thresholds},
            "vars": {"lakemix_filter_families": ["gopher_quality"]},
        },
        "test",
    )
    project = _scratch_project(ROOT, tmp_path, manifest)
    assert (project / "seeds" / "quality_thresholds.csv").read_text() == thresholds
    calibrated = (project / "seeds" / "calibrated_thresholds.csv").read_text()
    assert (
        calibrated
        == (ROOT / "seeds" / "calibrated_thresholds.csv").read_text().split("\n")[0] + "\n"
    )
    assert calibrated.startswith("language,rule,threshold,")
    configs = (project / "seeds" / "language_configs.csv").read_text()
    assert configs.count("\n") == 1  # not recorded either: as if added later
