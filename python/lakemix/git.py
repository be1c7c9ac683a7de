"""The state of the project's git checkout, recorded with every build and release."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_state(root: Path | None) -> tuple[str, bool]:
    """(commit, dirty) of the project checkout, or ("unknown", False) outside git."""
    if root is None:
        return "unknown", False
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
    return commit, bool(status.strip())
