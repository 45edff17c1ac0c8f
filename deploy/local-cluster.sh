#!/usr/bin/env bash
# Runs a multi-node Rota cluster on this machine, all nodes on one PostgreSQL.
#
#   ROTA_DB_URL=jdbc:postgresql://localhost:5432/rota ROTA_DB_USER=rota ROTA_DB_PASSWORD=... \
#     deploy/local-cluster.sh start      # builds the jar if missing, starts the nodes, waits for /ready
#   deploy/local-cluster.sh status       # pid and /ready of every node
#   deploy/local-cluster.sh stop         # SIGTERM: each node leaves the cluster and exits
#
# Node i (1..NODES, default 3) uses API port 808i, management port 855i and
# cluster port 2552i; nodes 1 and 2 are the seed nodes. Logs and pid files go
# to data/local-cluster/ (ROTA_LOCAL_CLUSTER_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
JAR="$ROOT/modules/rota-server/target/rota-server.jar"
RUN_DIR="${ROTA_LOCAL_CLUSTER_DIR:-$ROOT/data/local-cluster}"
NODES="${NODES:-3}"
SEEDS="127.0.0.1:25521,127.0.0.1:25522"
READY_TIMEOUT_SECONDS="${READY_TIMEOUT_SECONDS:-120}"

if ! [[ "$NODES" =~ ^[1-9]$ ]]; then
  echo "NODES must be 1..9 (ports 8081..8089)" >&2
  exit 2
fi

pid_file() { echo "$RUN_DIR/node-$1.pid"; }

running() {
  local file
  file="$(pid_file "$1")"
  [[ -f "$file" ]] && kill -0 "$(cat "$file")" 2>/dev/null
}

ready_status() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$((8550 + $1))/ready" || true
}

start() {
  : "${ROTA_DB_URL:?set ROTA_DB_URL (and ROTA_DB_USER, ROTA_DB_PASSWORD) to a PostgreSQL database all nodes share}"
  if [[ ! -f "$JAR" ]]; then
    (cd "$ROOT" && mvn -B -q package -DskipTests)
  fi
  mkdir -p "$RUN_DIR"
  for i in $(seq 1 "$NODES"); do
    if running "$i"; then
      echo "node $i already running (pid $(cat "$(pid_file "$i")"))"
      continue
    fi
    ROTA_HTTP_PORT=$((8080 + i)) \
      ROTA_MANAGEMENT_PORT=$((8550 + i)) \
      ROTA_CLUSTER_PORT=$((25520 + i)) \
      ROTA_CLUSTER_HOST=127.0.0.1 \
      ROTA_SEED_NODES="$SEEDS" \
      ROTA_DATA_DIR="$RUN_DIR/node-$i" \
      nohup java -Dconfig.file="$ROOT/config/cluster-node.conf" -jar "$JAR" \
      >"$RUN_DIR/node-$i.log" 2>&1 </dev/null &
    echo $! >"$(pid_file "$i")"
    echo "node $i starting (pid $!): API http://127.0.0.1:$((8080 + i)), management http://127.0.0.1:$((8550 + i)), log $RUN_DIR/node-$i.log"
  done
  local deadline=$((SECONDS + READY_TIMEOUT_SECONDS))
  for i in $(seq 1 "$NODES"); do
    until [[ "$(ready_status "$i")" == 200 ]]; do
      if ! running "$i" || ((SECONDS > deadline)); then
        echo "node $i did not become ready; last lines of its log:" >&2
        tail -n 20 "$RUN_DIR/node-$i.log" >&2
        exit 1
      fi
      sleep 1
    done
    echo "node $i ready"
  done
  curl -s "http://127.0.0.1:8551/cluster/members"
  echo
}

stop() {
  for i in $(seq 1 9); do
    local file
    file="$(pid_file "$i")"
    [[ -f "$file" ]] || continue
    if running "$i"; then
      kill -TERM "$(cat "$file")"
      for _ in $(seq 1 60); do
        running "$i" || break
        sleep 0.5
      done
      if running "$i"; then
        echo "node $i still running after 30 s (pid $(cat "$file"))" >&2
        continue
      fi
      echo "node $i stopped"
    fi
    rm -f "$file"
  done
}

status() {
  for i in $(seq 1 9); do
    [[ -f "$(pid_file "$i")" ]] || continue
    if running "$i"; then
      echo "node $i: pid $(cat "$(pid_file "$i")"), /ready $(ready_status "$i")"
    else
      echo "node $i: not running (see $RUN_DIR/node-$i.log)"
    fi
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
