#!/usr/bin/env bash
# The multi-raft spike (BENCHMARKS.md, "Multi-raft spike: MicroRaft per-group vs node-wide runtime"):
# three in-process MicroRaft nodes, each with its own fsynced RocksDB under /tmp, G groups of 3 replicas.
# Closed-loop writes (32 threads, 100-byte values, uniform over the groups) for each runtime and G, in
# ROUNDS rounds, then the idle cost of 1,000 groups per runtime. Each throughput run ends with a crash
# and a check that every acknowledged write is on a majority of the stores (it fails loudly if not).
# Needs the bench jar: mvn -q -B -DskipTests -pl rangekv-bench -am package
# Usage (from the repository root): rkbench rangekv-bench/scripts/multiraft-spike.sh [ROUNDS] [WARMUP_S] [MEASURE_S] [IDLE_GROUPS] [IDLE_S]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROUNDS=${1:-2}; WARMUP=${2:-10}; MEASURE=${3:-15}; IDLE_GROUPS=${4:-1000}; IDLE_S=${5:-30}
J="java -Xmx2g -cp rangekv-bench/target/benchmarks.jar"
for round in $(seq 1 "$ROUNDS"); do
  for g in 1 8 64; do
    for rt in PER_GROUP NODE_WIDE NODE_WIDE_PIPELINED; do
      echo "round=$round $(uptime)"
      $J dev.rangekv.bench.multiraft.MultiRaftThroughput $rt $g 32 "$WARMUP" "$MEASURE" 2>&1 | grep '^runtime='
    done
  done
done
for rt in PER_GROUP NODE_WIDE NODE_WIDE_PIPELINED; do
  echo "idle $(uptime)"
  $J -Xss256k dev.rangekv.bench.multiraft.IdleGroups $rt "$IDLE_GROUPS" "$IDLE_S" 2>&1 | grep '^runtime='
done
