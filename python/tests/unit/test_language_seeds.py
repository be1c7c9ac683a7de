"""scripts/make_language_seeds.py: the committed seeds are what it writes, and they map right."""

from __future__ import annotations

import csv
import importlib.util
import statistics
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SEEDS = ROOT / "seeds"
SEED_FILES = ("language_configs.csv", "quality_thresholds.csv", "stop_words.csv")


@pytest.fixture(scope="module")
def script() -> ModuleType:
    """The generator, imported by path (scripts/ is not a package)."""
    path = ROOT / "scripts" / "make_language_seeds.py"
    spec = importlib.util.spec_from_file_location("make_language_seeds", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_language_seeds"] = module  # NamedTuples resolve their module here
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def configs(script: ModuleType) -> dict[str, dict[str, Any]]:
    """FineWeb-2's configs; the reference folder is part of every machine's shared/."""
    if not (script.FINEWEB2 / "language_configs.jsonl").is_file():
        pytest.fail(
            f"FineWeb-2's configs are missing: {script.FINEWEB2}/language_configs.jsonl "
            "(../shared/reference/fineweb2 beside the project, or set LAKEMIX_REFERENCE)"
        )
    return script.read_configs()  # type: ignore[no-any-return]


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_committed_seeds_are_what_the_generator_writes(
    script: ModuleType, configs: dict[str, Any], tmp_path: Path
) -> None:
    script.main(["--out", str(tmp_path)])
    for name in SEED_FILES:
        written, committed = (tmp_path / name).read_bytes(), (SEEDS / name).read_bytes()
        assert written == committed, f"seeds/{name} is stale: run scripts/make_language_seeds.py"


def test_every_lid_label_has_a_row(script: ModuleType) -> None:
    rows = read(SEEDS / "language_configs.csv")
    assert [r["language"] for r in rows] == script.lid_labels()
    assert len(rows) == 176


@pytest.mark.parametrize(
    ("label", "config"),
    [("de", "deu_Latn"), ("th", "tha_Thai"), ("nb", "nob_Latn"), ("fa", "fas_Arab")],
)
def test_a_label_runs_on_its_own_config(
    label: str, config: str, configs: dict[str, Any], script: ModuleType
) -> None:
    [row] = [r for r in read(SEEDS / "language_configs.csv") if r["language"] == label]
    assert (row["fineweb2_config"], row["threshold_source"]) == (config, "fineweb2")
    assert row["script"] == config.split("_")[1]
    words = {r["word"] for r in read(SEEDS / "stop_words.csv") if r["language"] == label}
    assert words == {script.lower(w) for w in configs[config]["stopwords"]}
    own = {
        r["rule"]: float(r["threshold"])
        for r in read(SEEDS / "quality_thresholds.csv")
        if r["language"] == label
    }
    assert set(own) == set(script.TUNED_RULES)
    assert own["gopher_max_duplicate_line_fraction"] == configs[config]["dup_line_frac"]
    assert own["min_language_score"] == min(configs[config]["language_score"], 0.65)
    assert own["fineweb_max_duplicate_line_char_ratio"] == 0.1


def test_a_macrolanguage_takes_every_members_stop_words_and_its_own_thresholds(
    script: ModuleType, configs: dict[str, Any]
) -> None:
    """lid.176's qu is every Quechua language: the stop words of each member FineWeb-2
    configures (Ayacucho's list shares none with Kichwa's), the thresholds of its own config
    (the small members' would switch the repetition rules off). Members lid.176 labels apart
    stay apart: arz from ar, id and min from ms, bs/hr/sr from hbs."""
    rows = {r["language"]: r for r in read(SEEDS / "language_configs.csv")}
    qu = rows["qu"]
    members = qu["fineweb2_members"].split()
    assert (qu["threshold_source"], qu["fineweb2_config"], members[0]) == (
        "macrolanguage",
        "quy_Latn",
        "quy_Latn",
    )
    assert {"qug_Latn", "quz_Latn", "quf_Latn"} <= set(members) and len(members) >= 10
    words = {r["word"] for r in read(SEEDS / "stop_words.csv") if r["language"] == "qu"}
    for member in members:
        assert {script.lower(w) for w in configs[member]["stopwords"]} <= words, member
    assert not set(configs["qug_Latn"]["stopwords"]) & set(configs["quy_Latn"]["stopwords"])
    own = {
        r["rule"]: float(r["threshold"])
        for r in read(SEEDS / "quality_thresholds.csv")
        if r["language"] == "qu"
    }
    assert own == {
        rule: value if rule != "min_language_score" else min(value, 0.65)
        for rule, value in script.fineweb2_values(configs["quy_Latn"]).items()
    }
    assert "arz_Arab" not in rows["ar"]["fineweb2_members"].split()
    assert rows["ar"]["fineweb2_members"].split()[:2] == ["arb_Arab", "ary_Arab"]
    assert not {"ind_Latn", "min_Latn"} & set(rows["ms"]["fineweb2_members"].split())
    assert rows["hbs"]["threshold_source"] == "fineweb2" and rows["hbs"]["fineweb2_members"] == ""
    assert rows["de"]["fineweb2_members"] == ""
    # Without subset sizes (the generator's tests of other mappings), no label is one.
    assert script.language_rows(["qu"], configs)[0]["threshold_source"] == "fineweb2"


def test_chinese_stop_words_are_fineweb2s() -> None:
    words = {r["word"] for r in read(SEEDS / "stop_words.csv") if r["language"] == "zh"}
    assert {"的", "是", "在", "了"} <= words


def test_english_runs_on_fineweb_english(script: ModuleType) -> None:
    [row] = [r for r in read(SEEDS / "language_configs.csv") if r["language"] == "en"]
    assert (row["threshold_source"], row["fineweb2_config"], row["script"]) == (
        "fineweb",
        "",
        "Latn",
    )
    thresholds = read(SEEDS / "quality_thresholds.csv")
    assert not [r for r in thresholds if r["language"] == "en"]
    defaults = [r for r in thresholds if r["language"] == "*"]
    assert len(defaults) == len(script.DEFAULT_RULES) == 38  # FineWeb English 31, floors 6, model
    words = {r["word"] for r in read(SEEDS / "stop_words.csv") if r["language"] == "en"}
    assert words == set(script.GOPHER_STOP_WORDS)


def test_a_label_without_config_falls_back_to_its_scripts_medians(
    script: ModuleType, configs: dict[str, Any]
) -> None:
    without = {name: c for name, c in configs.items() if name != "cmn_Hani"}
    languages = script.language_rows(["en", "zh"], without)
    [zh] = [r for r in languages if r["language"] == "zh"]
    assert (zh["threshold_source"], zh["script"], zh["fineweb2_config"]) == ("script", "Hani", "")
    hani = [c for name, c in without.items() if name.endswith("_Hani")]
    rows = {
        r.rule: r.threshold for r in script.threshold_rows(languages, without) if r.language == "zh"
    }
    assert set(rows) == set(script.TUNED_RULES)
    expected = statistics.median(c["top_n_grams"][0][1] for c in hani)
    assert rows["gopher_max_top_2gram_char_fraction"] == round(expected, 3)
    assert rows["min_language_score"] <= 0.65
    assert all(language == "en" for language, _ in script.stop_word_rows(languages, without))


def test_a_label_without_config_or_script_configs_runs_on_the_global_rows(
    script: ModuleType, configs: dict[str, Any]
) -> None:
    targets = {**script.LANGUAGES, "xx": script.Target("Nowhere", script="Zzzz")}
    [row] = script.language_rows(["xx"], configs, targets)
    assert row["threshold_source"] == "global"
    assert [r.language for r in script.threshold_rows([row], configs)] == ["*"] * 38


def test_overrides_apply_last_and_must_name_a_known_rule(
    script: ModuleType, configs: dict[str, Any]
) -> None:
    languages = script.language_rows(["de"], configs)
    fix = script.Override("de", "gopher_max_mean_word_length", 12, "measured")
    rows = script.threshold_rows(languages, configs, [fix])
    [row] = [r for r in rows if (r.language, r.rule) == ("de", fix.rule)]
    assert row.threshold == 12 and row.operator == "<="
    with pytest.raises(ValueError, match="unknown language or rule"):
        script.threshold_rows(languages, configs, [fix._replace(rule="no_such_rule")])


def test_the_mapping_must_cover_every_label_and_name_real_configs(
    script: ModuleType, configs: dict[str, Any]
) -> None:
    labels = sorted(script.LANGUAGES)
    script.check_mapping(labels, configs)
    with pytest.raises(ValueError, match="missing \\['xx'\\]"):
        script.check_mapping([*labels, "xx"], configs)
    with pytest.raises(ValueError, match="pes_Arab"):
        targets = {**script.LANGUAGES, "fa": script.Target("Persian", "pes_Arab")}
        script.check_mapping(labels, configs, targets)


def test_the_data_test_checks_every_tuned_rule(script: ModuleType) -> None:
    sql = (ROOT / "tests" / "assert_configured_languages_have_own_thresholds.sql").read_text()
    listed = [line.strip().strip("',") for line in sql.splitlines() if line.startswith("    '")]
    assert listed == list(script.TUNED_RULES)
