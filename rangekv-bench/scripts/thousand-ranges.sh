#!/usr/bin/env bash
# A thousand ranges per node (BENCHMARKS.md, "A thousand ranges per node"): three `rangekv start`
# processes on loopback (ports 7301/7311/7321, data under /tmp/rkd/thousand), one key r00000K/x written
# for each K < N into the single first range, then pre-split in batches of BATCH into N ranges starting at
# r000001, r000002, ... (replication 3: every node holds all N), so each range holds one key;
# then, in separate steps so the set-up can run outside `rkbench` and the measuring inside it: per node
# threads, RSS, NMT "Other" (JDK direct buffers) and CPU over 30 s; the first get to SAMPLES dormant
# ranges (WakeLatency wake); closed-loop put+get on RANGES random ranges (WakeLatency touch).
# Needs the CLI and bench jars: mvn -q -B -DskipTests -pl rangekv-cli,rangekv-bench -am package
# Every step fits a short `rkbench` sitting: `stop` ends one, `restart` begins the next on the same data
# (the nodes open only their awake ranges), and `grow` pre-splits further (e.g. 1,000 -> 3,000 ranges
# over several sittings).
# Usage (from the repository root):
#   rangekv-bench/scripts/thousand-ranges.sh setup N BATCH DORMANT_AFTER   # start, load, pre-split
#   rkbench rangekv-bench/scripts/thousand-ranges.sh grow FROM TO BATCH    # load and pre-split r(FROM)..r(TO-1)
#   rkbench rangekv-bench/scripts/thousand-ranges.sh restart               # start the stopped nodes again
#   rkbench rangekv-bench/scripts/thousand-ranges.sh settle N              # wait until N (or all) ranges are dormant
#   rkbench rangekv-bench/scripts/thousand-ranges.sh sample LABEL          # per-node threads/RSS/CPU
#   rkbench rangekv-bench/scripts/thousand-ranges.sh hot LABEL             # per node, the threads using most CPU
#   rkbench rangekv-bench/scripts/thousand-ranges.sh wake N SAMPLES        # wake latency
#   rkbench rangekv-bench/scripts/thousand-ranges.sh touch N RANGES THREADS SECONDS
#   rangekv-bench/scripts/thousand-ranges.sh stop
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
B=/tmp/rkd/thousand
RUN="rangekv-cli/src/dist/bin/rangekv-run rangekv-cli/target/rangekv.jar rangekv-cli/target/rangekv-thin.jar"
SEEDS=127.0.0.1:7301,127.0.0.1:7311,127.0.0.1:7321
BENCH="java -cp rangekv-bench/target/benchmarks.jar dev.rangekv.bench.cluster.WakeLatency"
cli() { RANGEKV_JAVA_OPTS= $RUN "$@" --cluster 127.0.0.1:7301; }
pids() { cat $B/pids; }
# starts the three nodes (n2 and n3 join through n1; after a restart they register again)
startnodes() {
  DORM=$(cat $B/dorm)
  export RANGEKV_JAVA_OPTS="-XX:NativeMemoryTracking=summary"
  t0=$(date +%s%N)
  fresh=true; [ -d $B/n1 ] && fresh=false
  $RUN start --node-id n1 --listen 127.0.0.1:7301 --data-dir $B/n1 --insecure --dormant-after $DORM >> $B/n1.log 2>&1 & P1=$!
  # a fresh n1 bootstraps before the others join; a restarted one needs them for its meta range's majority
  if $fresh; then for i in $(seq 1 40); do cli nodes > /dev/null 2>&1 && break; sleep 1; done; fi
  $RUN start --node-id n2 --listen 127.0.0.1:7311 --data-dir $B/n2 --insecure --join 127.0.0.1:7301 --dormant-after $DORM >> $B/n2.log 2>&1 & P2=$!
  $RUN start --node-id n3 --listen 127.0.0.1:7321 --data-dir $B/n3 --insecure --join 127.0.0.1:7301 --dormant-after $DORM >> $B/n3.log 2>&1 & P3=$!
  echo "$P1 $P2 $P3" > $B/pids
  for i in $(seq 1 60); do
    live=$(cli nodes 2>/dev/null | grep -c " live" || true)
    [ "$live" -ge 3 ] && break; sleep 2
  done
  echo "3 nodes live after $(( ($(date +%s%N)-t0)/1000000 )) ms"
}
# loads r(FROM)/x..r(TO-1)/x (into the last range, awake after one wake), then pre-splits there
grow() {
  FROM=$1; TO=$2; BATCH=$3
  $BENCH load $SEEDS $FROM $TO > /dev/null 2>$B/load.err || { echo load failed; tail -3 $B/load.err; }
  echo "loaded keys $FROM..$((TO-1)) $(date -u +%T)"
  start=$FROM; [ $start -lt 1 ] && start=1
  while [ $start -lt $TO ]; do
    end=$((start+BATCH)); [ $end -gt $TO ] && end=$TO
    keys=$(seq $start $((end-1)) | awk '{printf "%sr%06d", (NR>1?",":""), $1}')
    t0=$(date +%s)
    cli presplit --timeout 1800s --at "$keys" > $B/presplit.out 2>&1 || { echo "presplit failed"; tail -3 $B/presplit.out; }
    echo "presplit to $end: $(( $(date +%s)-t0 )) s; $(cli ranges | tail -1); load: $(uptime)"
    start=$end
  done
}
verb=$1; shift
case $verb in
setup)
  N=$1; BATCH=$2
  rm -rf $B; mkdir -p $B; echo "$3" > $B/dorm
  startnodes
  for i in $(seq 1 90); do cli ranges 2>/dev/null | grep -Eq "n[123],n[123],n[123]" && break; sleep 2; done
  grow 0 $N $BATCH
  ;;
