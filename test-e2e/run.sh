#!/usr/bin/env bash
# The end-to-end tier: starts every service against the real Kafka and store (KAFKA_BROKERS /
# MONGO_URL must be set; ./cc test does that), runs the scenarios through the gateway, stops all.
# Usage: test-e2e/run.sh <json report file>
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
jest --config test-e2e/jest.config.cjs --runInBand --ci --forceExit --json --outputFile="${1:-.test-results/e2e.json}"
