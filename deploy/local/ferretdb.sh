#!/usr/bin/env bash
# FerretDB 1.x (MongoDB wire protocol) on PostgreSQL (postgres.sh), built from source with Go, no Docker.
#
#   deploy/local/ferretdb.sh {build|start|stop|status|reset}
#
# Env: CC_DATA_DIR (default <repo>/.data), CC_CACHE_DIR (default <repo>/.cache),
#      MONGO_PORT (27017), FERRETDB_DEBUG_PORT (8088; "off" disables the metrics/pprof listener),
#      POSTGRES_PORT (55432), FERRETDB_VERSION (v1.24.2), FERRETDB_LOG_LEVEL (warn),
#      FERRETDB_GOGC (400).
#
# Why not plain `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2`: the module
# zip lacks the generated build/version/version.txt, so such a binary panics at start-up
# ("Invalid build/version/version.txt file content"). We take the same module source from the
# Go module proxy (`go mod download`), add version.txt, and `go build` it into the cache.
#
# Why PostgreSQL, not SQLite: FerretDB's SQLite handler reads and decodes the whole collection for any
# filter other than `_id` alone (indexed findOne: 12/s against 880/s on PostgreSQL, same machine).
#
# Six local patches (deploy/local/patches; deploy/local/README.md says why, and which test or measurement shows it):
# - ferretdb-1.24-atomic-writes.patch: update, findAndModify and delete read and then write in separate
#   steps, so two connections' conditional updates of one document could both succeed. The patch runs
#   those commands one at a time per document (by `_id`; a filter without a plain `_id` locks the whole
#   collection); each is then atomic for its document.
# - ferretdb-1.24-bulk-update-connections.patch: an `update` command kept each statement's query (and its
#   pooled connection) open until the whole command returned, so a bulk of more updates than the pool
#   holds waited forever for one more connection.
# - ferretdb-1.24-postgresql-gin-pushdown.patch: equality filters are pushed down as `field @> value`
#   with the field a parameter, and indexes are btrees, so no pushed-down filter could use an index.
#   The patch inlines the (quoted) field, builds GIN jsonb_path_ops indexes, and uses `=` for `_id`.
# - ferretdb-1.24-resource-tracking-off.patch: FerretDB's leak check for its tests (a stack trace and a
#   finalizer for every iterator, query and connection) ran in release builds too; now in debug builds only.
# - ferretdb-1.24-sjson-go-json.patch: documents are encoded to and decoded from PostgreSQL's JSON with
#   goccy/go-json instead of encoding/json (decoding was a quarter to a third of FerretDB's CPU under load).
# - ferretdb-1.24-postgresql-single-statement.patch: a write of one statement (one document's update, one
#   multi-row insert) runs without BEGIN and COMMIT around it (PostgreSQL makes it atomic by itself).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FERRETDB_VERSION="${FERRETDB_VERSION:-v1.24.2}"
MONGO_PORT="${MONGO_PORT:-27017}"
FERRETDB_DEBUG_PORT="${FERRETDB_DEBUG_PORT:-8088}"
FERRETDB_LOG_LEVEL="${FERRETDB_LOG_LEVEL:-warn}"
# Go's GC target for FerretDB: at Go's default (100) its collector took ~14 % of the process's CPU under
# routing's load with a heap of a few tens of MB; 400 trades ~4x that small heap for most of that CPU.
FERRETDB_GOGC="${FERRETDB_GOGC:-400}"
FERRETDB_MODULE=github.com/FerretDB/FerretDB

