#!/usr/bin/env bash
# ./cc test: every check a change must pass, in order of cost. Starts the local Kafka and store when
# the tests need them and nothing else serves them (KAFKA_BROKERS / MONGO_URL), and stops what it started.
# Ends with one line: "N passed, N failed" (jest tests, plus one per static check).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
results="$root/.test-results"; rm -rf "$results"; mkdir -p "$results"
passed=0; failed=0; failures=()
step() { printf '\n[test] ==== %s ====\n' "$1" >&2; }
check() { # name, command...
  local name="$1"; shift; step "$name"
  local t0=$SECONDS
  if "$@"; then passed=$((passed + 1)); printf '[test] %s ok (%ss)\n' "$name" $((SECONDS - t0)) >&2
  else failed=$((failed + 1)); failures+=("$name"); printf '[test] %s FAILED\n' "$name" >&2; fi
}
jest_tier() { # name, json file, jest args...
  local name="$1" out="$2"; shift 2; step "$name"
  local t0=$SECONDS
  # --forceExit: a suite whose setup failed can leave a consumer or server open, and jest would then
  # wait for it forever after printing its results (found on a fresh broker in CI).
  jest --ci --forceExit --json --outputFile="$out" "$@"; local rc=$?
  local p f
  p=$(node -e "try{const r=require('$out');console.log(r.numPassedTests)}catch{console.log(0)}")
  f=$(node -e "try{const r=require('$out');console.log(r.numFailedTests+(r.numRuntimeErrorTestSuites||0))}catch{console.log(1)}")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  [ "$f" -gt 0 ] && failures+=("$name")
  printf '[test] %s: %s passed, %s failed (%ss)\n' "$name" "$p" "$f" $((SECONDS - t0)) >&2
}

started_stack=0
summary() {
  [ ${#failures[@]} -gt 0 ] && printf '[test] failed: %s\n' "${failures[*]}" >&2
  echo "${passed} passed, ${failed} failed"
}
# Ctrl-C reaches the running step too (same process group); SIGTERM may come to this shell alone.
# Either way: stop what this run started (children, the local stack), then print the summary line.
on_interrupt() {
  trap - INT TERM
  printf '\n[test] interrupted: stopping what this run started\n' >&2
  local child
  for child in $(pgrep -P $$ 2>/dev/null); do kill_tree "$child"; done
  wait 2>/dev/null
  [ "$started_stack" = 1 ] && bash deploy/local/stack.sh stop
  failed=$((failed + 1)); failures+=("interrupted")
  summary
  exit 130
}
# shellcheck source=../deploy/local/lib.sh
source deploy/local/lib.sh # kill_tree
trap on_interrupt INT TERM

check lint biome check .
check typecheck tsc -p tsconfig.json --noEmit
# Layer rules on the real tree; scripts/test/layer-rules.test.ts (unit tier) shows on a fixture that they fire.
check "layer rules" depcruise libs services test-e2e deploy console tools --config .dependency-cruiser.cjs
[ -x scripts/validate-k8s.sh ] && check "k8s manifests" bash scripts/validate-k8s.sh
# The operator console (Vite; cached by input hash): the gateway of the later tiers serves it at /console.
check "console build" node scripts/build-console.cjs
jest_tier "unit tests" "$results/unit.json" --selectProjects unit

if [ -z "${KAFKA_BROKERS:-}" ] || [ -z "${MONGO_URL:-}" ]; then
  if ! bash deploy/local/stack.sh status >/dev/null 2>&1; then started_stack=1; fi
  step "local stack"
  if bash deploy/local/stack.sh start; then eval "$(bash deploy/local/stack.sh env)"
  else failed=$((failed + 1)); failures+=("local stack"); fi
fi
export KAFKA_BROKERS MONGO_URL
jest_tier "integration tests" "$results/integration.json" --selectProjects integration --runInBand
# The manifests and docker-compose.yml configure a working suite; the compiled services start.
jest_tier "deployment checks" "$results/deploy.json" --selectProjects deploy --runInBand
# The end-to-end tier includes the short schemathesis run (test-e2e/test/fuzz.e2e.test.ts; ./cc fuzz is the long one).
if [ -f test-e2e/run.sh ]; then
  step "end-to-end tests"
  bash test-e2e/run.sh "$results/e2e.json"
  p=$(node -e "try{console.log(require('$results/e2e.json').numPassedTests)}catch{console.log(0)}")
  f=$(node -e "try{const r=require('$results/e2e.json');console.log(r.numFailedTests+(r.numRuntimeErrorTestSuites||0))}catch{console.log(1)}")
  passed=$((passed + p)); failed=$((failed + f)); [ "$f" -gt 0 ] && failures+=("end-to-end tests")
fi
# Two minutes of simulated contact center on a suite of its own: nothing lost, every notification once, no errors.
check "soak (2 minutes)" bash scripts/soak-test.sh "$results/soak"
[ "$started_stack" = 1 ] && bash deploy/local/stack.sh stop

trap - INT TERM
summary
[ "$failed" -eq 0 ]
