#!/usr/bin/env bash
# Foreground impact of `rangekv backup create` on a concurrent `rangekv workload` (BENCHMARKS.md, "Backup and
# restore"), on 3 node processes (three-nodes.sh). Needs the CLI jar: mvn -q -B -DskipTests -pl rangekv-cli -am package
# Run it alone (`rkbench`, or `flock -x /tmp/rangekv-cpu.lock`).
#
#   backup-foreground.sh [KEYS=100000] [RANGES=16] [RATE=10MB] [WINDOW=20s] [ROUNDS=2]
#
# 1. three-nodes.sh start and wait; the key space user0000000000.. pre-split into RANGES ranges.
# 2. Load: KEYS keys of 1,000 random bytes (`workload run kv --load KEYS --value-bytes 1000`), then a 30 s
#    update phase: the nodes' JIT warms up.
# 3. One backup of the loaded span alone (nothing else running): the 3-node backup speed, each progress line
#    time-stamped (where a backup waits per range).
# 4. ROUNDS rounds of three measured windows in a fixed order: `none` (the workload alone), `unlimited`
#    (backups of the span back to back, each to a fresh directory, the first one exporting before the
#    workload starts), `rate` (the same with --rate RATE). Before every window the nodes settle: until
#    each node reports no pending compaction bytes (rangekv_store_pending_compaction_bytes, at most 120 s),
#    then 5 s. The workload of a window: `workload run kv --phases update --load 1000 --value-bytes 100
#    --threads 8 --warmup 5s --duration WINDOW`, its summary line (writes/s, p50, p99) kept.
# 5. Per window: the workload's summary (ops/s, p50/p95/p99) and the backups that finished inside it
#    (size, time); the nodes are stopped at the end (also on failure or Ctrl-C).
#
# Environment: RKV_DIR (default /tmp/rangekv-backup-fg), RKV_PORT (default 17101), RKV_JAR and RKV_NODE_OPTS as
# three-nodes.sh; RKV_IDLE=S waits S seconds before the backup alone (with RKV_NODE_OPTS="--set split.qps=1000000
# --dormant-after 10s" its ranges are dormant then: the backup wakes each). ROUNDS=0 stops after step 3.
set -euo pipefail
cd "$(dirname "$0")/../.."
KEYS=${1:-100000}
RANGES=${2:-16}
RATE=${3:-10MB}
WINDOW=${4:-20s}
ROUNDS=${5:-2}
export RKV_DIR=${RKV_DIR:-/tmp/rangekv-backup-fg}
export RKV_PORT=${RKV_PORT:-17101}
JAR=${RKV_JAR:-rangekv-cli/target/rangekv.jar}
export RKV_JAR=$JAR
ADDRS="127.0.0.1:$RKV_PORT,127.0.0.1:$((RKV_PORT + 10)),127.0.0.1:$((RKV_PORT + 20))"
NODES=rangekv-bench/scripts/three-nodes.sh
OUT=$RKV_DIR-results
BACKUPS=$RKV_DIR-backups

cli() { java -jar "$JAR" "$@" --cluster "$ADDRS" --insecure; }
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N | cut -c1-14)" "$line"; done; }

stop_backups() { # the loop stops after the backup running now, which is stopped (SIGTERM, by its pid)
  touch "$OUT/stop"
  if [ -n "${LOOP_PID:-}" ]; then
    if [ -f "$OUT/backup.pid" ]; then kill -TERM "$(cat "$OUT/backup.pid")" 2> /dev/null || true; fi
    wait "$LOOP_PID" 2> /dev/null || true
    LOOP_PID=
  fi
}

cleanup() {
  stop_backups 2> /dev/null || true
  "$NODES" stop || true
  rm -rf "$BACKUPS"
}
trap cleanup EXIT

settle() { # until no node reports pending compaction bytes (bounded), then 5 s
  local t0 pending
  t0=$(date +%s)
  for _ in $(seq 120); do
    pending=0
    for p in $RKV_PORT $((RKV_PORT + 10)) $((RKV_PORT + 20)); do
      v=$(curl -s "http://127.0.0.1:$((p + 2))/metrics" | awk '/^rangekv_store_pending_compaction_bytes/ {s += $2} END {print s + 0}')
      pending=$(awk -v a="$pending" -v b="$v" 'BEGIN {print a + b}')
    done
    [ "$pending" = 0 ] && break
    sleep 1
  done
  sleep 5
  echo "settled in $(( $(date +%s) - t0 )) s (pending compaction bytes at the end: $pending); load $(cut -d' ' -f1-3 /proc/loadavg)"
}

