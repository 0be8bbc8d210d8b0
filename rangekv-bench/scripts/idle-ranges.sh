#!/usr/bin/env bash
# Awake, idle ranges per node on the multi-raft engine (BENCHMARKS.md, "Multi-raft runtime behind the seam",
# "Awake idle ranges"): three `rangekv start --engine multiraft` processes on loopback with dormancy off
# (so every range stays awake) and merges off (so the cold, empty ranges stay split); then for each count
# N given, `rangekv presplit --at r.. --scatter` at N-1 keys r%06d spaced 1,000,000/N apart (so the
# points of a smaller N are among those of a larger one; --uniform stops at 4,096) (timed), a wait until
# the map holds N ranges of 3
# replicas each with a leader (replication 3 on 3 nodes: every node runs all N groups), SETTLE seconds to
# settle, and per node over SAMPLE seconds of idleness: CPU in % of one core, RSS, thread count, heap
# used after the window, and the 5 threads of each node that used most CPU in it; the load average before
# and after. When a pre-split has not completed after WAIT seconds, it samples what it reached. Stops the
# nodes at the end (also on Ctrl-C).
#
#   rkbench rangekv-bench/scripts/idle-ranges.sh 1000 10000
#
# Environment: RKV_JAR (default rangekv-cli/target/rangekv.jar), RKV_DIR (default /tmp/rangekv-idle:
# wiped), RKV_PORT (n1's client port, default 7901; n2 +10, n3 +20), RKV_NODE_OPTS (extra `start` options),
# RKV_JAVA_OPTS (node JVM options), SETTLE (default 30), SAMPLE (default 60), WAIT (seconds a pre-split may
# take to complete, default 600), HISTO (set: after each window, the first node's largest classes on the heap).
set -u
cd "$(dirname "$0")/../.."
JAR=${RKV_JAR:-rangekv-cli/target/rangekv.jar}
D=${RKV_DIR:-/tmp/rangekv-idle}; rm -rf "$D"; mkdir -p "$D"
P=${RKV_PORT:-7901}
SETTLE=${SETTLE:-30}; SAMPLE=${SAMPLE:-60}; WAIT=${WAIT:-600}
OPTS="--engine multiraft --dormant-after 0 --set merge.qps=0 ${RKV_NODE_OPTS:-}"
export RANGEKV_CLUSTER=127.0.0.1:$P,127.0.0.1:$((P+10)),127.0.0.1:$((P+20))
cli() { java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$JAR" "$@"; }
node() { # id port [join]
  # shellcheck disable=SC2086
  java ${RKV_JAVA_OPTS:-} -jar "$JAR" start --node-id "$1" --listen 127.0.0.1:"$2" --data-dir "$D/$1" --insecure \
    ${3:+--join $3} $OPTS > "$D/$1.log" 2>&1 &
  echo $! >> "$D/pids"
}
trap 'for p in $(cat $D/pids 2> /dev/null); do kill $p 2> /dev/null; done' EXIT
echo "jar $JAR ($(stat -c %y "$JAR" | cut -c1-19)); node options: $OPTS ${RKV_JAVA_OPTS:-}"
node n1 $P
for i in $(seq 1 60); do cli nodes --cluster 127.0.0.1:$P > /dev/null 2>&1 && break; sleep 1; done
node n2 $((P+10)) 127.0.0.1:$P
node n3 $((P+20)) 127.0.0.1:$P
for i in $(seq 1 60); do [ "$(cli nodes 2> /dev/null | grep -c ' live')" -ge 3 ] && break; sleep 1; done
cli nodes | tail -1

# N ranges of 3 replicas each, each with a leader: prints "DONE ..." then
state() {
  cli ranges --json > "$D/ranges.json" 2> /dev/null
  python3 - "$D/ranges.json" "$1" <<'PY'
import json, sys, collections
rs = json.load(open(sys.argv[1]))
rs = rs.get('ranges', rs) if isinstance(rs, dict) else rs
by = collections.Counter(len(r.get('replicas', [])) for r in rs)
lead = collections.Counter(r.get('leader') or '-' for r in rs)
done = len(rs) >= int(sys.argv[2]) and all(len(r.get('replicas', [])) == 3 for r in rs) and '-' not in lead
print(('DONE ' if done else '') + f"{len(rs)} ranges, by replica count {dict(by)}, leaders {dict(sorted(lead.items()))}")
PY
}

threads() { for p in $(cat "$D/pids"); do for t in /proc/$p/task/*; do
  echo "$p/${t##*/} $(awk '{print $14+$15}' $t/stat 2> /dev/null) $(tr ' ' _ < $t/comm 2> /dev/null)"; done; done | sort; }
sample() { # label
  for p in $(cat "$D/pids"); do echo "$p $(awk '{print $14+$15}' /proc/$p/stat)"; done > "$D/cpu0"
  threads > "$D/threads0"
  echo "$1: sampling ${SAMPLE} s, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  sleep "$SAMPLE"
  threads > "$D/threads1"
  join "$D/threads0" "$D/threads1" | awk -v s="$SAMPLE" -v h="$(getconf CLK_TCK)" '{split($1, a, "/");
      c[a[1] " " $3] += $4 - $2} END {for (k in c) printf "%s %.2f\n", k, 100 * c[k] / h / s}' \
    | sort -k1,1 -k3,3nr | awk -v l="$1" '{if (++r[$1] <= 5) print l, "pid=" $1, "thread=" $2, "cpu%=" $3}'
  while read -r p t0; do
    t1=$(awk '{print $14+$15}' /proc/$p/stat)
    ticks=$(getconf CLK_TCK)
    heap=$(jcmd "$p" GC.heap_info 2> /dev/null | grep -o "used [0-9]*K" | head -1)
    echo "$1 pid=$p cpu%=$(awk -v d=$((t1 - t0)) -v s="$SAMPLE" -v h="$ticks" 'BEGIN{printf "%.2f", 100*d/h/s}')" \
      "rssMiB=$(( $(awk '/VmRSS/ {print $2}' /proc/$p/status) / 1024 ))" \
      "threads=$(awk '/Threads/ {print $2}' /proc/$p/status) heap(${heap:-?})"
  done < "$D/cpu0"
  echo "$1: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "${HISTO:-}" ]; then # the first node's largest classes on the heap (a full GC; after the window)
    jcmd "$(head -1 "$D/pids")" GC.class_histogram 2> /dev/null | sed -n 3,14p | sed "s/^/$1 histogram /"
  fi
}

