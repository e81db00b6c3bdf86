#!/usr/bin/env bash
# ./cc bench: benchmarks on the real local stack; each prints its numbers and writes bench/results/<name>.json.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash deploy/local/stack.sh start
eval "$(bash deploy/local/stack.sh env)"
export KAFKA_BROKERS MONGO_URL
for b in bench/*.bench.ts; do
  printf '\n[bench] ==== %s ====\n' "$b"
  node --import tsx "$b"
done
