#!/usr/bin/env bash
# `npm test` RUNS times in a row (default 5) beside a CPU-bound neighbour (one busy Node
# process), from the repository root; prints each run's exit status, seconds and Jest
# timeouts. Logs in artifacts/test-suite-run-N.log. Usage: bash bench/test-suite.sh [RUNS]
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
mkdir -p artifacts
node -e 'for (;;) {}' &
NEIGHBOUR=$!
trap 'kill $NEIGHBOUR 2>/dev/null' EXIT
for i in $(seq 1 "$RUNS"); do
  start=$(date +%s)
  npm test > "artifacts/test-suite-run-$i.log" 2>&1
  status=$?
  echo "run $i: exit $status, $(( $(date +%s) - start )) s, timeouts: $(grep -c 'Exceeded timeout' "artifacts/test-suite-run-$i.log")"
done
