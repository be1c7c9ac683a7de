"""The cleaning layer end to end on clean prose in several scripts and on Chinese web junk.

Clean documents are Leipzig sentences (odd lines, the ones the calibration does not read) joined
into documents of about 1,000-2,000 characters; junk is HPLT's Chinese pages (navigation, spam).
One ``dbt seed`` + ``dbt run`` up to the filter model, shared by the tests of this module.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard

from lakemix import catalog, duck
from lakemix.dbt import cache_key
from lakemix.ingest import ingest
from lakemix.settings import Settings
from lakemix.udf import quality
from tests.conftest import CORPORA, ENV_VARS, ROOT, WEB, dbt

# Languages written in different scripts, with and without spaces between words.
LANGUAGES = ("zh", "ja", "ko", "th", "de", "ru", "ar", "hi", "el", "en")
DOCUMENTS_PER_LANGUAGE = 5
JUNK_PAGES = 40


def clean_documents(language: str) -> Iterator[dict[str, str]]:
    lines = (CORPORA / "langid" / "lingua_leipzig" / language / "sentences.txt").read_text()
    sentences = lines.splitlines()[1::2]
    joiner = "" if language in ("zh", "ja") else " "
    for k in range(DOCUMENTS_PER_LANGUAGE):
        chunk = sentences[k * 40 : (k + 1) * 40]
        paragraphs = [joiner.join(chunk[i : i + 4]) for i in range(0, len(chunk), 4)]
        text = "\n".join(paragraphs)
        if len(text) > 2000:  # whole paragraphs, up to 2,000 characters
            text = text[: text.rfind("\n", 0, 2000)]
        yield {"id": f"{language}-{k}", "text": text}


def junk_pages() -> Iterator[dict[str, str]]:
    [path] = sorted((WEB / "hplt_warc2text").glob("*_sample_zh.tsv.zst"))[:1]
    with path.open("rb") as raw:
        lines = io.TextIOWrapper(zstandard.ZstdDecompressor().stream_reader(raw), "utf-8")
        for k, line in enumerate(lines):
            if k == JUNK_PAGES:
                return
            _, encoded = line.rstrip("\n").split("\t", 1)
            yield {"id": f"hplt-zh-{k}", "text": base64.b64decode(encoded).decode("utf-8")}


@pytest.fixture(scope="module")
def cleaned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Path]]:
    tmp = tmp_path_factory.mktemp("multilingual")
    with pytest.MonkeyPatch.context() as patch:
        for name in ENV_VARS:
            patch.delenv(name, raising=False)
        patch.setenv("LAKEMIX_HOME", str(tmp / "lakehouse"))
        sources = {f"leipzig_{lang}": list(clean_documents(lang)) for lang in LANGUAGES}
        for source, documents in {**sources, "hplt_zh": list(junk_pages())}.items():
            path = tmp / f"{source}.jsonl"
            path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in documents))
            ingest([path], source=source, fmt="jsonl")
        dbt("seed", tmp=tmp)
        dbt("run", "--select", "+int_documents_quality_filtered", tmp=tmp)
        yield Settings.from_env(), tmp


def rows(settings: Settings, sql: str) -> list[tuple[object, ...]]:
    conn = duck.connect(settings.duckdb_path, settings=settings, read_only=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_clean_prose_is_kept_in_every_script(cleaned: tuple[Settings, Path]) -> None:
    settings, _ = cleaned
    outcome = rows(
        settings,
        """
        select split_part(scored.source_id, '_', 2), scored.language, filtered.is_kept,
            filtered.failed_rules
        from intermediate.int_documents_quality_filtered as filtered
        inner join intermediate.int_documents_language_scored as scored using (document_id)
        where scored.source_id like 'leipzig!_%' escape '!'
        """,
    )
    assert len(outcome) == len(LANGUAGES) * DOCUMENTS_PER_LANGUAGE
    for language in LANGUAGES:
        mine = [row for row in outcome if row[0] == language]
        assert all(row[1] == language for row in mine), (language, mine)
        kept = sum(bool(row[2]) for row in mine)
        assert kept >= DOCUMENTS_PER_LANGUAGE - 1, (language, [row[3] for row in mine])


def test_words_are_the_languages_own(cleaned: tuple[Settings, Path]) -> None:
    settings, _ = cleaned
    per_language = dict(
        rows(
            settings,
            """
            select language, median(mean_word_length)
            from intermediate.int_documents_quality_scored
            where language in ('zh', 'ja', 'th', 'de') and stop_word_count is not null
            group by language
            """,
        )
    )
    # Segmented: Chinese and Japanese words of 1-3 characters, Thai of 2-6, not whole lines.
    assert 1 <= per_language["zh"] <= 3 and 1 <= per_language["ja"] <= 3
    assert 2 <= per_language["th"] <= 6 and 4 <= per_language["de"] <= 8


def test_chinese_web_junk_stays_rejected_with_reasons(cleaned: tuple[Settings, Path]) -> None:
    settings, _ = cleaned
    outcome = rows(
        settings,
        """
        select filtered.is_kept, len(filtered.failed_rules)
        from intermediate.int_documents_quality_filtered as filtered
        inner join intermediate.int_documents_language_scored as scored using (document_id)
        where scored.source_id = 'hplt_zh'
        """,
    )
    assert len(outcome) == JUNK_PAGES
    rejected = [failed for kept, failed in outcome if not kept]
    assert len(rejected) >= 0.9 * JUNK_PAGES
    assert all(failed > 0 for failed in rejected)  # every rejection names its rules


def test_the_stop_words_are_part_of_the_signals_cache_key(cleaned: tuple[Settings, Path]) -> None:
    """Rows counted with other stop words would mix two definitions: the key names the seed."""
    settings, _ = cleaned
    with (ROOT / "seeds" / "stop_words.csv").open(encoding="utf-8", newline="") as f:
        pairs = sorted((row["language"], row["word"]) for row in csv.DictReader(f))
    digest = hashlib.md5(",".join(f"{lang}:{word}" for lang, word in pairs).encode()).hexdigest()
    table = catalog(settings).load_table("intermediate.int_documents_quality_scored")
    key = json.loads(cache_key.recorded(table) or "{}")
    from lakemix.udf import quality_model

    model = quality_model.file_digest(quality_model.DEFAULT_MODEL)
    assert key["settings"] == {"stop_words": digest, "quality_model": model}
    assert key["udfs"] == {"quality": quality.DEFINITION, "quality_model": quality_model.DEFINITION}
