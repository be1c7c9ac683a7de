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

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! as_root test -e "$tools/.installed"; then
    echo "services: installing mlflow==$version into its own venv $tools (a minute or two)"
    as_root python3 -m venv "$tools"
    as_root "$tools/bin/pip" install -q "mlflow==$version"
    as_root touch "$tools/.installed"
fi
as_root mkdir -p "$home/artifacts"

running() {
    local pid
    pid=$(as_root cat "$home/mlflow.pid" 2>/dev/null) || return 1
    [ -n "$pid" ] && as_root test -r "/proc/$pid/cmdline" &&
        as_root tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "mlflow server"
}
answers() { curl -sf -o /dev/null "$uri/health"; }

if ! running; then
    if answers; then
        echo "services: port $port answers but no MLflow server of ours runs ($home/mlflow.pid)" >&2
        exit 1
    fi
    echo "services: starting MLflow $version on $uri (log $home/mlflow.log)"
    # The shell writes its own PID, then becomes the server: the PID file names it.
    as_root setsid bash -c 'echo $$ >"$0"; exec "$@"' "$home/mlflow.pid" \
        "$tools/bin/mlflow" server \
        --backend-store-uri "sqlite:///$home/mlflow.db" \
        --artifacts-destination "$home/artifacts" \
        --host 127.0.0.1 --port $port --workers 2 \
        >"$home/mlflow.log" 2>&1 </dev/null &
fi

# The first start migrates the SQLite store: about 20 s here.
for _ in $(seq 1 120); do answers && break; sleep 1; done
answers || { echo "services: MLflow did not answer on $uri/health; see $home/mlflow.log" >&2; exit 1; }
echo "export LAKEMIX_TEST_MLFLOW_URI='$uri'" >>"$out"
echo "services: MLflow $version on $uri (store $home/mlflow.db, artifacts $home/artifacts)"
