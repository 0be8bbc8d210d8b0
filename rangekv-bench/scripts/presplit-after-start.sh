#!/usr/bin/env bash
# `rangekv presplit --uniform N --scatter` right after a 3-node start as the README starts one (BENCHMARKS.md,
# "Pre-split into 1,000 ranges right after a start"): n1 bootstraps, n2 and n3 join, and as soon as the
# three are live the pre-split runs; then the map is polled every 10 s until it holds N ranges of 3
# replicas each (or 400 s pass). Prints the CLI's progress lines, the time to done, replicas and leaders
# per node, each node's threads and RSS, and the load average. Stops the nodes at the end.
#
#   rkbench rangekv-bench/scripts/presplit-after-start.sh [N]      (default 1000)
#
# Environment: RKV_DIR (default /tmp/rangekv-presplit: wiped), RKV_PORT (n1's client port, default 7501;
# n2 +10, n3 +20). Needs the CLI jar (./rangekv builds it).
set -u
N=${1:-1000}
cd "$(dirname "$0")/../.."
D=${RKV_DIR:-/tmp/rangekv-presplit}; rm -rf "$D"; mkdir -p "$D"
P=${RKV_PORT:-7501}
uptime
./rangekv start --node-id n1 --listen 127.0.0.1:$P --data-dir $D/n1 --insecure > $D/n1.log 2>&1 & echo $! > $D/pids
for i in $(seq 1 30); do ./rangekv nodes --cluster 127.0.0.1:$P > /dev/null 2>&1 && break; sleep 1; done
./rangekv start --node-id n2 --listen 127.0.0.1:$((P+10)) --data-dir $D/n2 --insecure --join 127.0.0.1:$P > $D/n2.log 2>&1 & echo $! >> $D/pids
./rangekv start --node-id n3 --listen 127.0.0.1:$((P+20)) --data-dir $D/n3 --insecure --join 127.0.0.1:$P > $D/n3.log 2>&1 & echo $! >> $D/pids
trap 'for p in $(cat $D/pids); do kill $p 2> /dev/null; done' EXIT
export RANGEKV_CLUSTER=127.0.0.1:$P,127.0.0.1:$((P+10)),127.0.0.1:$((P+20))
for i in $(seq 1 30); do [ "$(./rangekv nodes 2> /dev/null | grep -c ' live')" -ge 3 ] && break; sleep 1; done
./rangekv nodes | tail -1
t0=$(date +%s)
./rangekv presplit --uniform $N --scatter > $D/presplit.out 2> $D/presplit.err; rc=$?
echo "presplit rc=$rc after $(( $(date +%s) - t0 )) s: $(tail -1 $D/presplit.out)"
sed -n '1~4p' $D/presplit.err; tail -1 $D/presplit.err
for i in $(seq 1 40); do
  ./rangekv ranges --json > $D/ranges.json 2> /dev/null
  line=$(python3 - "$D/ranges.json" "$N" "$(( $(date +%s) - t0 ))" <<'PY'
import json, sys, collections
rs = json.load(open(sys.argv[1]))
rs = rs.get('ranges', rs) if isinstance(rs, dict) else rs
by = collections.Counter(len(r.get('replicas', [])) for r in rs)
per = collections.Counter((n['nodeId'] if isinstance(n, dict) else n) for r in rs for n in r.get('replicas', []))
lead = collections.Counter(r.get('leader') or '-' for r in rs)
done = len(rs) >= int(sys.argv[2]) and all(len(r.get('replicas', [])) == 3 for r in rs)
print(('DONE ' if done else '') + f"{sys.argv[3]} s: {len(rs)} ranges, by replica count {dict(by)}, "
      f"replicas per node {dict(sorted(per.items()))}, leaders {dict(sorted(lead.items()))}")
PY
  )
  echo "$line"
  case "$line" in DONE*) break ;; esac
  [ $(( $(date +%s) - t0 )) -ge 400 ] && break
  sleep 10
done
for p in $(cat $D/pids); do
  echo "pid $p: $(ls /proc/$p/task 2> /dev/null | wc -l) threads, RSS $(( $(awk '/VmRSS/ {print $2}' /proc/$p/status 2> /dev/null || echo 0) / 1024 )) MiB"
done
uptime
