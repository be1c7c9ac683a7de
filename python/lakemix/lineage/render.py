"""Column lineage as text: an indented tree for the terminal, paths for the docs site."""

from __future__ import annotations

from lakemix.lineage.columns import ColumnLineage

DERIVED = "Derived from:"


def format_tree(root: ColumnLineage, *, title: str | None = None) -> str:
    """An indented tree, one column a line; a subtree already shown is not repeated.

    Args:
        root: The traced column.
        title: First line (default ``relation.column`` of the root).
    """
    lines = [title or root.name]
    if root.note:
        lines[0] += f"  ({root.note})"
    shown: set[str] = set()

    def walk(node: ColumnLineage, prefix: str) -> None:
        for i, child in enumerate(node.upstream):
            last = i == len(node.upstream) - 1
            repeated = child.name in shown and bool(child.upstream)
            label = child.name + (f"  ({child.note})" if child.note else "")
            lines.append(f"{prefix}{'└── ' if last else '├── '}{label}{' ...' if repeated else ''}")
            shown.add(child.name)
            if not repeated:
                walk(child, prefix + ("    " if last else "│   "))

    walk(root, "")
    return "\n".join(lines)


def lineage_paths(root: ColumnLineage) -> list[str]:
    """Every path from the root's inputs to a source field, seed column or constant, in order."""
    paths: list[str] = []

    def walk(node: ColumnLineage, trail: tuple[str, ...]) -> None:
        if not node.upstream:
            path = " <- ".join(trail) + (f" ({node.note})" if node.note else "")
            if path not in paths:
                paths.append(path)
            return
        for child in node.upstream:
            walk(child, (*trail, child.name))

    for child in root.upstream:
        walk(child, (child.name,))
    return paths


def derivation_markdown(root: ColumnLineage) -> str:
    """The paragraph the docs site appends to a column's description."""
    if not root.upstream:
        return f"**{DERIVED}** {root.note}."
    items = "\n".join(f"- {path}" for path in lineage_paths(root))
    return f"**{DERIVED}**\n\n{items}"