backup_loop() { # label, extra backup options...: back-to-back backups until $OUT/stop exists
  local label=$1 i=0
  shift
  while [ ! -f "$OUT/stop" ]; do
    i=$((i + 1))
    rm -rf "$BACKUPS"
    java -jar "$JAR" backup create --to "file://$BACKUPS/b" --span user --timeout 60s "$@" --cluster "$ADDRS" \
      --insecure > >(stamp > "$OUT/backup-$label-$i.log") 2>&1 &
    echo $! > "$OUT/backup.pid"
    wait $! || true
  done
}

window() { # label, backup options... (label none: no backup)
  local label=$1
  shift
  settle
  rm -f "$OUT/stop"
  LOOP_PID=
  if [ "$label" != none ]; then
    backup_loop "$label" "$@" &
    LOOP_PID=$!
    for _ in $(seq 600); do # the first backup exporting before the workload starts
      grep -qs '\[1/' "$OUT/backup-$label-1.log" && break
      sleep 0.1
    done
  fi
  echo "window $label: load before $(cut -d' ' -f1-3 /proc/loadavg)"
  cli workload run kv --phases update --load 1000 --value-bytes 100 --threads 8 --warmup 5s --duration "$WINDOW" \
    > "$OUT/workload-$label-$ROUND.log" 2>&1
  stop_backups # only backups that finished inside the window are counted
  echo "window $label round $ROUND: load after $(cut -d' ' -f1-3 /proc/loadavg)"
  grep -E '^(==|   )' "$OUT/workload-$label-$ROUND.log" | sed 's/^/  /' || tail -5 "$OUT/workload-$label-$ROUND.log"
  for f in "$OUT"/backup-"$label"-*.log; do
    [ -f "$f" ] || continue
    case $f in *-r[0-9]*.log) continue ;; esac # an earlier round's, already listed
    grep -h -- '-- backup' "$f" | sed "s/^[0-9.]* /  $label round $ROUND backup: /" || true
    mv "$f" "${f%.log}-r$ROUND.log"
  done
}

rm -rf "$OUT" && mkdir -p "$OUT"
echo "backup-foreground: keys=$KEYS ranges=$RANGES rate=$RATE window=$WINDOW rounds=$ROUNDS, jar $JAR; load $(cut -d' ' -f1-3 /proc/loadavg)"
"$NODES" start
"$NODES" wait
AT=""
for r in $(seq 1 $((RANGES - 1))); do
  AT="$AT${AT:+,}$(printf 'user%010d' $((KEYS * r / RANGES)))"
done
cli presplit --at "user,$AT,uses"
cli workload run kv --phases update --load "$KEYS" --value-bytes 1000 --threads 16 --duration 30s \
  > "$OUT/load.log" 2>&1
grep -E '^(==|   )' "$OUT/load.log" || tail -5 "$OUT/load.log"

settle
if [ "${RKV_IDLE:-0}" -gt 0 ]; then # idle ranges go dormant (with --dormant-after below RKV_IDLE)
  sleep "$RKV_IDLE"
fi
woken=$(cat "$RKV_DIR"/n*.log | grep -c 'dormant=false' || true)
echo "backup alone: load before $(cut -d' ' -f1-3 /proc/loadavg)"
cli backup create --to "file://$BACKUPS/alone" --span user --timeout 60s 2>&1 | stamp > "$OUT/backup-alone.log"
grep -- '-- backup' "$OUT/backup-alone.log"
awk 'NR > 1 {printf "  range %d: %.2f s\n", NR - 1, $1 - prev} {prev = $1}' "$OUT/backup-alone.log" | sort -k3 -n -r | head -3
echo "  ranges woken from dormancy during it: $(( $(cat "$RKV_DIR"/n*.log | grep -c 'dormant=false' || true) - woken ))"
rm -rf "$BACKUPS"

for ROUND in $(seq 1 "$ROUNDS"); do
  window none
  window unlimited
  window rate --rate "$RATE"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg); logs in $OUT"
