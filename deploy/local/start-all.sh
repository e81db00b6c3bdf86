#!/usr/bin/env bash
# ./cc start: the local Kafka and store (unless KAFKA_BROKERS / MONGO_URL point elsewhere), then
# every service; Ctrl-C stops the services and whatever infrastructure this command started.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
started_stack=0
if ! bash "$here/stack.sh" status >/dev/null 2>&1; then started_stack=1; fi
bash "$here/stack.sh" start
eval "$(bash "$here/stack.sh" env)"
cleanup() {
  trap - INT TERM EXIT
  if [ -n "${runner_pid:-}" ]; then kill -TERM "$runner_pid" 2>/dev/null || true; wait "$runner_pid" 2>/dev/null || true; fi
  if [ "$started_stack" = 1 ]; then bash "$here/stack.sh" stop; fi
}
trap cleanup INT TERM EXIT
node --import tsx "$here/runner.ts" "$@" &
runner_pid=$!
wait "$runner_pid"
