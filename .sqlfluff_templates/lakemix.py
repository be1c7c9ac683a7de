"""The ``lakemix.<macro>(...)`` namespace for sqlfluff's jinja templater (see ../.sqlfluff).

dbt resolves ``lakemix.word_count(text)`` to the project's macro (through adapter.dispatch);
sqlfluff's jinja templater knows no package namespaces, so each call renders as a SQL
function call of the same name, which parses wherever the macro's output stands (an
expression, a select list item or a table function); the macros that render a whole query,
CTEs, or nothing render as such. The macros themselves are linted as files under macros/.
"""

from __future__ import annotations

from collections.abc import Callable

RENDER_NOTHING = frozenset({"cache_key"})
QUERIES = frozenset({"connected_components", "rows_or_none", "unpivot_except"})
CTES = frozenset({"stage_counts"})


def __getattr__(name: str) -> Callable[..., str]:
    if name.startswith("__"):
        raise AttributeError(name)

    def call(*args: object, **kwargs: object) -> str:
        if name in RENDER_NOTHING:
            return ""
        if name in QUERIES:  # a query over the relation it is given first
            source = args[0] if args and isinstance(args[0], str) else f"{name}()"
            return f"select * from {source}"
        if name in CTES:
            return f"{name} as (select * from {name}())"
        return f"{name}()"

    return call
