#!/usr/bin/env bash
# Regenerate requirements.lock: install the project's pinned direct dependencies into a
# throwaway venv and freeze the full resolved set.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q ".[dev]"
{ echo "# Full pinned dependency set (pip freeze of a fresh venv with .[dev]); regenerate with scripts/lock.sh"
  "$tmp/venv/bin/pip" freeze --exclude lakemix; } > requirements.lock
rm -rf "$tmp"
