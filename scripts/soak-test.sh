#!/usr/bin/env bash
# The 2-minute soak of ./cc test: starts a suite of its own (CC_INSTANCE=soak-test on ports 18280-18286, away from
# ./cc start's 8080 and the e2e tier's 18080), moves its consumer groups past the broker's history, runs
# `./cc simulate --soak 2m --strict` against it, and stops it. Needs KAFKA_BROKERS and MONGO_URL (test-all.sh sets
# them). Exit status: the simulator's (0 when no call was lost, every notification arrived once, no errors).
# Usage: scripts/soak-test.sh [report-dir]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=../deploy/local/lib.sh
source deploy/local/lib.sh # kill_tree
report_dir="${1:-$root/.test-results/soak}"
mkdir -p "$report_dir"
export CC_PORT_BASE="${SOAK_PORT_BASE:-18280}" CC_INSTANCE=soak-test
log="$report_dir/suite.log"
node --import tsx deploy/local/skip-history.ts "$CC_INSTANCE" || exit 1
setsid bash deploy/local/start-all.sh >"$log" 2>&1 &
suite=$!
stop_suite() {
  kill -TERM -- "-$suite" 2>/dev/null || kill_tree "$suite"
  for _ in $(seq 1 60); do kill -0 "$suite" 2>/dev/null || return 0; sleep 1; done
  kill -KILL -- "-$suite" 2>/dev/null || true
}
trap 'stop_suite; exit 130' INT TERM
# A loaded CI machine may need minutes to start seven services.
ready=0
for _ in $(seq 1 300); do
  if grep -q 'all 7 services ready' "$log"; then ready=1; break; fi
  kill -0 "$suite" 2>/dev/null || break
  sleep 1
done
if [ "$ready" != 1 ]; then
  echo "[soak] the suite did not start; last lines of $log:" >&2
  tail -20 "$log" >&2
  stop_suite
  exit 1
fi
# Moderate load and lenient memory bound for two minutes on a shared machine: the judgement that matters here is
# lost calls, missing or doubled notifications and errors; the 30-minute soak (README) judges growth at 10 %.
node --import tsx tools/simulator/src/main.ts --soak 2m --agents 10 --calls-per-hour 600 --aht 20s --drain 90s \
  --prefix soaktest --report-dir "$report_dir" --max-rss-growth 0.5 --strict
rc=$?
trap - INT TERM
stop_suite
exit "$rc"
