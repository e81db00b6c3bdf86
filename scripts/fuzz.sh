#!/usr/bin/env bash
# ./cc fuzz: schemathesis (PyPI, installed once into .tools by scripts/schemathesis-env.sh) against every OpenAPI
# document the suite's gateway serves, with a token of the right scope per API, bounded in time. Prints per API:
# operations, requests, 5xx and schema violations; exits non-zero when any API had a 5xx or a schema violation.
#   ./cc fuzz [--seconds N] [--examples N] [--workers N] [--only api,api] [--seed N]
# Without CC_FUZZ_GATEWAY_URL it starts the local stack (unless KAFKA_BROKERS/MONGO_URL name one) and the suite on
# the e2e tier's ports (18080-18086), as ./cc test does, and stops the suite afterwards. With it (e.g.
# CC_FUZZ_GATEWAY_URL=http://127.0.0.1:8080 after ./cc start) it fuzzes that running suite. Reports (ndjson, one
# per API) land in .test-results/fuzz/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/schemathesis-env.sh >/dev/null
if [ -z "${CC_FUZZ_GATEWAY_URL:-}" ] && { [ -z "${KAFKA_BROKERS:-}" ] || [ -z "${MONGO_URL:-}" ]; }; then
  bash deploy/local/stack.sh start
  eval "$(bash deploy/local/stack.sh env)"
  export KAFKA_BROKERS MONGO_URL
fi
exec node --import tsx test-e2e/src/fuzz.cli.ts "$@"
