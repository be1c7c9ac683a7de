#!/usr/bin/env bash
# Installs (Debian packages, when missing) and starts the servers the test suite needs:
# a PostgreSQL server for the Iceberg SQL catalog, Chromium (headless, for the docs-site
# test), and Java with the JDBC drivers Spark opens the catalog with. Writes the connection
# URI of a test role to $LAKEMIX_SERVICES_ENV (default .services.env). The role's random
# password is kept outside the checkout ($LAKEMIX_STATE_DIR, default /var/lib/lakemix) so
# every checkout on the machine agrees.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${LAKEMIX_SERVICES_ENV:-.services.env}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    echo "services: installing PostgreSQL (Debian package postgresql)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >/dev/null
fi
if [ ! -x /usr/bin/chromium ]; then
    echo "services: installing Chromium (Debian package chromium)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
fi
# The Spark engine: Java 17 and the JDBC drivers of the catalog databases (SQLite, PostgreSQL).
spark_packages=()
command -v java >/dev/null || spark_packages+=(openjdk-17-jre-headless)
[ -f /usr/share/java/sqlite-jdbc.jar ] || spark_packages+=(libxerial-sqlite-jdbc-java)
[ -f /usr/share/java/postgresql.jar ] || spark_packages+=(libpostgresql-jdbc-java)
if [ ${#spark_packages[@]} -gt 0 ]; then
    echo "services: installing ${spark_packages[*]} (Debian packages, for Spark)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${spark_packages[@]}" >/dev/null
fi
version=$(ls /usr/lib/postgresql | sort -V | tail -1)
if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$version main"; then
    as_root pg_createcluster "$version" main >/dev/null
fi
if ! pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $4}' | grep -q online; then
    as_root pg_ctlcluster "$version" main start
fi
port=$(pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $3}')
for _ in $(seq 1 30); do
    pg_isready -q -h 127.0.0.1 -p "$port" && break
    sleep 1
done
pg_isready -h 127.0.0.1 -p "$port" >/dev/null || { echo "services: PostgreSQL did not start on port $port" >&2; exit 1; }

state=${LAKEMIX_STATE_DIR:-/var/lib/lakemix}
as_root mkdir -p "$state"
if ! as_root test -s "$state/pg_test_password"; then
    head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | as_root tee "$state/pg_test_password" >/dev/null
    as_root chmod 600 "$state/pg_test_password"
fi
password=$(as_root cat "$state/pg_test_password")
psql_admin() { as_root su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -qtAc \"$1\""; }
if [ "$(psql_admin "select count(*) from pg_roles where rolname = 'lakemix_test'")" = 0 ]; then
    psql_admin "create role lakemix_test login createdb"
fi
psql_admin "alter role lakemix_test password '$password'"
umask 077
echo "export LAKEMIX_TEST_PG_URI='postgresql+psycopg2://lakemix_test:${password}@127.0.0.1:${port}/postgres'" > "$out"
echo "services: PostgreSQL $version on 127.0.0.1:$port (test role lakemix_test; URI in $out)"

# Further servers (object storage, tracking, labelling, ...): one script each in services.d,
# run in name order with the environment file to append their variables to.
for service in scripts/services.d/*.sh; do
    [ -e "$service" ] || continue
    LAKEMIX_SERVICES_ENV="$out" bash "$service"
done
