"""The trained quality model: a linear model over hashed word, character and layout features.

``lakemix_quality_score(text, model)`` gives each document the model's probability that it is
worth keeping (0 to 1), where ``model`` is ``default`` (the model that ships in this package,
``DEFAULT_MODEL``, trained by ``scripts/train_quality_model.py``) or the path of a model file
(``model.QualityModel``; relative paths from the working directory, dbt's project folder).
A model names itself by the SHA-256 of its file: ``lakemix_quality_model_digest(model)``, which
the dbt model that scores puts in its cache key, so a new model re-scores every document.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from lakemix.udf.quality_model.model import (
    ModelFileError,
    QualityModel,
    file_digest,
    from_bytes,
    load,
)

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "DEFAULT_MODEL",
    "DEFINITION",
    "ModelFileError",
    "QualityModel",
    "file_digest",
    "from_bytes",
    "load",
    "quality_scores",
    "register",
    "resolve",
]

DEFINITION = 1
DEFAULT_MODEL = Path(__file__).with_name("default.lqm")


def resolve(model: str) -> Path:
    """The file of ``model``: ``default`` is the shipped model, anything else a path."""
    return DEFAULT_MODEL if model == "default" else Path(model)


def quality_scores(texts: pa.Array | pa.ChunkedArray, model: str | Path) -> pa.Array:
    """The score of each text under ``model`` (see ``resolve``; float64, null for a null text).

    Raises:
        ModelFileError: The model file is missing or damaged (naming it).
    """
    import numpy as np

    scores = load(resolve(str(model))).score(texts)
    return pa.array(scores, pa.float64(), mask=np.isnan(scores))


def _digest_of(model: str) -> str:
    try:
        return file_digest(resolve(model))
    except ModelFileError as error:
        raise ModelFileError(
            f"the quality model {model!r} (dbt var lakemix_quality_model): {error}; give "
            "'default' or the path of a file `lakemix quality train` wrote"
        ) from None


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_quality_score(text VARCHAR, model VARCHAR) -> DOUBLE`` and
    ``lakemix_quality_model_digest(model VARCHAR) -> VARCHAR`` on ``conn``.

    ``model`` is ``default`` or the path of a model file, the same on every row of a call.
    """
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import DOUBLE, VARCHAR

    from lakemix.udf.arrow import constant

    def score(texts: pa.Array, models: pa.Array) -> pa.Array:
        path = constant("lakemix_quality_score", "model", models)
        if path is None:
            return pa.array([], pa.float64())
        return quality_scores(texts, path)

    def digest(models: pa.Array) -> pa.Array:
        digests = {name: _digest_of(name) for name in models.to_pylist() if name}
        return pa.array([digests.get(name) for name in models.to_pylist()], pa.string())

    conn.create_function(
        "lakemix_quality_score",
        score,
        [VARCHAR, VARCHAR],
        DOUBLE,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
    conn.create_function(
        "lakemix_quality_model_digest",
        digest,
        [VARCHAR],
        VARCHAR,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
