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

# shellcheck source=daemon.bash
source "$(dirname "$0")/daemon.bash"

# Every package pinned, installed without resolving (services.d/label-studio.lock).
install_venv_once "$tools" "label-studio==$version (about 1 GB)" \
    --no-deps -r "$(dirname "$0")/label-studio.lock"
as_root mkdir -p "$home/data"
if ! as_root test -s "$home/token"; then
    # 40 hex characters, as the legacy token wants; the password is only for the web UI.
    as_root bash -c "umask 077; python3 -c 'import secrets; print(secrets.token_hex(20))' >'$home/token'"
    as_root bash -c "umask 077; python3 -c 'import secrets; print(secrets.token_urlsafe(16))' >'$home/password'"
fi
token=$(as_root cat "$home/token")
password=$(as_root cat "$home/password")

answers() { curl -sf -o /dev/null "$url/health"; }
daemon_start "Label Studio $version on $url" "$home/label-studio.pid" "label-studio" \
    "$home/label-studio.log" answers -- \
    env LABEL_STUDIO_BASE_DATA_DIR="$home/data" LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true \
    "$tools/bin/label-studio" start --no-browser --host 127.0.0.1 --port $port \
    --username "$user" --password "$password" --user-token "$token"

# The first start migrates its database: /health answers after 35-40 s here.
wait_until 240 "Label Studio on $url/health" "$home/label-studio.log" answers
echo "export LAKEMIX_TEST_LABEL_STUDIO_URL='$url'" >>"$out"
echo "export LAKEMIX_TEST_LABEL_STUDIO_TOKEN='$token'" >>"$out"
echo "services: Label Studio $version on $url (data $home/data)"
