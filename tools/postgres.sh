#!/usr/bin/env bash
# A private PostgreSQL server on loopback for the tests (and for trying `--database` by
# hand): its own data folder, its own port, trust authentication for the `kiln` role,
# nothing of the machine's own clusters touched.
#
#   tools/postgres.sh start   start it (creating the cluster on first use); prints the URL
#   tools/postgres.sh url     print the URL
#   tools/postgres.sh stop    stop it
#
# KILN_POSTGRES_PORT (55432) and KILN_POSTGRES_DIR (/tmp/kiln-postgres-PORT) move it.
# Needs Debian's `postgresql` package (`make postgres` installs it). initdb refuses to run
# as root, so as root the server runs as the package's `postgres` user.
set -euo pipefail

port=${KILN_POSTGRES_PORT:-55432}
dir=${KILN_POSTGRES_DIR:-${TMPDIR:-/tmp}/kiln-postgres-$port}
url="postgres://kiln@127.0.0.1:$port/kiln?sslmode=disable"

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "tools/postgres.sh: no PostgreSQL server (apt-get install postgresql, or make postgres)" >&2
    exit 1
fi

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-start}" in
start)
    if [ ! -f "$dir/PG_VERSION" ]; then
        mkdir -p "$dir"
        [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
        as_owner "$bin/initdb" -D "$dir" -U kiln -A trust -E UTF8 --no-sync >"$dir.initdb.log" 2>&1 \
            || { cat "$dir.initdb.log" >&2; exit 1; }
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
        as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 30 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null \
            || { cat "$dir/server.log" >&2; exit 1; }
    fi
    if ! "$bin/psql" -h 127.0.0.1 -p "$port" -U kiln -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'kiln'" | grep -q 1; then
        "$bin/createdb" -h 127.0.0.1 -p "$port" -U kiln kiln
    fi
    echo "$url"
    ;;
url)
    echo "$url"
    ;;
stop)
    as_owner "$bin/pg_ctl" -D "$dir" -m fast stop >/dev/null 2>&1 || true
    ;;
*)
    echo "usage: tools/postgres.sh start|url|stop" >&2
    exit 2
    ;;
esac
