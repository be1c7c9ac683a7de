#!/usr/bin/env bash
# A Spark standalone cluster (a master and two workers, each its own JVM) for the Spark tests:
# scripts/spark-cluster.sh starts it unless it runs, and waits until both workers registered.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/spark-cluster.sh start
echo "export LAKEMIX_TEST_SPARK_MASTER=spark://127.0.0.1:${LAKEMIX_SPARK_CLUSTER_PORT:-7077}" >>"$LAKEMIX_SERVICES_ENV"
