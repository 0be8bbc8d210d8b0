#!/usr/bin/env bash
# The two consensus engines side by side (BENCHMARKS.md, "Multi-raft runtime behind the seam"): for each
# range count, a fresh 3-node cluster per engine (three-nodes.sh), `rangekv presplit --scatter` into that many
# ranges over the workload's key space, then the update phase of `rangekv workload`; engines alternate in
# order from one range count to the next. Needs the CLI jar: mvn -q -B -DskipTests -pl rangekv-cli -am package
#
#   engines.sh [RANGES...]        default: 1 8 64
#
# Environment: WARMUP (default 30s), DURATION (15s), THREADS (32), KEYS (20000), ENGINES (default
# "ratis multiraft": the engines to run, alternating in order), EXTRA_NODE_OPTS (more `start` options, e.g.
# "--dormant-after 1h" so that no range falls dormant while the cluster waits), and three-nodes.sh's
# RKV_DIR, RKV_PORT, RKV_JAR, RKV_JAVA_OPTS (node JVM options, e.g. -Drangekv.multiraft.stripes=1).
set -euo pipefail
cd "$(dirname "$0")/../.."
SCRIPT=rangekv-bench/scripts/three-nodes.sh
JAR=${RKV_JAR:-rangekv-cli/target/rangekv.jar}
PORT=${RKV_PORT:-17001}
ADDRS="127.0.0.1:$PORT,127.0.0.1:$((PORT + 10)),127.0.0.1:$((PORT + 20))"
KEYS=${KEYS:-20000}
RANGES=("$@")
[ ${#RANGES[@]} -gt 0 ] || RANGES=(1 8 64)

trap '$SCRIPT stop' EXIT
run() { # engine ranges
  local engine=$1 n=$2
  echo "=== engine=$engine ranges=$n start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "jar $JAR node JVM options: ${RKV_JAVA_OPTS:-none} extra start options: ${EXTRA_NODE_OPTS:-none}"
  RKV_NODE_OPTS="--engine $engine --set split.qps=1000000 --set rebalance.max-leader-transfers=0 ${EXTRA_NODE_OPTS:-}" \
    $SCRIPT start
  $SCRIPT wait
  if [ "$n" -gt 1 ]; then
    local at
    at=$(python3 -c "print(','.join('user%010d' % (i * $KEYS // $n) for i in range(1, $n)))")
    java -jar "$JAR" presplit --scatter --at "$at" --cluster "$ADDRS" --insecure | tail -1 || true
    $SCRIPT wait
  fi
  java -jar "$JAR" nodes --cluster "$ADDRS" --insecure | tail -5
  echo "load before the workload: $(cut -d' ' -f1-3 /proc/loadavg)"
  java -jar "$JAR" workload run kv --phases update --load "$KEYS" --threads "${THREADS:-32}" \
    --warmup "${WARMUP:-30s}" --duration "${DURATION:-15s}" --value-bytes 100 --seed 1 --cluster "$ADDRS" --insecure \
    | grep -v '^update  '
  echo "load after the workload: $(cut -d' ' -f1-3 /proc/loadavg)"
  $SCRIPT stop
}

read -r -a ENGINE_LIST <<< "${ENGINES:-ratis multiraft}"
i=0
for n in "${RANGES[@]}"; do
  if [ $((i % 2)) -eq 0 ]; then
    for e in "${ENGINE_LIST[@]}"; do run "$e" "$n"; done
  else
    for ((k = ${#ENGINE_LIST[@]} - 1; k >= 0; k--)); do run "${ENGINE_LIST[k]}" "$n"; done
  fi
  i=$((i + 1))
done
