#!/usr/bin/env bash
# A test command RUNS times in a row (default 5), from the repository root; prints each run's
# exit status, seconds, Jest timeouts and failed suites, then a summary. Exits 1 if any run
# failed, else 0. Logs in artifacts/test-suite-run-N.log.
#   bash bench/test-suite.sh [RUNS]          `npm test` beside a CPU-bound neighbour (one busy
#                                            Node process, a whole core)
#   bash bench/test-suite.sh RUNS browser    `npm run test:browser` (the web console in
#                                            Chromium), on the machine as it is
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SUITE=${2:-all}
case "$SUITE" in
  all) COMMAND=(npm test) ;;
  browser) COMMAND=(npm run test:browser) ;;
  *) echo "usage: bash bench/test-suite.sh [RUNS] [all|browser]" >&2; exit 2 ;;
esac
mkdir -p artifacts
NEIGHBOUR=
if [ "$SUITE" = all ]; then
  node -e 'for (;;) {}' &
  NEIGHBOUR=$!
  trap 'kill $NEIGHBOUR 2>/dev/null' EXIT
fi
failed=0
for i in $(seq 1 "$RUNS"); do
  log="artifacts/test-suite-run-$i.log"
  start=$(date +%s)
  "${COMMAND[@]}" > "$log" 2>&1
  status=$?
  [ "$status" -eq 0 ] || failed=$((failed + 1))
  suites=$(grep -oE '^FAIL +[a-z0-9]+ +[^ ]+' "$log" | awk '{print $NF}' | sort -u | paste -sd ' ' -)
  echo "run $i: exit $status, $(( $(date +%s) - start )) s, timeouts: $(grep -c 'Exceeded timeout' "$log")${suites:+, failed: $suites}"
done
if [ -n "$NEIGHBOUR" ] && ! kill -0 "$NEIGHBOUR" 2>/dev/null; then
  echo "the busy neighbour was not running to the end: the runs above were not beside it"
  exit 1
fi
echo "summary: $((RUNS - failed)) of $RUNS runs of ${COMMAND[*]} passed${NEIGHBOUR:+ beside a busy neighbour}"
[ "$failed" -eq 0 ]
