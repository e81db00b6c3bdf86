#!/usr/bin/env bash
# ./cc start: the local Kafka and store (unless KAFKA_BROKERS / MONGO_URL point elsewhere), then
# every service; Ctrl-C stops the services and whatever infrastructure this command started.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
started_stack=0
if ! bash "$here/stack.sh" status >/dev/null 2>&1; then started_stack=1; fi
# shellcheck source=lib.sh
source "$here/lib.sh" # kill_tree
# Set before anything starts: Ctrl-C during a first run's Kafka download or FerretDB build, or while
# the services start, stops all of it (stack.sh stops its own fetch/build; this stops the rest).
cleanup() {
  trap - INT TERM EXIT
  local child
  if [ -n "${runner_pid:-}" ]; then kill -TERM "$runner_pid" 2>/dev/null || true; wait "$runner_pid" 2>/dev/null || true; fi
  for child in $(pgrep -P $$ 2>/dev/null); do kill_tree "$child"; done
  wait 2>/dev/null || true
  if [ "$started_stack" = 1 ]; then bash "$here/stack.sh" stop; fi
}
trap cleanup INT TERM EXIT
bash "$here/stack.sh" start
eval "$(bash "$here/stack.sh" env)"
# Gateway dev settings: the demo seed on, and a sealing key for its signing keys generated once (kept in .data/).
if [ -z "${CC_ENCRYPTION_KEYS:-}" ]; then
  if [ ! -f .data/dev-keys.env ]; then
    mkdir -p .data
    (umask 077; echo "CC_ENCRYPTION_KEYS=dev1:$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64'))")" > .data/dev-keys.env)
  fi
  set -a; . .data/dev-keys.env; set +a
fi
export CC_DEMO_SEED="${CC_DEMO_SEED:-true}"
# The operator console the gateway serves at /console (rebuilt only when its sources changed).
node scripts/build-console.cjs
# Laptop suite only (demo seed on): `./cc simulate` runs its provider's https webhook receiver on loopback with a
# self-signed certificate made once in .data/dev-tls/; the notifier trusts it, and loopback endpoints pass the
# public-address rule. Set ENDPOINT_ALLOWLIST= (empty) or CC_DEMO_SEED=false to turn this off.
if [ "$CC_DEMO_SEED" = true ]; then
  if [ ! -f .data/dev-tls/cert.pem ] && command -v openssl >/dev/null; then
    mkdir -p .data/dev-tls
    (umask 077; openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 \
      -keyout .data/dev-tls/key.pem -out .data/dev-tls/cert.pem -subj /CN=localhost \
      -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null)
  fi
  [ -z "${NOTIFIER_EXTRA_CA_FILE:-}" ] && [ -f .data/dev-tls/cert.pem ] && export NOTIFIER_EXTRA_CA_FILE="$root/.data/dev-tls/cert.pem"
  export ENDPOINT_ALLOWLIST="${ENDPOINT_ALLOWLIST-127.0.0.1,localhost}"
fi
node --import tsx "$here/runner.ts" "$@" &
runner_pid=$!
token_hint() {
  local url="http://127.0.0.1:${PORT_GATEWAY:-${CC_PORT_BASE:-8080}}"
  until curl -fsS "$url/readyz" >/dev/null 2>&1; do kill -0 "$runner_pid" 2>/dev/null || return 0; sleep 2; done
  local id="${CC_DEMO_CLIENT_ID:-demo-client}" key="${CC_DEMO_V0_ACCOUNT_KEY:-demo}"
  local secret='demo-secret-change-me' v0='demo-v0-token-change-me'
  [ -n "${CC_DEMO_CLIENT_SECRET:-}" ] && secret='$CC_DEMO_CLIENT_SECRET'
  [ -n "${CC_DEMO_V0_API_TOKEN:-}" ] && v0='$CC_DEMO_V0_API_TOKEN'
  printf '%s\n' "[start] get a token (one scope per token: interactions:write, stats, interaction-content:read, admin, agent):" \
    "  curl -s -u \"$id:$secret\" -d grant_type=client_credentials -d scope=stats $url/Auth/connect/token" \
    "  v0: curl -s -u \"$key:$v0\" -X POST $url/v0/oauth2/token    API documents: $url/docs"
}
if [ "${CC_DEMO_SEED}" = true ]; then token_hint & fi
wait "$runner_pid"
