"""The trained quality model: a linear model over hashed word, character and layout features.

``lakemix_quality_score(text, model)`` gives each document the model's probability that it is
worth keeping (0 to 1), where ``model`` is the path of a model file (``model.QualityModel``);
the project's default model ships in this package (``DEFAULT_MODEL``, trained by
``scripts/train_quality_model.py``), and ``lakemix quality train`` writes a lakehouse's own.
A model names itself by the SHA-256 of its file (``model.file_digest``), which the dbt model
that scores puts in its cache key: a new model re-scores every document.
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
]

DEFINITION = 1
DEFAULT_MODEL = Path(__file__).with_name("default.lqm")


def quality_scores(texts: pa.Array | pa.ChunkedArray, model: Path) -> pa.Array:
    """The score of each text under the model in ``model`` (float64, null for a null text)."""
    import numpy as np

    scores = load(model).score(texts)
    return pa.array(scores, pa.float64(), mask=np.isnan(scores))


def register(conn: duckdb.DuckDBPyConnection) -> None:
    """Register ``lakemix_quality_score(text VARCHAR, model VARCHAR) -> DOUBLE`` on ``conn``.

    ``model`` is the path of a model file, the same on every row of a call (a constant).
    """
    from duckdb.func import ARROW, SPECIAL
    from duckdb.sqltypes import DOUBLE, VARCHAR

    from lakemix.udf.arrow import constant

    def score(texts: pa.Array, models: pa.Array) -> pa.Array:
        path = constant("lakemix_quality_score", "model", models)
        if path is None:
            return pa.array([], pa.float64())
        return quality_scores(texts, Path(path))

    conn.create_function(
        "lakemix_quality_score",
        score,
        [VARCHAR, VARCHAR],
        DOUBLE,
        type=ARROW,
        null_handling=SPECIAL,
        side_effects=False,
    )
