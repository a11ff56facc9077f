#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `start` prints `export AGENTLOOP_TEST_PG_URL=…`
# (eval it), `stop DIR` tears it down. PostgreSQL refuses to run as root, so as root the cluster
# belongs to the unprivileged `postgres` user; it listens on 127.0.0.1 and a free port only, with
# trust auth (nothing but this machine's loopback reaches it) and fsync off (a test cluster).
set -euo pipefail

bindir() {
  if command -v pg_ctl >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v pg_ctl)")"; return; fi
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$dir" ] || { echo "pg-cluster: PostgreSQL is not installed (Debian package postgresql)" >&2; exit 1; }
  echo "$dir"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    BIN=$(bindir)
    DIR=$(mktemp -d /tmp/agentloop-pg.XXXXXX)
    chmod 755 "$DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$DIR"
    PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
    as_owner "$BIN/initdb" -D "$DIR/data" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; exit 1; }
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
    echo "export AGENTLOOP_TEST_PG_URL=postgres://postgres@127.0.0.1:$PORT/postgres"
    echo "export AGENTLOOP_TEST_PG_DIR=$DIR"
    ;;
  stop)
    DIR="${2:?usage: pg-cluster.sh stop DIR}"
    BIN=$(bindir)
    as_owner "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
    ;;
  *)
    echo "usage: scripts/pg-cluster.sh start | stop DIR" >&2
    exit 2
    ;;
esac
