#!/usr/bin/env bash
# `npm test` RUNS times in a row (default 5) beside a CPU-bound neighbour (one busy Node
# process, a whole core), from the repository root; prints each run's exit status, seconds,
# Jest timeouts and failed suites, then a summary. Exits 1 if any run failed, else 0.
# Logs in artifacts/test-suite-run-N.log. Usage: bash bench/test-suite.sh [RUNS]
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
mkdir -p artifacts
node -e 'for (;;) {}' &
NEIGHBOUR=$!
trap 'kill $NEIGHBOUR 2>/dev/null' EXIT
failed=0
for i in $(seq 1 "$RUNS"); do
  log="artifacts/test-suite-run-$i.log"
  start=$(date +%s)
  npm test > "$log" 2>&1
  status=$?
  [ "$status" -eq 0 ] || failed=$((failed + 1))
  suites=$(grep -oE '^FAIL +[a-z0-9]+ +[^ ]+' "$log" | awk '{print $NF}' | sort -u | paste -sd ' ' -)
  echo "run $i: exit $status, $(( $(date +%s) - start )) s, timeouts: $(grep -c 'Exceeded timeout' "$log")${suites:+, failed: $suites}"
done
if ! kill -0 "$NEIGHBOUR" 2>/dev/null; then
  echo "the busy neighbour was not running to the end: the runs above were not beside it"
  exit 1
fi
echo "summary: $((RUNS - failed)) of $RUNS runs of npm test passed beside a busy neighbour"
[ "$failed" -eq 0 ]
