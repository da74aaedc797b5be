#!/usr/bin/env bash
# The whole test suite with both cores kept busy by other processes (issue 38, item 2):
# a test asserts behaviour, not the machine's speed, so it must pass on a loaded machine.
#
#   bash benchmarks/busy_suite.sh            # after bash .ci/run (it uses .venv)
#
# Two busy loops (one per core, niced the same as the suite) run for as long as the
# suite does; the suite's own summary line and the wall time are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(nproc)
pids=()
for _ in $(seq "$cores"); do
    (while :; do :; done) &
    pids+=("$!")
done
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
echo "busy: $cores loop(s) on $cores core(s); load before the suite: $(cut -d' ' -f1 /proc/loadavg)"
started=$(date +%s)
status=0
.venv/bin/python -m pytest -p no:cacheprovider "$@" || status=$?
echo "suite under load: exit $status in $(( $(date +%s) - started )) s; load at the end: $(cut -d' ' -f1 /proc/loadavg)"
exit "$status"
