#!/usr/bin/env bash
# ./cc bench: benchmarks on the real local stack; each prints its numbers and writes bench/results/<name>.json.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash deploy/local/stack.sh start
eval "$(bash deploy/local/stack.sh env)"
export KAFKA_BROKERS MONGO_URL
# Services' benchmarks need the sealing key the local stack uses.
if [ -z "${CC_ENCRYPTION_KEYS:-}" ] && [ -f .data/dev-keys.env ]; then set -a; . .data/dev-keys.env; set +a; fi
for b in bench/*.bench.ts services/*/bench/*.bench.ts; do
  [ -f "$b" ] || continue
  printf '\n[bench] ==== %s ====\n' "$b"
  node --import tsx "$b"
done
