#!/usr/bin/env bash
# Three `rangekv start` processes on loopback, for the data-path benchmark (BENCHMARKS.md, "Data path:
# workload tool"). Needs the CLI jar: mvn -q -B -DskipTests -pl rangekv-cli -am package
#
#   three-nodes.sh start              fresh data dirs, n1 bootstraps, n2 and n3 join
#   three-nodes.sh wait               until 3 nodes are live and every range has 3 replicas and a leader
#                                     (or is dormant: a range no client reached closes its group after 10 s)
#   three-nodes.sh up                 start, then wait; stops the nodes and exits 1 when the wait fails
#   three-nodes.sh stop               SIGTERM each node (a clean close), SIGKILL after 30 s
#   three-nodes.sh status             nodes and ranges
#   three-nodes.sh run ARGS...        start, wait, `rangekv workload run ARGS... --cluster <the 3 nodes>`,
#                                     ranges and load average after, stop (also on failure or Ctrl-C)
#
# Environment: RKV_DIR (default /tmp/rangekv-3nodes: wiped by start), RKV_PORT (n1's client port,
# default 17001; n2 +10, n3 +20; Raft ports are client + 1), RKV_JAR (default rangekv-cli/target/rangekv.jar),
# RKV_NODE_OPTS (extra `start` options; default keeps one range: --set split.qps=1000000),
# RKV_JAVA_OPTS (node JVM options), RKV_CLIENT_JAVA_OPTS (the workload JVM's options),
# RKV_SECURE=1 (mutual TLS: start makes a CA, a node certificate for 127.0.0.1 and a root client
# certificate in $DIR/certs; nodes and every command use them; default: --insecure plaintext).
# The workload prints machine-wide CPU per operation: nodes and workload on one machine, nothing else.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${RKV_DIR:-/tmp/rangekv-3nodes}
PORT=${RKV_PORT:-17001}
JAR=${RKV_JAR:-rangekv-cli/target/rangekv.jar}
NODE_OPTS=${RKV_NODE_OPTS:---set split.qps=1000000}
ADDRS="127.0.0.1:$PORT,127.0.0.1:$((PORT + 10)),127.0.0.1:$((PORT + 20))"
if [ "${RKV_SECURE:-0}" = 1 ]; then
  SECURITY="--certs-dir $DIR/certs"
else
  SECURITY="--insecure"
fi

# shellcheck disable=SC2086
cli() { java -jar "$JAR" "$@" --cluster "$ADDRS" $SECURITY; }

make_certs() {
  java -jar "$JAR" cert create-ca --certs-dir "$DIR/certs"
  java -jar "$JAR" cert create-node --certs-dir "$DIR/certs" 127.0.0.1 localhost
  java -jar "$JAR" cert create-client --certs-dir "$DIR/certs" root
}

start_node() { # id port [join]
  local id=$1 port=$2 join=${3:-}
  # shellcheck disable=SC2086
  java ${RKV_JAVA_OPTS:-} -jar "$JAR" start --node-id "$id" --listen "127.0.0.1:$port" --data-dir "$DIR/$id" \
    ${join:+--join "$join"} $SECURITY $NODE_OPTS > "$DIR/$id.log" 2>&1 &
  echo $! > "$DIR/$id.pid"
}

start() {
  [ -f "$JAR" ] || { echo "no $JAR: mvn -q -B -DskipTests -pl rangekv-cli -am package" >&2; exit 1; }
  if ls "$DIR"/*.pid > /dev/null 2>&1; then stop; fi
  rm -rf "$DIR" && mkdir -p "$DIR"
  if [ "${RKV_SECURE:-0}" = 1 ]; then make_certs; fi
  start_node n1 "$PORT"
  local up=0
  for _ in $(seq 60); do
    # shellcheck disable=SC2086
    java -jar "$JAR" ranges --cluster "127.0.0.1:$PORT" --timeout 2s $SECURITY > /dev/null 2>&1 && { up=1; break; }
    sleep 1
  done
  if [ "$up" = 0 ]; then
    echo "n1 did not answer within 60 s; log in $DIR/n1.log" >&2
    stop
    return 1
  fi
  start_node n2 $((PORT + 10)) "127.0.0.1:$PORT"
  start_node n3 $((PORT + 20)) "127.0.0.1:$PORT"
  echo "started n1 n2 n3 ($ADDRS), logs in $DIR"
}

ready() {
  cli nodes --json 2>/dev/null | python3 -c '
import json, sys
nodes = json.load(sys.stdin)["nodes"]
sys.exit(0 if sum(1 for n in nodes if n["live"]) == 3 else 1)' || return 1
  cli ranges --json 2>/dev/null | python3 -c '
import json, sys
ranges = json.load(sys.stdin)["ranges"]
# a dormant range has no leader until a request wakes it, and fresh ranges go dormant after 10 s idle
sys.exit(0 if ranges and all(len(r["replicas"]) == 3 and (r["leader"] or r["state"] == "dormant")
                             for r in ranges) else 1)'
}

wait_ready() {
  for _ in $(seq 90); do
    if ready; then echo "3 nodes live, every range on 3 replicas"; return 0; fi
    sleep 2
  done
  echo "the cluster did not reach 3 live nodes with 3 replicas per range in 180 s; logs in $DIR" >&2
  return 1
}

stop() {
  local pids=()
  for f in "$DIR"/*.pid; do
    [ -f "$f" ] || continue
    pids+=("$(cat "$f")")
    rm -f "$f"
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2> /dev/null || true
  for _ in $(seq 30); do
    kill -0 "${pids[@]}" 2> /dev/null || { echo "stopped ${pids[*]}"; return 0; }
    sleep 1
  done
  kill -KILL "${pids[@]}" 2> /dev/null || true
  echo "killed ${pids[*]} (no clean stop within 30 s)"
}

status() {
  cli nodes || true
  cli ranges || true
}

case "${1:-}" in
  start) start ;;
  wait) wait_ready ;;
  up) start; wait_ready || { stop; exit 1; } ;;
  stop) stop ;;
  status) status ;;
  run)
    shift
    trap stop EXIT
    start
    wait_ready
    cli ranges
    echo "load before the workload: $(cat /proc/loadavg)"
    # shellcheck disable=SC2086
    java ${RKV_CLIENT_JAVA_OPTS:-} -jar "$JAR" workload run "$@" --cluster "$ADDRS" $SECURITY
    echo "load after the workload: $(cat /proc/loadavg)"
    cli ranges
    ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
