"""Imports point down the layers written in docs/architecture.md (an AST check of the package)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "python" / "lakemix"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
ROOT_UNIT = "lakemix"  # the package's own __init__ (re-exports)


@dataclass(frozen=True)
class Violation:
    """An import of ``target`` (unit ``imported``) in ``path:line`` of unit ``importer``."""

    path: str
    line: int
    importer: str
    imported: str
    target: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.importer} imports {self.target} ({self.imported})"


def read_layers(text: str) -> list[list[str]]:
    """The layers of the block after the ``<!-- layers`` marker, bottom first."""
    block = re.search(r"<!-- layers.*?-->\s*```text\n(.*?)```", text, re.S)
    assert block is not None, "docs/architecture.md has no layers block"
    # "command line   cli": the layer's name (which may hold a space), two spaces or more, units
    rows = [re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in block.group(1).splitlines()]
    return [row[1].split() if len(row) > 1 else [] for row in reversed(rows) if row[0]]


def unit_of(module: str) -> str:
    """``lakemix.dbt.plugin`` -> ``dbt``; ``lakemix`` -> the root unit."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT_UNIT


def lakemix_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of a lakemix module, wherever it is written."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "lakemix":  # from lakemix import x: x may be a subpackage
                found += [(node.lineno, f"lakemix.{alias.name}") for alias in node.names]
            elif node.module.startswith("lakemix."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("lakemix.")]
        elif isinstance(node, ast.Call) and _called(node) == "import_module":
            module = _import_module_target(node)
            if module is not None and module.startswith("lakemix."):
                found.append((node.lineno, module))
    return found


def _called(node: ast.Call) -> str | None:
    function = node.func
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else None


def _import_module_target(node: ast.Call) -> str | None:
    """The module ``importlib.import_module(...)`` loads, when its arguments are literal (an
    f-string's literal head counts: ``f"lakemix.udf.{name}"`` is a lakemix.udf module)."""

    def literal(arg: ast.expr) -> str | None:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        if isinstance(arg, ast.JoinedStr) and arg.values:
            head = arg.values[0]
            if isinstance(head, ast.Constant) and isinstance(head.value, str):
                return head.value.rstrip(".") or None
        return None

    if not node.args:
        return None
    name = literal(node.args[0])
    if name is None:
        return None
    if name.startswith(".") and len(node.args) > 1:  # relative to the package argument
        package = literal(node.args[1])
        return f"{package}{name}" if package else None
    return name


def violations(package: Path, layers: list[list[str]]) -> list[Violation | str]:
    """Imports that point up or sideways, and units that are in no layer."""
    rank = {unit: index for index, layer in enumerate(layers) for unit in layer}
    problems: list[Violation | str] = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        importer = relative.parts[0].removesuffix(".py")
        if importer == "__init__":
            importer = ROOT_UNIT
        if importer not in rank:
            problems.append(f"{relative}: {importer} is in no layer of docs/architecture.md")
            continue
        for line, target in lakemix_imports(ast.parse(path.read_text(), str(path))):
            imported = unit_of(target)
            if imported not in rank and target.count(".") == 1:
                imported = ROOT_UNIT  # from lakemix import __version__: a name of the root
            if imported == importer or rank.get(imported, len(layers)) < rank[importer]:
                continue
            problems.append(Violation(str(relative), line, importer, imported, target))
    return problems


def test_the_package_imports_only_downwards() -> None:
    layers = read_layers(ARCHITECTURE.read_text())
    assert sum(map(len, layers)) >= 20  # the block was read
    assert [str(p) for p in violations(PACKAGE, layers)] == []


def write(root: Path, name: str, source: str) -> None:
    path = root / "lakemix" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)


def test_an_upward_or_sideways_import_is_caught(tmp_path: Path) -> None:
    layers = read_layers(ARCHITECTURE.read_text())
    write(tmp_path, "__init__.py", "from lakemix.settings import Settings\n__version__ = '0'\n")
    write(tmp_path, "settings.py", "")
    write(tmp_path, "ingest/__init__.py", "from lakemix import __version__, settings\n")
    write(tmp_path, "dbt/__init__.py", "")
    write(tmp_path, "versions/__init__.py", "from lakemix.dbt import plugin\n")
    write(
        tmp_path,
        "dbt/plugin.py",
        "def scan():\n    from lakemix.versions.refs import scan_at\n",  # up, and lazily
    )
    write(tmp_path, "search.py", "import lakemix.ingest.run\n")  # sideways
    write(  # dynamically, up
        tmp_path,
        "storage.py",
        "import importlib\ndef f(n):\n"
        "    return importlib.import_module(f'lakemix.versions.{n}')\n",
    )
    write(tmp_path, "newthing.py", "")
    found = violations(tmp_path / "lakemix", layers)
    assert [str(v) for v in found] == [
        "dbt/plugin.py:2: dbt imports lakemix.versions.refs (versions)",
        "newthing.py: newthing is in no layer of docs/architecture.md",
        "search.py:1: search imports lakemix.ingest.run (ingest)",
        "storage.py:3: storage imports lakemix.versions (versions)",
    ]
    assert ["cli"] in layers and not any("line" in layer for layer in layers)
