#!/usr/bin/env bash
# Dormant ranges at scale (BENCHMARKS.md, "Dormant ranges"): three `rangekv start` processes on loopback
# (ports 7301/7311/7321, data under /tmp/rkd/run), pre-split in batches into RANGES ranges starting at
# r000001, r000002, ... (one key r00000N/x written into each), then per node threads, RSS, NMT "Other"
# (JDK direct buffers) and CPU over 30 s, first while ranges are still awake, then once every range is
# dormant; then the wake latency of the first get to SAMPLES dormant ranges (WakeLatency).
# Needs the CLI and bench jars: mvn -q -B -DskipTests -pl rangekv-cli,rangekv-bench -am package
# Usage (from the repository root): rkbench rangekv-bench/scripts/dormant-ranges.sh RANGES BATCH DORMANT_AFTER SAMPLES
#   e.g. rangekv-bench/scripts/dormant-ranges.sh 400 100 20s 100
# usage: bench.sh RANGES BATCH DORMANT_AFTER SAMPLES
set -uo pipefail
N=$1; BATCH=$2; DORM=$3; SAMPLES=$4
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
B=/tmp/rkd/run; rm -rf $B; mkdir -p $B
RUN="rangekv-cli/src/dist/bin/rangekv-run rangekv-cli/target/rangekv.jar rangekv-cli/target/rangekv-thin.jar"
export RANGEKV_JAVA_OPTS="-XX:NativeMemoryTracking=summary"
SEEDS=127.0.0.1:7301,127.0.0.1:7311,127.0.0.1:7321
$RUN start --node-id n1 --listen 127.0.0.1:7301 --data-dir $B/n1 --insecure --dormant-after $DORM > $B/n1.log 2>&1 & P1=$!
sleep 8
$RUN start --node-id n2 --listen 127.0.0.1:7311 --data-dir $B/n2 --insecure --join 127.0.0.1:7301 --dormant-after $DORM > $B/n2.log 2>&1 & P2=$!
$RUN start --node-id n3 --listen 127.0.0.1:7321 --data-dir $B/n3 --insecure --join 127.0.0.1:7301 --dormant-after $DORM > $B/n3.log 2>&1 & P3=$!
PIDS="$P1 $P2 $P3"
echo "pids $PIDS"
cleanup() { kill $PIDS 2>/dev/null; sleep 3; kill -9 $PIDS 2>/dev/null; }
trap cleanup EXIT
cli() { RANGEKV_JAVA_OPTS= $RUN "$@" --cluster 127.0.0.1:7301; }
for i in $(seq 1 60); do
  live=$(cli nodes 2>/dev/null | grep -c " live" || true)
  [ "$live" -ge 3 ] && break; sleep 2
done
echo "nodes live: $live"
# wait until the root range has 3 replicas
for i in $(seq 1 90); do cli ranges 2>/dev/null | grep -q "n1,n2,n3" && break; sleep 2; done
cli ranges | tail -2
sample() { # label
  for p in $PIDS; do
    th=$(grep Threads /proc/$p/status | awk '{print $2}'); rss=$(grep VmRSS /proc/$p/status | awk '{print $2}')
    t0=$(awk '{print $14+$15}' /proc/$p/stat)
    echo "$p $th $rss $t0"
  done > $B/s0
  sleep 30
  while read p th rss t0; do
    t1=$(awk '{print $14+$15}' /proc/$p/stat)
    other=$(jcmd $p VM.native_memory summary 2>/dev/null | grep -A1 "^-  *Other" | grep -o "committed=[0-9]*KB" | head -1)
    echo "$1 pid=$p threads=$th rssMiB=$((rss/1024)) cpu%=$(awk -v d=$((t1-t0)) 'BEGIN{printf "%.2f", d/30}') nmtOther(direct)=$other"
  done < $B/s0
}
start=1
while [ $start -lt $N ]; do
  end=$((start+BATCH)); [ $end -gt $N ] && end=$N
  keys=$(seq $start $((end-1)) | awk '{printf "%sr%06d", (NR>1?",":""), $1}')
  t0=$(date +%s)
  cli presplit --timeout 900s --at "$keys" > $B/presplit.out 2>&1 || { echo "presplit failed"; tail -3 $B/presplit.out; }
  java -cp rangekv-bench/target/benchmarks.jar dev.rangekv.bench.cluster.WakeLatency load $SEEDS $((start-1)) $end > /dev/null 2>$B/load.err || { echo load failed; tail -3 $B/load.err; }
  echo "batch to $end done in $(( $(date +%s)-t0 )) s; $(cli ranges | tail -1)"
  start=$end
done
echo "--- all $N ranges split and loaded; awake sample (most ranges still awake or waking) $(date +%T) load: $(uptime)"
cli nodes
sample awake
for i in $(seq 1 120); do
  line=$(cli ranges | tail -1); echo "$line" | grep -q "$N dormant" && break; sleep 5
done
echo "after wait: $line"
cli nodes
echo "--- dormant sample $(date +%T) load: $(uptime)"
sample dormant
echo "--- wake latency $(date +%T) load: $(uptime)"
java -cp rangekv-bench/target/benchmarks.jar dev.rangekv.bench.cluster.WakeLatency wake $SEEDS $N $SAMPLES
cli ranges | tail -1
