#!/usr/bin/env bash
# An MLflow tracking server for the tests and the demo (`mlflow==3.17.2`; 3.18 does not install
# offline, ../shared/REFERENCE.md) on 127.0.0.1, one per machine, shared by every checkout.
#
# The server runs from its own venv in a tool folder under $LAKEMIX_STATE_DIR: the full mlflow
# package pins pyarrow and cachetools below the project's, and the one running server must not
# depend on which checkout's venv started it. The project's venv holds only the client
# (mlflow-skinny, in pyproject). Runs live in a SQLite backend store; artifacts are served by the
# server itself (--artifacts-destination), so clients upload them over HTTP like on any remote
# server rather than writing into the server's folder. Two workers: the machine has two cores.
#
# Appends LAKEMIX_TEST_MLFLOW_URI to $LAKEMIX_SERVICES_ENV. Stop it with
# `kill $(cat $state/mlflow/mlflow.pid)`.
set -euo pipefail
out=${LAKEMIX_SERVICES_ENV:?set LAKEMIX_SERVICES_ENV to the environment file to append to}
version=3.17.2
state=${LAKEMIX_STATE_DIR:-/var/lib/lakemix}
tools=$state/tools/mlflow-$version
home=$state/mlflow
port=15000
uri=http://127.0.0.1:$port

# shellcheck source=daemon.bash
source "$(dirname "$0")/daemon.bash"

install_venv_once "$tools" "mlflow==$version (a minute or two)" "mlflow==$version"
as_root mkdir -p "$home/artifacts"

answers() { curl -sf -o /dev/null "$uri/health"; }
daemon_start "MLflow $version on $uri" "$home/mlflow.pid" "mlflow server" "$home/mlflow.log" \
    answers -- "$tools/bin/mlflow" server \
    --backend-store-uri "sqlite:///$home/mlflow.db" \
    --artifacts-destination "$home/artifacts" \
    --host 127.0.0.1 --port $port --workers 2

# The first start migrates the SQLite store: about 20 s here.
wait_until 120 "MLflow on $uri/health" "$home/mlflow.log" answers
echo "export LAKEMIX_TEST_MLFLOW_URI='$uri'" >>"$out"
echo "services: MLflow $version on $uri (store $home/mlflow.db, artifacts $home/artifacts)"
