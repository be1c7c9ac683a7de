#!/usr/bin/env bash
# make demo: ingest every corpus under ../shared/corpora/web, build the dbt project, and say
# where everything is. Safe to run again: files already ingested are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
web=${LAKEMIX_CORPORA:-../shared/corpora}/web
[ -d "$web" ] || { echo "demo: corpora not found at $web (set LAKEMIX_CORPORA)" >&2; exit 1; }

start=$(date +%s)
LOGS=${LAKEMIX_HOME:-lakehouse}/logs
mkdir -p "$LOGS"
echo "== ingest ($web)"
$bin/lakemix ingest "$web/dolma_cc2019" --source dolma_cc2019 --format jsonl --no-progress | tail -n 2
$bin/lakemix ingest "$web/dolma_cc_en_head" --source dolma_cc_en_head --format jsonl --no-progress | tail -n 2
$bin/lakemix ingest "$web/oscar2019" --source oscar2019 --format oscar --no-progress | tail -n 2
$bin/lakemix ingest "$web/oscar2201" --source oscar2201 --format jsonl --no-progress | tail -n 2
$bin/lakemix ingest "$web/hplt_warc2text" --source hplt_warc2text --format hplt --no-progress | tail -n 2

echo "== dbt build"
$bin/dbt build --quiet
echo "== mixes (mixes/*.yml)"
for mix in demo_temperature demo_unimax; do
    $bin/lakemix mix build "$mix" > "$LOGS/mix-$mix.log" 2>&1 || { cat "$LOGS/mix-$mix.log"; exit 1; }
    head -n 14 "$LOGS/mix-$mix.log"
    echo "   ..."
done
echo "== release (lakemix release; see lakemix versions, show, diff, rebuild)"
tag="demo-$(date -u +%Y%m%d-%H%M%S)"
# The accuracy objective (severity error) wants 133 good reviewer verdicts on the mix's kept
# documents; the sample corpus keeps about 30 and has no reviewers, so the demo releases without
# them and says why: the reason goes into the manifest (lakemix show).
unreviewed="sample corpus: no reviewers"
$bin/lakemix release demo_unimax --tag "$tag" --accept-unvalidated "$unreviewed"
# Tracked runs only when asked for (MLFLOW_TRACKING_URI set): two releases, two tiny runs and a
# compare add about 100 s on a loaded 2-core machine (docs/benchmarks.md).
if [ -n "${MLFLOW_TRACKING_URI:-}" ]; then
    echo "== two tiny runs on two releases, tracked in MLflow ($MLFLOW_TRACKING_URI; docs/tracking.md)"
    $bin/lakemix release demo_temperature --tag "$tag-t" --accept-unvalidated "$unreviewed"
    runs=()
    for release in "demo_unimax $tag" "demo_temperature $tag-t"; do
        set -- $release
        out=${LAKEMIX_HOME:-lakehouse}/runs/$2
        MLFLOW_TRACKING_URI=$MLFLOW_TRACKING_URI MLFLOW_EXPERIMENT_NAME=lakemix-demo \
            $bin/python examples/train_tiny.py --mix "$1" --tag "$2" --out "$out" --steps 20 \
            --checkpoint-every 10 --seq-len 32 > "$LOGS/train-$2.log" 2>&1 || { cat "$LOGS/train-$2.log"; exit 1; }
        runs+=("$(sed -n 's/^mlflow run \([0-9a-f]*\) at .*/\1/p' "$LOGS/train-$2.log")")
    done
    echo "\$ lakemix compare ${runs[0]} ${runs[1]}"
    MLFLOW_TRACKING_URI=$MLFLOW_TRACKING_URI $bin/lakemix compare "${runs[0]}" "${runs[1]}"
else
    echo "== (MLFLOW_TRACKING_URI=http://127.0.0.1:15000 make demo also trains two runs on two releases,"
    echo "   tracked in MLflow, and compares them; scripts/services.sh starts that server)"
fi
echo "== quality report (lakemix report)"
$bin/lakemix report
echo "== dbt docs generate"
$bin/dbt docs generate --static --quiet

echo "== lakehouse"
$bin/lakemix tables
home=$($bin/python -c 'from lakemix import Settings; print(Settings.from_env().home)')
cat <<MSG

lakehouse:   $home  (Iceberg catalog $home/catalog.db, data $home/warehouse)
results:     marts.fct_clean_documents, fct_document_rejections, dim_sources, dim_languages,
             dim_duplicate_clusters, mix_demo_temperature(_languages), mix_demo_unimax(_languages)
             (.venv/bin/lakemix tables)
query:       .venv/bin/lakemix sql "select language, raw_document_count, clean_document_count from marts.dim_languages order by raw_document_count desc"
             (read-only SQL over every table; --at TAG for a release)
release:     $tag (.venv/bin/lakemix show $tag; lakemix lineage <document_id>)
             not validated by reviewers ("--accept-unvalidated $unreviewed", in its manifest);
             to review: .venv/bin/lakemix review sample --mix demo_unimax --n 10 --output sample.csv
             then fill in its verdict column and .venv/bin/lakemix review label --csv sample.csv
docs site:   $(pwd)/target/static_index.html  (with column lineage: .venv/bin/lakemix docs --mix demo_unimax)
report:      $home/reports/quality-current.html  (lakemix report [--tag TAG])
search:      .venv/bin/lakemix search "query" [--language de] [--include-rejected]
notebook:    $(pwd)/analyses/explore.ipynb  (make notebook starts JupyterLab on it)
demo took $(( $(date +%s) - start )) s
MSG