sample "0 ranges split (the first range only)"
for N in "$@"; do
  t0=$(date +%s)
  keys=$(awk -v n="$N" 'BEGIN {for (i = 1; i < n; i++) printf "%sr%06d", (i > 1 ? "," : ""), i * int(1000000 / n)}')
  cli presplit --at "$keys" --scatter --timeout 1800s > "$D/presplit-$N.out" 2> "$D/presplit-$N.err" &
  ps=$!
  while true; do
    line=$(state "$N"); el=$(( $(date +%s) - t0 ))
    case "$line" in DONE*) echo "$el s: $line"; break ;; esac
    [ $el -ge "$WAIT" ] && { echo "$el s: not done: $line"; break; }
    echo "$el s: $line"
    sleep 30
  done
  if kill -0 $ps 2> /dev/null; then echo "presplit still running after $(( $(date +%s) - t0 )) s"; kill $ps; fi
  wait $ps; rc=$?
  echo "presplit to $N ranges rc=$rc after $(( $(date +%s) - t0 )) s: $(tail -1 "$D/presplit-$N.out")"
  [ $rc = 0 ] || tail -3 "$D/presplit-$N.err"
  sleep "$SETTLE"
  sample "$N ranges ($(state "$N" | grep -o '^[A-Z ]*[0-9]* ranges'))"
done
for p in $(cat "$D/pids"); do kill "$p" 2> /dev/null; done
for p in $(cat "$D/pids"); do while kill -0 "$p" 2> /dev/null; do sleep 1; done; done
rm -f "$D/pids"
