#!/usr/bin/env bash
# The suite's one entry point. A fresh machine needs only Node.js 20, Java 17 and Go:
#   ./cc start   local Kafka + store + every service; prints the gateway URL; Ctrl-C stops all
#   ./cc test    lint, typecheck, layer rules, contracts, unit, integration and end-to-end tests
#   ./cc fuzz    schemathesis against every OpenAPI document of the running suite (see scripts/fuzz.sh)
# Also: ./cc stack {start|stop|status|reset|wait}, ./cc install, ./cc bench
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
PNPM_VERSION=10.34.9
export CC_TOOLS_DIR="${CC_TOOLS_DIR:-$ROOT/.tools}"
export PATH="$CC_TOOLS_DIR/node_modules/.bin:$ROOT/node_modules/.bin:$PATH"

say() { printf '[cc] %s\n' "$*" >&2; }

ensure_pnpm() {
  if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
    say "installing pnpm $PNPM_VERSION into $CC_TOOLS_DIR (once)"
    mkdir -p "$CC_TOOLS_DIR"
    npm install --silent --no-audit --no-fund --prefix "$CC_TOOLS_DIR" "pnpm@$PNPM_VERSION" >&2
  fi
}

ensure_deps() {
  ensure_pnpm
  # Reinstall only when the lockfile changed since the last install.
  local stamp="node_modules/.cc-lock-stamp"
  if [ ! -f "$stamp" ] || ! cmp -s pnpm-lock.yaml "$stamp"; then
    say "installing dependencies (pnpm install --frozen-lockfile)"
    pnpm install --frozen-lockfile --reporter=append-only >&2
    cp pnpm-lock.yaml "$stamp"
  fi
}

cmd="${1:-help}"; shift || true
case "$cmd" in
  install) ensure_deps ;;
  stack) ensure_deps; exec bash deploy/local/stack.sh "$@" ;;
  start) ensure_deps; exec bash deploy/local/start-all.sh "$@" ;;
  test) ensure_deps; exec bash scripts/test-all.sh "$@" ;;
  bench) ensure_deps; exec bash scripts/bench.sh "$@" ;;
  fuzz) ensure_deps; exec bash scripts/fuzz.sh "$@" ;;
  *) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
