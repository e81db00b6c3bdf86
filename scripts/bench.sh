#!/usr/bin/env bash
# ./cc bench [--smoke]: every benchmark on the real local stack, then ONE table (bench/summary.ts) and
# bench/results/summary.json. Each benchmark prints its own numbers and writes bench/results/<name>.json
# with the rows it contributes (libs/testing writeBenchResult). A benchmark that fails leaves its rows
# "n/a (not run)"; benchmarks never fail on a number. --smoke: the store's raw rates for 1 s per phase
# and the table (about 10 s; what CI may run).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash deploy/local/stack.sh start || exit 1
eval "$(bash deploy/local/stack.sh env)"
export KAFKA_BROKERS MONGO_URL
# Services' benchmarks need the sealing key the local stack uses.
if [ -z "${CC_ENCRYPTION_KEYS:-}" ] && [ -f .data/dev-keys.env ]; then set -a; . .data/dev-keys.env; set +a; fi
BENCH_SINCE="$(date -u +%Y-%m-%dT%H:%M:%S.000Z)"
export BENCH_SINCE
if [ "${1:-}" = "--smoke" ]; then
  benches=(bench/store.bench.ts)
  export BENCH_SECONDS=1 BENCH_STORE_SEED=500
else
  # The store's raw rates first (the yardstick), then the suite at rest (before load leaves work behind).
  benches=(bench/store.bench.ts bench/idle.bench.ts)
  for b in bench/*.bench.ts services/*/bench/*.bench.ts; do
    case " ${benches[*]} " in *" $b "*) ;; *) [ -f "$b" ] && benches+=("$b") ;; esac
  done
fi
failed=()
for b in "${benches[@]}"; do
  printf '\n[bench] ==== %s ====\n' "$b"
  node --import tsx "$b" || failed+=("$b")
done
[ ${#failed[@]} -gt 0 ] && printf '[bench] did not finish (their rows say n/a (not run)): %s\n' "${failed[*]}"
node --import tsx bench/summary.ts
