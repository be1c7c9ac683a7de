"""The one way lakemix runs dbt on DuckDB: the ``dbt`` beside the running Python, as a process.

A separate process, so each run builds its own adapter, connections and plugin state (dbt keeps
them per process) and a failed run cannot leave this one half-configured. dbt on Spark runs in
this process instead, on the Spark session it needs (``lakemix.spark.dbt.run_dbt``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from lakemix.dbt.parse_state import kept_per_vars, target_of


def dbt_executable() -> Path:
    """The ``dbt`` installed in the running Python's environment."""
    return Path(sys.executable).with_name("dbt")


def run_dbt(
    args: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    capture: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``dbt ARGS``; the finished process (its ``returncode`` is dbt's exit code).

    Args:
        args: dbt's arguments, e.g. ``["build", "--select", "stg_meta__mix_plans+"]``.
        cwd: Where to run (dbt finds ``dbt_project.yml`` and ``profiles.yml`` there unless
            ``--project-dir``/``--profiles-dir`` say otherwise); default: the current folder.
        env: The environment; default: this process's.
        capture: Keep dbt's output in ``stdout`` and ``stderr`` instead of printing it.
    """
    environ = None if env is None else dict(env)
    target = target_of(args, cwd or Path.cwd(), environ)
    # A run with --vars (a mix build) must not make the next plain build parse everything again.
    with kept_per_vars(args, target):
        return subprocess.run(
            [str(dbt_executable()), *args],
            cwd=cwd,
            env=environ,
            check=False,
            capture_output=capture,
            text=True,
        )
