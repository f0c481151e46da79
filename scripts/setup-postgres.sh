#!/usr/bin/env bash
# A throwaway PostgreSQL server for mlb's results-store tests (the postgres
# tier): a cluster initialised by `initdb` in its own folder, run as the
# unprivileged `postgres` user, listening on 127.0.0.1 only. Run as root.
#
#   scripts/setup-postgres.sh         # install (apt, first use) and start; idempotent
#   scripts/setup-postgres.sh stop    # stop the server and remove the cluster
#   scripts/setup-postgres.sh status  # exit 0 when the server answers
#
# Everything lives in ${MLB_POSTGRES_DIR:-/run/mlb-postgres}: the data folder,
# the socket and the log. The server listens on port ${MLB_POSTGRES_PORT:-55432};
# local socket connections are trusted, TCP ones need a password (SCRAM). The
# tests connect as the role `mlb` (password `mlb`, allowed to make databases)
# through the URL in MLB_TEST_POSTGRES, by default
#   postgres://mlb:mlb@127.0.0.1:55432/mlb
# and make a database of their own for each test. The role `mlb_reader`
# (password `mlb_reader`) may only read, every table of every database (the
# predefined role pg_read_all_data): `mlb serve`'s tests read through it.
set -euo pipefail

dir=${MLB_POSTGRES_DIR:-/run/mlb-postgres}
port=${MLB_POSTGRES_PORT:-55432}
data=$dir/data
timeout=${POSTGRES_SETUP_TIMEOUT:-60}

say() { echo "setup-postgres: $*"; }

bin() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$found" ] && echo "$found"
}

as_postgres() { runuser -u postgres -- "$@"; }

answers() {
    local b
    b=$(bin) || return 1
    [ -d "$data" ] && "$b/pg_isready" -q -h 127.0.0.1 -p "$port"
}

stop() {
    local b
    if b=$(bin) && [ -f "$data/postmaster.pid" ]; then
        as_postgres "$b/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
        say "stopped the server"
    fi
    rm -rf "$dir"
}

case "${1:-start}" in
    stop) stop; exit 0 ;;
    status) answers; exit $? ;;
    start) ;;
    *) echo "usage: $0 [start|stop|status]" >&2; exit 2 ;;
esac

# The read-only role, made when missing (a server started by an older
# version of this script has none).
reader() {
    as_postgres "$(bin)/psql" -q -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 <<'SQL'
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'mlb_reader') THEN
        CREATE ROLE mlb_reader LOGIN PASSWORD 'mlb_reader' IN ROLE pg_read_all_data;
    END IF;
END $$;
SQL
}

if answers; then
    if [ "$(id -u)" = 0 ]; then reader; fi
    say "the server is running on 127.0.0.1:$port"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "setup-postgres: the server is not running and this script needs root to install or start it" >&2
    exit 1
fi
if ! bin >/dev/null || ! id postgres >/dev/null 2>&1; then
    say "installing postgresql with apt"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q postgresql
fi
b=$(bin)

# A fresh cluster: stop what an earlier start left.
stop
mkdir -p "$dir"
chown postgres: "$dir"
chmod 0700 "$dir"
password_file=$dir/superuser-password
head -c 24 /dev/urandom | base64 >"$password_file"
chown postgres: "$password_file"
as_postgres "$b/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    --pwfile="$password_file" -E UTF8 --no-locale >"$dir/initdb.log"
as_postgres "$b/pg_ctl" -D "$data" -l "$dir/server.log" -w -t "$timeout" \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir" start >/dev/null
as_postgres "$b/psql" -q -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 <<'SQL'
CREATE ROLE mlb LOGIN CREATEDB PASSWORD 'mlb';
CREATE DATABASE mlb OWNER mlb;
SQL
reader

if answers; then
    say "the server is running on 127.0.0.1:$port (postgres://mlb:mlb@127.0.0.1:$port/mlb)"
    exit 0
fi
echo "setup-postgres: the server did not come up; logs in $dir" >&2
tail -n 20 "$dir/server.log" >&2 || true
exit 1
