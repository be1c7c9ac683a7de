"""Block lists in UT1's format: folders, archives and single files, replaced by name."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from lakemix.ingest import blocklists
from lakemix.ingest.named import NamedListError


@pytest.fixture
def sql_catalog(tmp_path: Path) -> SqlCatalog:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    return SqlCatalog(
        "test", uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse=f"file://{warehouse}"
    )


def ut1(root: Path) -> Path:
    (root / "adult").mkdir(parents=True)
    (root / "adult" / "domains").write_text("# UT1\nPorn.example\nbücher-xxx.de\n\nporn.example\n")
    (root / "adult" / "urls").write_text("www.example.com/adult/page\nhttp://\n")
    (root / "gambling").mkdir()
    (root / "gambling" / "domains").write_text("casino.example\n")
    (root / "gambling" / "usage").write_text("black\n")
    return root


def rows(catalog: SqlCatalog) -> set[tuple[str, str, str, str]]:
    table = catalog.load_table("meta.url_blocklists").scan().to_arrow()
    return {(r["list_name"], r["category"], r["kind"], r["value"]) for r in table.to_pylist()}


def test_a_ut1_folder_is_read_by_category_and_replaced_by_name(
    sql_catalog: SqlCatalog, tmp_path: Path
) -> None:
    added = blocklists.add(sql_catalog, "ut1", ut1(tmp_path / "blacklists"))
    assert dict(added.entries) == {
        ("adult", "domain"): 2,
        ("adult", "url"): 1,
        ("gambling", "domain"): 1,
    }
    assert added.unreadable == 1 and added.replaced == 0
    assert rows(sql_catalog) == {
        ("ut1", "adult", "domain", "porn.example"),
        ("ut1", "adult", "domain", "xn--bcher-xxx-q9a.de"),
        ("ut1", "adult", "url", "example.com/adult/page"),
        ("ut1", "gambling", "domain", "casino.example"),
    }
    mine = tmp_path / "mine.txt"
    mine.write_text("do-not-train.example\n")
    blocklists.add(sql_catalog, "mine", mine, kind="domain", category="do-not-train")
    again = tmp_path / "again" / "domains"
    again.parent.mkdir()
    again.write_text("other.example\n")
    replaced = blocklists.add(sql_catalog, "ut1", again)
    assert replaced.replaced == 4
    assert rows(sql_catalog) == {
        ("mine", "do-not-train", "domain", "do-not-train.example"),
        ("ut1", "again", "domain", "other.example"),
    }
    assert [(s.name, s.category, s.entries) for s in blocklists.stored(sql_catalog)] == [
        ("mine", "do-not-train", 1),
        ("ut1", "again", 1),
    ]
    assert blocklists.remove(sql_catalog, "ut1") == 1
    with pytest.raises(NamedListError, match=r"no block list named 'ut1' \(stored: mine\)"):
        blocklists.remove(sql_catalog, "ut1")


def test_an_archive_as_ut1_ships_it(sql_catalog: SqlCatalog, tmp_path: Path) -> None:
    archive = tmp_path / "blacklists.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, data in [
            ("blacklists/adult/domains", b"porn.example\n"),
            ("blacklists/README", b"x"),
        ]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    added = blocklists.add(sql_catalog, "ut1", archive)
    assert dict(added.entries) == {("adult", "domain"): 1}


def test_what_is_no_list_is_refused_in_one_line(sql_catalog: SqlCatalog, tmp_path: Path) -> None:
    with pytest.raises(NamedListError, match="letters, digits"):
        blocklists.add(sql_catalog, "my list", tmp_path)
    plain = tmp_path / "list.txt"
    plain.write_text("example.com\n")
    with pytest.raises(blocklists.BlocklistError, match="--kind domain or --kind url"):
        blocklists.add(sql_catalog, "x", plain)
    with pytest.raises(blocklists.BlocklistError, match="no such file"):
        blocklists.add(sql_catalog, "x", tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(blocklists.BlocklistError, match="no `domains` or `urls` file"):
        blocklists.add(sql_catalog, "x", tmp_path / "empty")
    junk = tmp_path / "domains"
    junk.write_text("# only a comment\n")
    with pytest.raises(blocklists.BlocklistError, match="no entry read"):
        blocklists.add(sql_catalog, "x", junk)