# Local patches applied to the module source before the build (deploy/local/patches); their names are
# part of the cache path, so changing the set rebuilds.
FPATCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/patches"
FPATCHES=(
  "$FPATCH_DIR/ferretdb-1.24-atomic-writes.patch"
  "$FPATCH_DIR/ferretdb-1.24-bulk-update-connections.patch"
  "$FPATCH_DIR/ferretdb-1.24-postgresql-gin-pushdown.patch"
  "$FPATCH_DIR/ferretdb-1.24-resource-tracking-off.patch"
  "$FPATCH_DIR/ferretdb-1.24-sjson-go-json.patch"
  "$FPATCH_DIR/ferretdb-1.24-postgresql-single-statement.patch"
)
# FBUILD_REV: bump when the build recipe changes, so a binary built by an older recipe is not reused (rev 2:
# rev 1 ran `git apply` inside the project's checkout, which silently skipped every patch, see ferretdb_build).
FBUILD_REV=2
FHOME="$CC_CACHE_DIR/ferretdb-$FERRETDB_VERSION-p$({ echo "rev $FBUILD_REV"; cat "${FPATCHES[@]}"; } | cksum | cut -d' ' -f1)"
FBIN="$FHOME/bin/ferretdb"
POSTGRES_PORT="${POSTGRES_PORT:-55432}"
FDATA="$CC_DATA_DIR/ferretdb-pg"
FSTATE="$FDATA/state"
FPID="$FDATA/ferretdb.pid"
FLOG="$FDATA/ferretdb.log"
# FerretDB maps each MongoDB database to a schema of PostgreSQL's own `postgres` database.
FPGURL="postgres://ferretdb@127.0.0.1:$POSTGRES_PORT/postgres"
# Matches any build (patch sets change the binary path) serving this PostgreSQL.
FMARKER="--handler=postgresql --postgresql-url=$FPGURL"
# Before the PostgreSQL handler, the local store was FerretDB on SQLite in .data/ferretdb. Its data is
# never migrated nor deleted here; an old server still running from it is stopped by `stop`.
LEGACY_FDATA="$CC_DATA_DIR/ferretdb"
LEGACY_FPID="$LEGACY_FDATA/ferretdb.pid"
LEGACY_FMARKER="--handler=sqlite --sqlite-url=file:$LEGACY_FDATA/sqlite/"

legacy_notice() {
  [[ -d $LEGACY_FDATA/sqlite ]] &&
    log "ferretdb: old SQLite store data left in place, not migrated: $LEGACY_FDATA (delete it when you no longer need it)"
  return 0
}

binary_ok() {
  [[ -x $FBIN ]] || return 1
  local out
  out=$("$FBIN" --version 2>/dev/null) || return 1
  [[ $'\n'$out$'\n' == *$'\n'"version: $FERRETDB_VERSION"$'\n'* ]]
}

