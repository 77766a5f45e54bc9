# Sourced by scripts/test.sh: start a throw-away PostgreSQL on loopback for the store tests.
# Exports ARENA_TEST_PG_URL and appends a stop command to ARENA_SERVICE_STOPS. Never fails the
# run: without root (to install, and to run the server as the `postgres` user) it only prints a
# note, and the PostgreSQL tests skip with that reason.

_arena_pg_start() {
  if [ "$(id -u)" != 0 ]; then
    echo "postgres.sh: not root; PostgreSQL store tests will be skipped" >&2
    return 0
  fi
  local bindir
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bindir" ]; then
    echo "postgres.sh: installing Debian's postgresql" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }; then
      echo "postgres.sh: apt-get install postgresql failed; PostgreSQL store tests will be skipped" >&2
      return 0
    fi
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  fi
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres || true
  local dir port
  dir=$(mktemp -d /tmp/arena-pg.XXXXXX)
  if ! chown postgres "$dir"; then
    echo "postgres.sh: no 'postgres' user to run the server; PostgreSQL store tests will be skipped" >&2
    return 0
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if ! su postgres -s /bin/sh -c "'$bindir/initdb' -D '$dir/data' -U postgres -A trust -E UTF8 >'$dir/initdb.log' 2>&1"; then
    echo "postgres.sh: initdb failed (see $dir/initdb.log); PostgreSQL store tests will be skipped" >&2
    return 0
  fi
  if ! su postgres -s /bin/sh -c "'$bindir/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 60 \
        -o \"-c listen_addresses=127.0.0.1 -p $port -k '$dir' -c fsync=off\" start >/dev/null"; then
    echo "postgres.sh: server did not start (see $dir/server.log); PostgreSQL store tests will be skipped" >&2
    return 0
  fi
  su postgres -s /bin/sh -c "'$bindir/createdb' -h 127.0.0.1 -p $port -U postgres arena_test" || {
    echo "postgres.sh: createdb failed; PostgreSQL store tests will be skipped" >&2
    su postgres -s /bin/sh -c "'$bindir/pg_ctl' -D '$dir/data' -m fast stop" >/dev/null 2>&1 || true
    return 0
  }
  export ARENA_TEST_PG_URL="postgresql+psycopg://postgres@127.0.0.1:$port/arena_test"
  ARENA_SERVICE_STOPS+=("su postgres -s /bin/sh -c \"'$bindir/pg_ctl' -D '$dir/data' -m fast stop\" >/dev/null; rm -rf '$dir'")
  echo "postgres.sh: PostgreSQL on 127.0.0.1:$port (ARENA_TEST_PG_URL set)" >&2
}
declare -p ARENA_SERVICE_STOPS >/dev/null 2>&1 || ARENA_SERVICE_STOPS=()
_arena_pg_start
unset -f _arena_pg_start