grow)
  grow "$@"
  ;;
restart)
  startnodes
  echo "$(cli ranges | tail -1); load: $(uptime)"
  ;;
settle)
  # until N ranges are dormant, or every range is (the controller may have merged a few cold neighbours)
  for i in $(seq 1 120); do
    line=$(cli ranges | tail -1)
    n=$(echo "$line" | grep -o "[0-9]* ranges" | grep -o "[0-9]*"); d=$(echo "$line" | grep -o "[0-9]* dormant" | grep -o "[0-9]*")
    [ -n "$d" ] && { [ "$d" -ge "$1" ] || [ "$d" = "$n" ]; } && break; sleep 5
  done
  echo "after wait: $line"
  ;;
sample)
  for p in $(pids); do
    th=$(grep Threads /proc/$p/status | awk '{print $2}'); rss=$(grep VmRSS /proc/$p/status | awk '{print $2}')
    t0=$(awk '{print $14+$15}' /proc/$p/stat)
    echo "$p $th $rss $t0"
  done > $B/s0
  echo "$(cli ranges | tail -1); load: $(uptime)"
  sleep 30
  while read p th rss t0; do
    t1=$(awk '{print $14+$15}' /proc/$p/stat)
    nmt=$(jcmd $p VM.native_memory summary 2>/dev/null)
    other=$(echo "$nmt" | grep -A1 "^-  *Other" | grep -o "committed=[0-9]*KB" | head -1)
    heap=$(echo "$nmt" | grep -A1 "^-  *Java Heap" | grep -o "committed=[0-9]*KB" | head -1)
    echo "$1 pid=$p threads=$th rssMiB=$((rss/1024)) cpu%=$(awk -v d=$((t1-t0)) 'BEGIN{printf "%.2f", d/30}') nmtOther(direct)=$other heap=$heap"
  done < $B/s0
  ;;
hot)
  # the threads that used the most CPU over 30 s, per node (names from /proc, cut to 15 characters)
  snap() { for p in $(pids); do for t in /proc/$p/task/*; do
    echo "$p ${t##*/} $(awk '{print $14+$15}' $t/stat 2>/dev/null) $(tr ' ' _ < $t/comm 2>/dev/null)"; done; done; }
  snap > $B/h0; echo "$(cli ranges | tail -1); load: $(uptime)"; sleep 30; snap > $B/h1
  join <(awk '{print $1"/"$2, $3, $4}' $B/h0 | sort) <(awk '{print $1"/"$2, $3}' $B/h1 | sort) \
    | awk '{split($1,a,"/"); d=$4-$2; if (d>0) print a[1], $3, d}' \
    | awk '{k=$1" "$2; c[k]+=$3; n[k]++} END {for (k in c) print k, c[k], n[k]}' | sort -k1,1 -k3,3nr \
    | awk -v l="$1" '{if (++r[$1] <= 8) printf "%s pid=%s thread=%s cpu%%=%.2f threads=%d\n", l, $1, $2, $3/30, $4}'
  ;;
wake)
  echo "$(cli ranges | tail -1); load: $(uptime)"
  $BENCH wake $SEEDS $1 $2
  echo "$(cli ranges | tail -1); load: $(uptime)"
  ;;
touch)
  echo "$(cli ranges | tail -1); load: $(uptime)"
  $BENCH touch $SEEDS "$@"
  echo "$(cli ranges | tail -1); load: $(uptime)"
  ;;
stop)
  kill $(pids) 2>/dev/null; sleep 5; kill -9 $(pids) 2>/dev/null; true
  ;;
esac