ferretdb_build() {
  if binary_ok; then
    log "ferretdb: $FERRETDB_VERSION binary cached at $FBIN"
    return 0
  fi
  need go "Go 1.24+ (apt-get install golang, or https://go.dev/dl)"
  mkdir -p "$FHOME"
  log "ferretdb: downloading $FERRETDB_MODULE@$FERRETDB_VERSION source from the Go module proxy"
  local json dir
  json=$(cd "$FHOME" && GOFLAGS='' GOWORK=off go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION") ||
    die "ferretdb: go mod download failed"
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json" | head -n 1)
  [[ -n $dir && -d $dir ]] || die "ferretdb: module directory not found in: $json"
  rm -rf "$FHOME/src"
  cp -R "$dir" "$FHOME/src"
  chmod -R u+w "$FHOME/src"
  echo "$FERRETDB_VERSION" >"$FHOME/src/build/version/version.txt"
  local commit
  commit=$(sed -n 's/^[[:space:]]*"Hash": "\([0-9a-f]*\)",\{0,1\}$/\1/p' <<<"$json" | head -n 1)
  [[ -n $commit ]] && echo "$commit" >"$FHOME/src/build/version/commit.txt"
  local p
  for p in "${FPATCHES[@]}"; do
    log "ferretdb: applying $(basename "$p")"
    # The source sits under .cache, inside the project's own git checkout: without a ceiling, `git apply`
    # finds that repository, takes the patch's paths as relative to its top and silently skips them all
    # (exit 0). The ceiling makes it a plain patch tool; the reverse check proves the patch is in.
    (cd "$FHOME/src" && export GIT_CEILING_DIRECTORIES="$FHOME" &&
      git apply --whitespace=nowarn "$p" && git apply --reverse --check "$p") ||
      die "ferretdb: patch $p does not apply"
  done
  log "ferretdb: compiling $FERRETDB_VERSION (first time: downloads Go dependencies, takes a few minutes on 2 cores)"
  mkdir -p "$FHOME/bin"
  (
    cd "$FHOME/src"
    with_progress "ferretdb: go build ./cmd/ferretdb" "$FHOME/build.log" \
      env GOFLAGS=-mod=readonly GOWORK=off go build -trimpath -buildvcs=false -o "$FBIN.tmp" ./cmd/ferretdb
  ) || die "ferretdb: build failed (see $FHOME/build.log)"
  mv -f "$FBIN.tmp" "$FBIN"
  binary_ok || die "ferretdb: built binary does not report $FERRETDB_VERSION: $("$FBIN" --version 2>&1 | head -n 3)"
  rm -rf "$FHOME/src" # the Go build cache keeps rebuilds cheap; the binary is all we need
  log "ferretdb: built $FBIN ($(du -h "$FBIN" | cut -f1))"
}

ferretdb_start() {
  local pid
  if pid=$(pid_alive "$FPID" "$FMARKER"); then
    log "ferretdb: already running (pid $pid, 127.0.0.1:$MONGO_PORT)"
    return 0
  fi
  binary_ok || ferretdb_build
  port_open 127.0.0.1 "$MONGO_PORT" &&
    die "ferretdb: port $MONGO_PORT is already in use by another process (set MONGO_PORT, or MONGO_URL to use an existing server)"
  local debug_addr=-
  if [[ $FERRETDB_DEBUG_PORT != off && $FERRETDB_DEBUG_PORT != 0 ]]; then
    debug_addr="127.0.0.1:$FERRETDB_DEBUG_PORT"
    port_open 127.0.0.1 "$FERRETDB_DEBUG_PORT" &&
      die "ferretdb: debug port $FERRETDB_DEBUG_PORT is in use (set FERRETDB_DEBUG_PORT=<port> or FERRETDB_DEBUG_PORT=off)"
  fi
  legacy_notice
  mkdir -p "$FSTATE"
  log "ferretdb: starting $FERRETDB_VERSION on 127.0.0.1:$MONGO_PORT (PostgreSQL 127.0.0.1:$POSTGRES_PORT, debug ${debug_addr/#-/off}, log $FLOG)"
  spawn "$FPID" "$FLOG" env GOGC="$FERRETDB_GOGC" "$FBIN" --handler=postgresql --postgresql-url="$FPGURL" \
    --listen-addr="127.0.0.1:$MONGO_PORT" --state-dir="$FSTATE" --debug-addr="$debug_addr" \
    --telemetry=disable --log-level="$FERRETDB_LOG_LEVEL" --log-format=text
  log "ferretdb: started (pid $(<"$FPID")); readiness: deploy/local/stack.sh wait"
}

ferretdb_status() {
  local pid
  if pid=$(pid_alive "$FPID" "$FMARKER"); then
    echo "ferretdb: running (pid $pid, 127.0.0.1:$MONGO_PORT)"
  else
    echo "ferretdb: stopped"
    return 3
  fi
}

ferretdb_stop() {
  stop_pid ferretdb "$FPID" "$FMARKER" 30
  if pid_alive "$LEGACY_FPID" "$LEGACY_FMARKER" >/dev/null 2>&1; then
    stop_pid "ferretdb (old SQLite store)" "$LEGACY_FPID" "$LEGACY_FMARKER" 30
  fi
}

# The documents live in PostgreSQL (postgres.sh reset deletes them); this folder holds FerretDB's state.
ferretdb_reset() {
  ferretdb_stop
  log "ferretdb: deleting $FDATA"
  rm -rf "$FDATA"
  legacy_notice
}

case "${1:-}" in
build) ferretdb_build ;;
start) ferretdb_start ;;
stop) ferretdb_stop ;;
status) ferretdb_status ;;
reset) ferretdb_reset ;;
*)
  echo "usage: $0 {build|start|stop|status|reset}" >&2
  exit 2
  ;;
esac
