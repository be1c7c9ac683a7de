"""The lakemix UDFs on Spark: the very functions DuckDB runs, as vectorized pandas UDFs.

Each ``lakemix.udf`` module registers its Arrow functions with ``register(conn)``. Here ``conn``
is a recorder that keeps each function and its DuckDB signature; the signature is translated to
a Spark type and the function is wrapped so that Spark's pandas batches reach it as Arrow arrays
and its Arrow result goes back as pandas. One definition per UDF, two engines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakemix.udf.registry import MODULES

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SCALARS = {
    "varchar": "string",
    "bigint": "bigint",
    "integer": "int",
    "double": "double",
    "boolean": "boolean",
}


@dataclass(frozen=True)
class RecordedFunction:
    """A UDF as a ``lakemix.udf`` module registers it on DuckDB."""

    name: str
    function: Callable[..., Any]
    return_type: Any  # duckdb.sqltypes.DuckDBPyType


class _Recorder:
    """Stands in for a DuckDB connection: records ``create_function`` calls."""

    def __init__(self) -> None:
        self.functions: list[RecordedFunction] = []

    def create_function(
        self, name: str, function: Callable[..., Any], parameters: Any, return_type: Any, **_: Any
    ) -> None:
        self.functions.append(RecordedFunction(name, function, return_type))


def recorded_functions() -> list[RecordedFunction]:
    """Every lakemix UDF with its DuckDB return type."""
    import importlib

    recorder = _Recorder()
    for name in MODULES:
        importlib.import_module(f"lakemix.udf.{name}").register(recorder)
    return recorder.functions


def spark_type(duckdb_type: Any) -> str:
    """The Spark DDL type of a DuckDB type (scalars, lists and structs of them).

    Raises:
        TypeError: A type with no Spark counterpart here.
    """
    kind = duckdb_type.id
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "list":
        return f"array<{spark_type(duckdb_type.child)}>"
    if kind == "struct":
        fields = ", ".join(f"{name}: {spark_type(child)}" for name, child in duckdb_type.children)
        return f"struct<{fields}>"
    raise TypeError(f"no Spark type for the DuckDB type {duckdb_type}")


def arrow_batch_function(function: Callable[..., Any], *, is_struct: bool) -> Callable[..., Any]:
    """Wrap an Arrow UDF for Spark's pandas UDF calling convention."""

    def call(*columns: Any) -> Any:
        import pyarrow as pa

        arrays = [pa.Array.from_pandas(column) for column in columns]
        result = function(*arrays)
        if isinstance(result, pa.ChunkedArray):
            result = result.combine_chunks()
        if is_struct:
            names = [field.name for field in result.type]
            return pa.Table.from_arrays(result.flatten(), names=names).to_pandas()
        return result.to_pandas()

    return call


def register_all(session: SparkSession) -> list[str]:
    """Register every lakemix UDF on ``session`` as a pandas UDF; return their names."""
    import warnings

    from pyspark.rdd import PythonEvalType
    from pyspark.sql.pandas.functions import pandas_udf

    names = []
    for recorded in recorded_functions():
        ddl = spark_type(recorded.return_type)
        wrapped = arrow_batch_function(recorded.function, is_struct=ddl.startswith("struct<"))
        with warnings.catch_warnings():  # the eval type is given, not inferred from type hints
            warnings.simplefilter("ignore", UserWarning)
            udf = pandas_udf(
                wrapped, returnType=ddl, functionType=PythonEvalType.SQL_SCALAR_PANDAS_UDF
            )
        session.udf.register(recorded.name, udf)
        names.append(recorded.name)
    return names
