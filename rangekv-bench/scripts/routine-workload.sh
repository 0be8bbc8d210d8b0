#!/usr/bin/env bash
# A workload through routine operations (BENCHMARKS.md, "Routine operations under a workload"): three
# `rangekv start` processes (three-nodes.sh) whose controller splits ranges by size and load, a 10-minute
# `rangekv workload` at the default deadline (10 s per operation, retries included), and a 4th node that
# joins partway so the controller moves replicas onto it. Prints the workload's summary, the controller's
# splits, moves and leader transfers over the run (leader-transfers.py on `rangekv events`), the ranges
# per node, and the load average. Stops the nodes at the end (also on failure or Ctrl-C).
#
#   rkbench rangekv-bench/scripts/routine-workload.sh [PHASE_SECONDS] [JOIN_AFTER_SECONDS]
#                                     (default 300 and 150: phases insert then update, 300 s each)
#
# Environment: three-nodes.sh's RKV_DIR (default here /tmp/rangekv-routine), RKV_PORT (default here 17301;
# n4 at +30), RKV_JAR; RKV_NODE_OPTS (default: 8 MiB ranges, load splits above 500 ops/s, 2 s ticks);
# THREADS (default 32), VALUE_BYTES (default 512).
set -euo pipefail
cd "$(dirname "$0")/../.."
PHASE=${1:-300}
JOIN_AFTER=${2:-150}
export RKV_DIR=${RKV_DIR:-/tmp/rangekv-routine}
export RKV_PORT=${RKV_PORT:-17301}
export RKV_NODE_OPTS=${RKV_NODE_OPTS:---set range.max-bytes=8388608 --set split.qps=500 --set controller.tick=2000}
JAR=${RKV_JAR:-rangekv-cli/target/rangekv.jar}
SCRIPT=rangekv-bench/scripts/three-nodes.sh
ADDRS="127.0.0.1:$RKV_PORT,127.0.0.1:$((RKV_PORT + 10)),127.0.0.1:$((RKV_PORT + 20))"
cli() { java -jar "$JAR" "$@" --cluster "$ADDRS" --insecure; }

trap '$SCRIPT stop' EXIT
$SCRIPT up
echo "load before the workload: $(cat /proc/loadavg)"
t0=$(date +%s)
java -jar "$JAR" workload run kv --phases insert,update --duration "${PHASE}s" --threads "${THREADS:-32}" \
  --value-bytes "${VALUE_BYTES:-512}" --cluster "$ADDRS" --insecure > "$RKV_DIR/workload.out" 2>&1 &
wl=$!
sleep "$JOIN_AFTER" # the 4th node joins partway through the run: a point in time, not a condition
# shellcheck disable=SC2086
java -jar "$JAR" start --node-id n4 --listen "127.0.0.1:$((RKV_PORT + 30))" --data-dir "$RKV_DIR/n4" \
  --join "127.0.0.1:$RKV_PORT" --insecure $RKV_NODE_OPTS > "$RKV_DIR/n4.log" 2>&1 &
echo $! > "$RKV_DIR/n4.pid"
echo "n4 joining at $(( $(date +%s) - t0 )) s, load $(cat /proc/loadavg)"
rc=0
wait $wl || rc=$?
echo "workload rc=$rc after $(( $(date +%s) - t0 )) s; load after the workload: $(cat /proc/loadavg)"
grep -v '^\(insert\|update\) ' "$RKV_DIR/workload.out" || true
echo "intervals with errors: $(grep -cE 'errors [1-9]' "$RKV_DIR/workload.out" || true)"
cli events --limit 0 > "$RKV_DIR/events.txt" || true
echo "events: $(grep -c ' split ' "$RKV_DIR/events.txt" || true) splits, $(grep -c ' move ' "$RKV_DIR/events.txt" || true) moves"
python3 rangekv-bench/scripts/leader-transfers.py "$RKV_DIR/events.txt"
cli nodes || true
cli ranges | tail -1 || true
