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

# Two tiny training runs on two releases made under two filter settings, tracked in MLflow and
# compared: the project's filters (A: floors and the trained quality model) and FineWeb's
# hand-set families (B: Gopher quality and repetition, C4, FineWeb). The
# tracking server of scripts/services.d/50-mlflow.sh starts meanwhile (installed once per
# machine), unless MLFLOW_TRACKING_URI names one already.
filters_b='{lakemix_filter_families: [language, gopher_quality, gopher_repetition, c4, fineweb]}'
refilter=int_documents_quality_filtered+
if [ -z "${MLFLOW_TRACKING_URI:-}" ]; then
    : >"$LOGS/mlflow.env"
    LAKEMIX_SERVICES_ENV=$LOGS/mlflow.env bash scripts/services.d/50-mlflow.sh \
        >"$LOGS/mlflow-server.log" 2>&1 &
    mlflow_starting=$!
fi
tag="demo-$(date -u +%Y%m%d-%H%M%S)"
# The accuracy objective (severity error) wants 133 good reviewer verdicts on the mix's kept
# documents; the sample corpus keeps about 30 and has no reviewers, so the demo releases without
# them and says why: the reason goes into the manifest (lakemix show).
unreviewed="sample corpus: no reviewers"
seconds() { echo $(( $(date +%s) - $1 )); }

echo "== dbt build"
$bin/dbt build --quiet
echo "== a second filter setting (B: $filters_b): filtering and what follows it only"
second=$(date +%s)
$bin/dbt build --quiet --select "$refilter" --vars "$filters_b"
$bin/lakemix mix build demo_unimax > "$LOGS/mix-demo_unimax-b.log" 2>&1 ||
    { cat "$LOGS/mix-demo_unimax-b.log"; exit 1; }
$bin/lakemix release demo_unimax --tag "$tag-b" --accept-unvalidated "$unreviewed" \
    > "$LOGS/release-b.log" 2>&1 ||
    { cat "$LOGS/release-b.log"; exit 1; }
head -n 1 "$LOGS/release-b.log"
echo "   and back to the project's filters (A)"
$bin/dbt build --quiet --select "$refilter"
second=$(seconds "$second")
echo "== mixes (mixes/*.yml)"
for mix in demo_temperature demo_unimax; do
    $bin/lakemix mix build "$mix" > "$LOGS/mix-$mix.log" 2>&1 || { cat "$LOGS/mix-$mix.log"; exit 1; }
    head -n 14 "$LOGS/mix-$mix.log"
    echo "   ..."
done
echo "== release (lakemix release; see lakemix versions, show, diff, rebuild)"
$bin/lakemix release demo_unimax --tag "$tag" --accept-unvalidated "$unreviewed"

if [ -n "${mlflow_starting:-}" ]; then
    wait "$mlflow_starting" || { cat "$LOGS/mlflow-server.log"; exit 1; }
    source "$LOGS/mlflow.env"
    export MLFLOW_TRACKING_URI=$LAKEMIX_TEST_MLFLOW_URI
fi
echo "== two tiny runs, A on $tag and B on $tag-b, tracked in MLflow ($MLFLOW_TRACKING_URI)"
training=$(date +%s)
# Side by side: each run is one process (no loader workers), the machine has two cores.
releases=("$tag" "$tag-b")
trainings=()
for release in "${releases[@]}"; do
    MLFLOW_EXPERIMENT_NAME=lakemix-demo $bin/python examples/train_tiny.py --mix demo_unimax \
        --tag "$release" --out "${LAKEMIX_HOME:-lakehouse}/runs/$release" --steps 20 \
        --checkpoint-every 10 --seq-len 32 --num-workers 0 > "$LOGS/train-$release.log" 2>&1 &
    trainings+=("$!")
done
runs=()
for i in 0 1; do
    release=${releases[$i]}
    wait "${trainings[$i]}" || { cat "$LOGS/train-$release.log"; exit 1; }
    run=$(sed -n 's/^mlflow run \([0-9a-f]*\) at .*/\1/p' "$LOGS/train-$release.log")
    [ -n "$run" ] || { cat "$LOGS/train-$release.log"; echo "demo: the run was not tracked" >&2; exit 1; }
    runs+=("$run")
done
echo "\$ lakemix compare ${runs[0]} ${runs[1]}"
$bin/lakemix compare "${runs[0]}" "${runs[1]}"
training=$(seconds "$training")
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
MLflow UI:   $MLFLOW_TRACKING_URI  (experiment lakemix-demo: the two runs, each release as a dataset input)
runs:        .venv/bin/lakemix runs --tracking-uri $MLFLOW_TRACKING_URI
compare:     .venv/bin/lakemix compare --tracking-uri $MLFLOW_TRACKING_URI ${runs[0]} ${runs[1]}
             (A on $tag, B on $tag-b: metrics, settings and the data difference)
docs site:   $(pwd)/target/static_index.html  (with column lineage: .venv/bin/lakemix docs --mix demo_unimax)
report:      $home/reports/quality-current.html  (lakemix report [--tag TAG])
search:      .venv/bin/lakemix search "query" [--language de] [--include-rejected]
notebook:    $(pwd)/analyses/explore.ipynb  (make notebook starts JupyterLab on it)
demo took $(seconds "$start") s (of which the second filter setting ${second} s, the two runs and compare ${training} s)
MSG
