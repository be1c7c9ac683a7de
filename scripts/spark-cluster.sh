#!/usr/bin/env bash
# A Spark standalone cluster on this machine, from the pip pyspark: one master and two workers,
# each its own JVM, with the Iceberg runtime lakemix assembles offline (python/lakemix/spark/
# runtime.py) on the classpath of the workers and of the executors they launch.
#
#   scripts/spark-cluster.sh start    start what is not running; wait until both workers registered
#   scripts/spark-cluster.sh stop     stop the master and the workers this script started
#   scripts/spark-cluster.sh status   the master's state and its alive workers (exit 1 when down)
#
# Then: LAKEMIX_SPARK_MASTER=spark://127.0.0.1:7077 lakemix spark dbt build
#
# Settings (environment): LAKEMIX_PYTHON (the venv python; default .venv/bin/python),
# LAKEMIX_SPARK_CLUSTER_DIR (pid files, logs, work folders; default
# ~/.local/state/lakemix/spark-cluster), LAKEMIX_SPARK_CLUSTER_PORT (7077),
# LAKEMIX_SPARK_CLUSTER_UI_PORT (7080; the workers take the next two ports),
# LAKEMIX_SPARK_WORKER_CORES (1), LAKEMIX_SPARK_WORKER_MEMORY (2g).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${LAKEMIX_PYTHON:-$root/.venv/bin/python}
state=${LAKEMIX_SPARK_CLUSTER_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/lakemix/spark-cluster}
port=${LAKEMIX_SPARK_CLUSTER_PORT:-7077}
ui_port=${LAKEMIX_SPARK_CLUSTER_UI_PORT:-7080}
cores=${LAKEMIX_SPARK_WORKER_CORES:-1}
memory=${LAKEMIX_SPARK_WORKER_MEMORY:-2g}
workers=2
master_url="spark://127.0.0.1:$port"
master_json="http://127.0.0.1:$ui_port/json/"

say() { echo "spark-cluster: $*"; }
fail() { echo "spark-cluster: $*" >&2; exit 1; }

# How many workers the master lists as ALIVE (0 when the master does not answer).
alive_workers() {
    curl -fsS --max-time 3 "$master_json" 2>/dev/null \
        | "$python" -c 'import json, sys; print(sum(w["state"] == "ALIVE" for w in json.load(sys.stdin)["workers"]))' \
        2>/dev/null || echo 0
}

master_answers() { curl -fsS --max-time 3 "$master_json" >/dev/null 2>&1; }

running() { [ -f "$state/$1.pid" ] && kill -0 "$(cat "$state/$1.pid")" 2>/dev/null; }

# Start one daemon (a separate JVM) in the background, detached from this shell.
launch() {
    local name=$1
    shift
    : >"$state/$name.log"
    setsid nohup "$spark_home/bin/spark-class" "$@" >>"$state/$name.log" 2>&1 </dev/null &
    echo $! >"$state/$name.pid"
    echo "$python" >"$state/python"  # the venv the daemons run from
}

start() {
    [ -x "$python" ] || fail "no Python at $python: run \`make venv\` or set LAKEMIX_PYTHON"
    spark_home=$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))') \
        || fail "pyspark is not installed in $python: run \`make venv\`"
    command -v java >/dev/null || fail "no java: apt-get install openjdk-17-jre-headless"
    local jars
    jars=$(PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" "$python" -c \
        'from lakemix.spark.runtime import iceberg_runtime_jars as j; print(":".join(map(str, j(log=False))))') \
        || fail "the Iceberg runtime could not be assembled (see above)"
    mkdir -p "$state"
    # The daemons and the executors the workers launch: the Iceberg runtime on the classpath,
    # the venv's Python for PySpark, the loopback address only.
    export SPARK_DIST_CLASSPATH=$jars
    export PYSPARK_PYTHON=$python
    export SPARK_LOCAL_IP=127.0.0.1
    export SPARK_DAEMON_MEMORY=${SPARK_DAEMON_MEMORY:-512m}
    export SPARK_LOG_DIR=$state SPARK_PID_DIR=$state

    # Daemons started from another checkout's venv that is gone since (a deleted clone) would
    # launch executors from missing files: stop them and start this venv's. From another venv
    # that still exists, they keep running (another checkout may be using them), and say so.
    if [ -f "$state/python" ] && [ "$(cat "$state/python")" != "$python" ]; then
        local before
        before=$(cat "$state/python")
        if [ -x "$before" ]; then
            say "warning: the cluster runs $before, not $python; \`$0 stop\` first to run this checkout's code on it"
        else
            say "the cluster's Python $before is gone: restarting it with $python"
            stop
        fi
    fi

    if master_answers; then
        say "master already running on $master_url"
    else
        running master && fail "master (pid $(cat "$state/master.pid")) runs but does not answer on $master_json: stop it first"
        launch master org.apache.spark.deploy.master.Master \
            --host 127.0.0.1 --port "$port" --webui-port "$ui_port"
        for _ in $(seq 1 60); do master_answers && break; sleep 1; done
        master_answers || fail "the master did not answer on $master_json within 60 s; see $state/master.log"
        say "master started on $master_url (UI http://127.0.0.1:$ui_port)"
    fi
    for i in $(seq 1 $workers); do
        if running "worker$i"; then
            continue
        fi
        mkdir -p "$state/work$i"
        launch "worker$i" org.apache.spark.deploy.worker.Worker "$master_url" \
            --host 127.0.0.1 --cores "$cores" --memory "$memory" \
            --webui-port $((ui_port + i)) --work-dir "$state/work$i"
    done
    for _ in $(seq 1 90); do
        [ "$(alive_workers)" -ge $workers ] && break
        sleep 1
    done
    local alive
    alive=$(alive_workers)
    [ "$alive" -ge $workers ] \
        || fail "$alive of $workers workers registered with $master_url within 90 s; see $state/worker*.log"
    say "$alive workers registered ($cores core(s), $memory each)"
}

stop() {
    local name pid
    for name in worker1 worker2 master; do
        running "$name" || { rm -f "$state/$name.pid"; continue; }
        pid=$(cat "$state/$name.pid")
        kill -- "-$pid" 2>/dev/null || kill "$pid"  # its process group: spark-class and the JVM
        for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        rm -f "$state/$name.pid"
        say "stopped $name (pid $pid)"
    done
}

status() {
    if ! master_answers; then
        say "no master answers on $master_json"
        exit 1
    fi
    say "master $master_url: $(alive_workers) alive worker(s)"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) fail "usage: $0 start|stop|status" ;;
esac
