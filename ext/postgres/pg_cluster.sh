# pg_cluster.sh — a throwaway PostgreSQL cluster for the extension's tests
# and benchmarks (sourced by run_tests.sh and bench/bench_pg.sh).
#
# cluster_create BUILD_DIR MAKE_ARGS...: installs the extension into a DESTDIR
#   tree under a new temp dir, creates a cluster as the postgres user
#   (PostgreSQL refuses root) with its Unix socket in the temp dir, and points
#   it at the tree with Debian's extension_destdir. Sets PGHOST, PGPORT,
#   PGUSER, pg_bindir, pg_tmp, pg_preload (the module's path, for
#   shared_preload_libraries). Registers cleanup on EXIT.
# cluster_start PRELOAD [EXTRA_CONF]: (re)starts with that
#   shared_preload_libraries and extra postgresql.conf lines (PG_START_ENV:
#   VAR=VALUE words added to the server's environment).
# cluster_stop: stops the server by its PID (SIGINT, then SIGKILL).
# Exit 77 (skip) only when PostgreSQL's server programs are missing.

pg_skip() { echo "SKIP: $*"; exit 77; }

cluster_create() {
    local build_dir=$1
    shift
    local pg_config=${PG_CONFIG:-pg_config} a
    for a in "$@"; do
        case $a in PG_CONFIG=*) pg_config=${a#PG_CONFIG=} ;; esac
    done
    command -v "$pg_config" >/dev/null 2>&1 || pg_skip "pg_config not found (install postgresql-server-dev-15)"
    pg_bindir=$("$pg_config" --bindir)
    for a in initdb pg_ctl postgres psql pgbench; do
        [ -x "$pg_bindir/$a" ] || pg_skip "$pg_bindir/$a not found (install postgresql-15)"
    done
    id postgres >/dev/null 2>&1 || pg_skip "no postgres user (install postgresql-15)"
    if [ "$(id -u)" = 0 ]; then
        as_pg() { runuser -u postgres -- "$@"; }
    elif [ "$(id -un)" = postgres ]; then
        as_pg() { "$@"; }
    else
        pg_skip "run as root (uses runuser -u postgres) or as postgres"
    fi

    pg_tmp=$(mktemp -d /tmp/toid-pg.XXXXXX)
    chmod 755 "$pg_tmp"
    trap cluster_cleanup EXIT
    umask 022
    make -C "$build_dir" "$@" install DESTDIR="$pg_tmp/dest" >"$pg_tmp/install.log" 2>&1 ||
        { cat "$pg_tmp/install.log"; exit 1; }
    mkdir -p "$pg_tmp/data" "$pg_tmp/sock" "$pg_tmp/log"
    chown postgres "$pg_tmp/data" "$pg_tmp/sock" "$pg_tmp/log"
    as_pg "$pg_bindir/initdb" -D "$pg_tmp/data" -A trust -U postgres -E UTF8 --locale=C --no-sync \
        >"$pg_tmp/initdb.log" 2>&1 || { cat "$pg_tmp/initdb.log"; exit 1; }
    # The socket lives in our own directory, so any port number is free
    # there; a random one keeps two runs apart in logs.
    PGPORT=$((20000 + RANDOM % 40000))
    cat >>"$pg_tmp/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$pg_tmp/sock'
extension_destdir = '$pg_tmp/dest'
max_connections = 40
CONF
    cp "$pg_tmp/data/postgresql.conf" "$pg_tmp/postgresql.conf.base"
    pg_preload="$pg_tmp/dest$("$pg_config" --pkglibdir)/toid"
    export PGHOST=$pg_tmp/sock PGPORT PGUSER=postgres
}

cluster_start() {
    cp "$pg_tmp/postgresql.conf.base" "$pg_tmp/data/postgresql.conf"
    printf "shared_preload_libraries = '%s'\n%s\n" "$1" "${2:-}" >>"$pg_tmp/data/postgresql.conf"
    # PG_START_ENV: VAR=VALUE words for the server's environment (libfaketime)
    # shellcheck disable=SC2086
    as_pg env ${PG_START_ENV:-} "$pg_bindir/pg_ctl" -D "$pg_tmp/data" -l "$pg_tmp/log/server.log" -w -t 120 start >/dev/null ||
        { cat "$pg_tmp/log/server.log"; exit 1; }
}

cluster_stop() {
    local pidfile=$pg_tmp/data/postmaster.pid pid
    [ -f "$pidfile" ] || return 0
    pid=$(head -1 "$pidfile")
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; return 0; }
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
}

cluster_cleanup() {
    cluster_stop
    rm -rf "$pg_tmp"
}
