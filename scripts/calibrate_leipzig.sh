#!/usr/bin/env bash
# The project's own calibration: seeds/calibrated_thresholds.csv from Leipzig's clean prose.
#
# Usage: scripts/calibrate_leipzig.sh [PERCENTILE]     (default 2; bin=DIR for another venv)
#
# Leipzig's sentences (../shared/corpora/langid/lingua_leipzig/<code>/sentences.txt, 1,000 a
# language) are the only clean prose we have per language, and bench/multilingual.py measures
# retention on them. So they are split: this script calibrates on the even-numbered lines (0, 2,
# 4, ... counted from 0; `lakemix calibrate --lines even`) and the bench measures on the odd
# ones, which the calibration never reads. For each Leipzig folder whose code is a label of
# seeds/language_configs.csv (67 of the 75: lid.176 has no label for lg, mi, sn, st, tn, ts, xh,
# zu), it runs `lakemix calibrate --sentences --lines even --percentile P --write`, which
# replaces that language's rows of the seed and leaves other languages' rows alone. Same corpora,
# same seeds, same percentile: the same rows (a row whose calibration did not change keeps its
# date). Review the diff, then: dbt seed && dbt build.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${bin:-.venv/bin}
percentile=${1:-2}
leipzig=${LAKEMIX_CORPORA:-../shared/corpora}/langid/lingua_leipzig
[ -d "$leipzig" ] || { echo "calibrate_leipzig: no $leipzig (set LAKEMIX_CORPORA)" >&2; exit 1; }

calibrated=0
skipped=()
for sentences in "$leipzig"/*/sentences.txt; do
    code=$(basename "$(dirname "$sentences")")
    if ! cut -d, -f1 seeds/language_configs.csv | grep -qx "$code"; then
        skipped+=("$code")
        continue
    fi
    "$bin/python" -m lakemix.cli calibrate --reference "$sentences" --language "$code" \
        --sentences --lines even --percentile "$percentile" --write \
        | grep -E "thresholds of|no change for|^  [a-z0-9_]+: "
    calibrated=$((calibrated + 1))
done
echo "calibrated $calibrated languages; not labels of lid.176: ${skipped[*]:-none}"
echo "seeds/calibrated_thresholds.csv: $(($(wc -l < seeds/calibrated_thresholds.csv) - 1)) rows"
