#!/usr/bin/env bash
# The project's own calibration: seeds/calibrated_thresholds.csv from Leipzig's clean prose.
#
# Usage: scripts/calibrate_leipzig.sh [PERCENTILE [PACKINGS]]   (defaults 0.5 and 20; bin=DIR for
# another venv)
#
# Leipzig's sentences (../shared/corpora/langid/lingua_leipzig/<code>/sentences.txt, 1,000 a
# language) are the only clean prose we have per language, and bench/multilingual.py measures
# retention on them. So they are split: this script calibrates on the even-numbered lines (0, 2,
# 4, ... counted from 0; `lakemix calibrate --lines even`) and the bench measures on the odd
# ones, which the calibration never reads. For each Leipzig folder whose code is a label of
# seeds/language_configs.csv (67 of the 75: lid.176 has no label for lg, mi, sn, st, tn, ts, xh,
# zu), it runs `lakemix calibrate --sentences --lines even --packings K --percentile P --write`,
# which replaces that language's rows of the seed and leaves other languages' rows alone. Five
# hundred sentences pack into about 40 documents, where a percentile of 1 is the minimum of one
# draw; packing them K times in other orders gives 40*K documents whose spread is that of
# documents of such sentences. Same corpora, seeds, percentile and packings: the same rows (a row
# whose calibration did not change keeps its date). Review the diff, then: dbt seed && dbt build.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${bin:-.venv/bin}
percentile=${1:-0.5}
packings=${2:-20}
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
        --sentences --lines even --packings "$packings" --percentile "$percentile" --write \
        | grep -E "thresholds of|no change for|^  [a-z0-9_]+: "
    calibrated=$((calibrated + 1))
done
echo "calibrated $calibrated languages; not labels of lid.176: ${skipped[*]:-none}"
echo "seeds/calibrated_thresholds.csv: $(($(wc -l < seeds/calibrated_thresholds.csv) - 1)) rows"
