#!/usr/bin/env bash
# The suite's one entry point. A fresh machine needs Node.js 20.19+, Java 17+, Maven, Go 1.26+ and
# python3 with pip (README lists versions):
#   ./cc start   local Kafka + store + every service; prints the gateway URL; Ctrl-C stops all
#   ./cc test    lint, typecheck, layer rules, contracts, unit, integration and end-to-end tests
#   ./cc fuzz    schemathesis against every OpenAPI document of the running suite (see scripts/fuzz.sh)
#   ./cc simulate  a contact center on the running suite, live view, cross-checks; --soak 30m (tools/simulator)
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

ensure_python() {
  # The analysis service's speech worker (PocketSphinx with its US-English model, from PyPI) goes into a
  # git-ignored folder; reinstalled only when the pinned requirements change.
  local req="services/analysis/worker/requirements.txt" target="$CC_TOOLS_DIR/python"
  local stamp="$target/.cc-requirements-stamp"
  if [ ! -f "$stamp" ] || ! cmp -s "$req" "$stamp"; then
    command -v python3 >/dev/null || { say "python3 (with pip) is required for the analysis service"; exit 1; }
    say "installing the speech worker's Python packages into $target"
    rm -rf "$target.tmp" && mkdir -p "$target.tmp"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$target.tmp" -r "$req" >&2
    rm -rf "$target" && mv "$target.tmp" "$target" && cp "$req" "$stamp"
  fi
}

cmd="${1:-help}"; shift || true
case "$cmd" in
  install) ensure_deps; ensure_python ;;
  stack) ensure_deps; exec bash deploy/local/stack.sh "$@" ;;
  start) ensure_deps; ensure_python; exec bash deploy/local/start-all.sh "$@" ;;
  test) ensure_deps; ensure_python; exec bash scripts/test-all.sh "$@" ;;
  bench) ensure_deps; ensure_python; exec bash scripts/bench.sh "$@" ;;
  fuzz) ensure_deps; exec bash scripts/fuzz.sh "$@" ;;
  simulate) ensure_deps; exec node --import tsx tools/simulator/src/main.ts "$@" ;;
  *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
