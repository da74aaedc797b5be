#!/usr/bin/env bash
# The whole test suite with the cores kept busy by other processes (issue 38, item 2;
# issue 48: three loops on the two cores): a test asserts behaviour, not the machine's
# speed, so it must pass on a loaded machine.
#
#   bash benchmarks/busy_suite.sh            # after bash .ci/run (it uses .venv)
#   BUSY_LOOPS=2 bash benchmarks/busy_suite.sh tests/cli/test_cli_progress.py
#
# BUSY_LOOPS busy loops (default: one more than the cores, niced the same as the suite)
# run for as long as the suite does; the suite's own summary line and the wall time are
# printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(nproc)
loops=${BUSY_LOOPS:-$((cores + 1))}
pids=()
for _ in $(seq "$loops"); do
    (while :; do :; done) &
    pids+=("$!")
done
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
echo "busy: $loops loop(s) on $cores core(s); load before the suite: $(cut -d' ' -f1 /proc/loadavg)"
started=$(date +%s)
status=0
.venv/bin/python -m pytest -p no:cacheprovider "$@" || status=$?
echo "suite under load: exit $status in $(( $(date +%s) - started )) s; load at the end: $(cut -d' ' -f1 /proc/loadavg)"
exit "$status"
