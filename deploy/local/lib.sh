# shellcheck shell=bash
# Shared helpers for the local real-infrastructure scripts (sourced, not executed).
# Every progress line goes to stderr with the "[stack]" prefix.

LOCAL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$LOCAL_DIR/../.." && pwd)"
CC_DATA_DIR="${CC_DATA_DIR:-$REPO_ROOT/.data}"
CC_CACHE_DIR="${CC_CACHE_DIR:-$REPO_ROOT/.cache}"

log() { printf '[stack] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' is required but not on PATH${2:+ ($2)}"; }

# port_open HOST PORT: true when something accepts TCP connections there.
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# pid_alive PIDFILE MARKER: prints the pid and succeeds when the pid in PIDFILE is alive
# and its command line contains MARKER (guards against stale files and reused pids).
# A stale pid file is removed.
pid_alive() {
  local pidfile=$1 marker=$2 pid cmdline=""
  [[ -s $pidfile ]] || return 1
  pid=$(<"$pidfile")
  if [[ $pid =~ ^[0-9]+$ ]]; then cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true); fi
  if [[ -n $cmdline && $cmdline == *"$marker"* ]] && kill -0 "$pid" 2>/dev/null; then
    echo "$pid"
    return 0
  fi
  log "removing stale pid file $pidfile (pid ${pid:-?} is not running or is not ours)"
  rm -f "$pidfile"
  return 1
}

# spawn PIDFILE LOGFILE CMD...: start CMD detached (own session, stdin closed, output appended
# to LOGFILE); the child writes its own pid to PIDFILE before exec'ing CMD.
spawn() {
  local pidfile=$1 logfile=$2
  shift 2
  rm -f "$pidfile"
  # keep one previous log when it has grown past 20 MB
  if [[ -f $logfile ]] && (($(stat -c %s "$logfile") > 20971520)); then mv -f "$logfile" "$logfile.1"; fi
  # shellcheck disable=SC2016 # expanded by the child shell
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' spawn "$pidfile" "$@" </dev/null >>"$logfile" 2>&1 &
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s $pidfile ]] && return 0
    sleep 0.1
  done
  die "process did not start (no pid file $pidfile); see $logfile"
}

# stop_pid NAME PIDFILE MARKER [GRACE_SECONDS]: SIGTERM, wait, SIGKILL after the grace period.
stop_pid() {
  local name=$1 pidfile=$2 marker=$3 grace=${4:-30} pid i
  if ! pid=$(pid_alive "$pidfile" "$marker"); then
    log "$name: not running"
    rm -f "$pidfile"
    return 0
  fi
  log "$name: stopping (SIGTERM to pid $pid, up to ${grace}s)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 1; i <= grace * 2; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    ((i % 10 == 0)) && log "$name: waiting for pid $pid to exit ($((i / 2))s)"
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name: still running after ${grace}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
  fi
  rm -f "$pidfile"
  log "$name: stopped"
}

# kill_tree PID [SIGNAL]: signal PID and every descendant (a Go build's compilers, Maven's JVM).
# The parent is stopped first so it cannot start new children while they are being signalled.
kill_tree() {
  local pid=$1 sig=${2:-TERM} child
  kill -STOP "$pid" 2>/dev/null || return 0
  for child in $(pgrep -P "$pid" 2>/dev/null); do kill_tree "$child" "$sig"; done
  kill "-$sig" "$pid" 2>/dev/null || true
  kill -CONT "$pid" 2>/dev/null || true
}

# with_progress LABEL LOGFILE CMD...: run CMD with output to LOGFILE, printing a progress line
# every 10 s; on failure print the tail of LOGFILE and return CMD's status. CMD runs in the
# background, where a non-interactive shell ignores SIGINT for it, so Ctrl-C (SIGINT) or SIGTERM
# to this shell kills CMD's whole process tree explicitly before exiting.
with_progress() {
  local label=$1 logfile=$2
  shift 2
  local start=$SECONDS rc=0
  "$@" >"$logfile" 2>&1 &
  local pid=$!
  # shellcheck disable=SC2064 # the pid is fixed now
  trap "log '$label: interrupted, stopping it'; kill_tree $pid; wait $pid 2>/dev/null; exit 130" INT TERM
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if (((SECONDS - start) % 10 == 0)) && kill -0 "$pid" 2>/dev/null; then
      log "$label: still working ($((SECONDS - start))s)"
    fi
  done
  wait "$pid" || rc=$?
  trap - INT TERM
  if ((rc != 0)); then
    log "$label: FAILED (exit $rc) after $((SECONDS - start))s; last lines of $logfile:"
    tail -n 30 "$logfile" | sed 's/^/[stack]   /' >&2
  else
    log "$label: done in $((SECONDS - start))s"
  fi
  return "$rc"
}
