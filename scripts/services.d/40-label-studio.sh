#!/usr/bin/env bash
# A Label Studio server (`label-studio==1.23.2`, Apache-2.0) for the tests and the demo, on
# 127.0.0.1, one per machine, shared by every checkout (../shared/REFERENCE.md: start flags, API).
#
# It runs from its own venv in a tool folder under $LAKEMIX_STATE_DIR (about 1 GB, Django 5.2):
# its pins must not enter the project's venv, which talks to it over plain HTTP. The legacy
# token (LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN) lets clients send `Authorization: Token ...`;
# the token is made here once and kept beside the data.
#
# Appends LAKEMIX_TEST_LABEL_STUDIO_URL and LAKEMIX_TEST_LABEL_STUDIO_TOKEN to
# $LAKEMIX_SERVICES_ENV. Stop it with `kill $(cat $state/label-studio/label-studio.pid)`.
set -euo pipefail
out=${LAKEMIX_SERVICES_ENV:?set LAKEMIX_SERVICES_ENV to the environment file to append to}
version=1.23.2
state=${LAKEMIX_STATE_DIR:-/var/lib/lakemix}
tools=$state/tools/label-studio-$version
home=$state/label-studio
port=18081
url=http://127.0.0.1:$port
user=lakemix@localhost

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! as_root test -e "$tools/.installed"; then
    echo "services: installing label-studio==$version into its own venv $tools (about 1 GB)"
    as_root python3 -m venv "$tools"
    # Every package pinned, installed without resolving (services.d/label-studio.lock).
    as_root "$tools/bin/pip" install -q --no-deps -r "$(dirname "$0")/label-studio.lock"
    as_root touch "$tools/.installed"
fi
as_root mkdir -p "$home/data"
if ! as_root test -s "$home/token"; then
    # 40 hex characters, as the legacy token wants; the password is only for the web UI.
    as_root bash -c "umask 077; python3 -c 'import secrets; print(secrets.token_hex(20))' >'$home/token'"
    as_root bash -c "umask 077; python3 -c 'import secrets; print(secrets.token_urlsafe(16))' >'$home/password'"
fi
token=$(as_root cat "$home/token")
password=$(as_root cat "$home/password")

running() {
    local pid
    pid=$(as_root cat "$home/label-studio.pid" 2>/dev/null) || return 1
    [ -n "$pid" ] && as_root test -r "/proc/$pid/cmdline" &&
        as_root tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "label-studio"
}
answers() { curl -sf -o /dev/null "$url/health"; }

if ! running; then
    if answers; then
        echo "services: port $port answers but no Label Studio of ours runs ($home/label-studio.pid)" >&2
        exit 1
    fi
    echo "services: starting Label Studio $version on $url (log $home/label-studio.log)"
    as_root env LABEL_STUDIO_BASE_DATA_DIR="$home/data" LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true \
        setsid bash -c 'echo $$ >"$0"; exec "$@"' "$home/label-studio.pid" \
        "$tools/bin/label-studio" start --no-browser --host 127.0.0.1 --port $port \
        --username "$user" --password "$password" --user-token "$token" \
        >"$home/label-studio.log" 2>&1 </dev/null &
fi

# The first start migrates its database: /health answers after 35-40 s here.
for _ in $(seq 1 240); do answers && break; sleep 1; done
answers || { echo "services: Label Studio did not answer on $url/health; see $home/label-studio.log" >&2; exit 1; }
echo "export LAKEMIX_TEST_LABEL_STUDIO_URL='$url'" >>"$out"
echo "export LAKEMIX_TEST_LABEL_STUDIO_TOKEN='$token'" >>"$out"
echo "services: Label Studio $version on $url (data $home/data)"
