#!/usr/bin/env bash
# The `emdb sync` targets of issue 18 (figures in docs/BENCH.md, "emdb sync").
#
#   bash benches/sync.sh [N]        # N records for the full copy, default 1,000,000
#   ROUNDS=5 bash benches/sync.sh   # full-copy rounds (default 3), medians printed
#
# Starts its own redis-server processes on loopback ports (one standalone,
# three cluster masters joined with `redis-cli --cluster create`), stops them
# by pid at exit, and prints one line per measurement:
#   1. full copy of N records (24-byte keys, 150-byte values) into the
#      standalone server: `emdb export --format resp | redis-cli --pipe`
#      against `emdb sync --to`, same run, same server (flushed between);
#   2. the same full copy into the 3-master cluster with `emdb sync --cluster`
#      (1 and 2 alternate, ROUNDS times, then the medians);
#   3. follow lag at 10,000 durable writes/s: from `flush` returning to the
#      key being readable in Redis (p50, p99, max);
#   4. resends after a SIGKILL in the middle of a full copy: the restart's
#      starting offset (the saved cursor) against the offset the killed sync
#      had reported last, and what the restart sent.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
command -v redis-server >/dev/null || { echo "needs redis-server and redis-cli (apt-get install redis-server redis-tools)"; exit 1; }

cargo build --release -q -p emdb-cli
cargo build --release -q -p emdb-benches --features redis --example sync_lag
EMDB=$PWD/target/release/emdb
HELPER=$PWD/target/release/examples/sync_lag
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# A free loopback port below 55000 whose cluster bus port (+10000) is free too.
free_port() { python3 -c '
import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]
    if p < 55000:
        t = socket.socket()
        try:
            t.bind(("127.0.0.1", p + 10000)); print(p); break
        except OSError:
            pass
'; }
start_redis() { # port dir [cluster]
    mkdir -p "$2"
    local extra=()
    [ "${3:-}" = cluster ] && extra=(--cluster-enabled yes --cluster-config-file nodes.conf)
    redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --dir "$2" "${extra[@]}" >/dev/null &
    PIDS+=($!)
    local tries=0
    until redis-cli -p "$1" PING >/dev/null 2>&1; do
        sleep 0.05; tries=$((tries + 1))
        [ "$tries" -lt 200 ] || { echo "redis-server on port $1 did not start"; exit 1; }
    done
}
secs() { python3 -c "import sys; print(f'{float(sys.argv[2])-float(sys.argv[1]):.2f}')" "$1" "$2"; }
now() { date +%s.%N; }

P=$(free_port); start_redis "$P" "$WORK/r1"
DB=$WORK/src.emdb
"$HELPER" fill "$DB" "$N"
echo "source: $N records, $(stat -c %s "$DB") bytes"

# 1. and 2. Full copies, alternating ROUNDS times (default 3): the pipe, the
# sync into the one server, the sync into the cluster (each target flushed
# first, so every sync starts fresh); then the medians.
C1=$(free_port); C2=$(free_port); C3=$(free_port)
start_redis "$C1" "$WORK/c1" cluster; start_redis "$C2" "$WORK/c2" cluster; start_redis "$C3" "$WORK/c3" cluster
redis-cli --cluster create 127.0.0.1:$C1 127.0.0.1:$C2 127.0.0.1:$C3 --cluster-replicas 0 --cluster-yes >/dev/null
until redis-cli -p "$C1" CLUSTER INFO | grep -q cluster_state:ok; do sleep 0.1; done
ratio() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.2f}")' "$1" "$2"; }
median() { python3 -c "import statistics, sys; print(f'{statistics.median(float(x) for x in sys.argv[1:]):.2f}')" "$@"; }
PIPES=(); SYNCS=(); CLUSTERS=()
for round in $(seq 1 "${ROUNDS:-3}"); do
    redis-cli -p "$P" FLUSHALL >/dev/null
    t0=$(now); "$EMDB" --db "$DB" export --format resp 2>/dev/null | redis-cli -p "$P" --pipe >/dev/null; t1=$(now)
    pipe=$(secs "$t0" "$t1"); keys=$(redis-cli -p "$P" DBSIZE); PIPES+=("$pipe")
    redis-cli -p "$P" FLUSHALL >/dev/null
    t0=$(now); "$EMDB" --db "$DB" sync --quiet --to "redis://127.0.0.1:$P"; t1=$(now)
    sync1=$(secs "$t0" "$t1"); keys1=$(redis-cli -p "$P" DBSIZE); SYNCS+=("$sync1")
    for c in $C1 $C2 $C3; do redis-cli -p "$c" FLUSHALL >/dev/null; done
    t0=$(now); "$EMDB" --db "$DB" sync --quiet --cluster --to "redis://127.0.0.1:$C1"; t1=$(now)
    syncc=$(secs "$t0" "$t1"); CLUSTERS+=("$syncc")
    total=0; for c in $C1 $C2 $C3; do total=$((total + $(redis-cli -p "$c" DBSIZE))); done
    echo "round $round: export --format resp | redis-cli --pipe ${pipe}s ($keys keys); emdb sync ${sync1}s ($keys1 keys incl. the cursor) = $(ratio "$pipe" "$sync1")x; emdb sync --cluster ${syncc}s ($total keys) = $(ratio "$pipe" "$syncc")x"
done
mp=$(median "${PIPES[@]}"); ms=$(median "${SYNCS[@]}"); mc=$(median "${CLUSTERS[@]}")
echo "medians of ${#PIPES[@]}: pipe ${mp}s; emdb sync (standalone) ${ms}s = $(ratio "$mp" "$ms")x the pipe's speed; emdb sync (3-master cluster) ${mc}s = $(ratio "$mp" "$mc")x"

# 3. Follow lag at 10,000 durable writes/s.
redis-cli -p "$P" FLUSHALL >/dev/null
LAGDB=$WORK/lag.emdb
"$HELPER" fill "$LAGDB" 1000
"$EMDB" --db "$LAGDB" sync --quiet --follow --to "redis://127.0.0.1:$P" &
SYNC=$!; PIDS+=($SYNC)
sleep 1
"$HELPER" lag "$LAGDB" "redis://127.0.0.1:$P" 10000 10
kill "$SYNC"

# 4. Resends after a SIGKILL in the middle of a full copy.
redis-cli -p "$P" FLUSHALL >/dev/null
"$EMDB" --db "$DB" sync --json --follow --interval 50ms --to "redis://127.0.0.1:$P" > "$WORK/ticks" &
SYNC=$!; PIDS+=($SYNC)
sleep 1.5
kill -9 "$SYNC"; wait "$SYNC" 2>/dev/null || true
last=$(grep -o '"position":[0-9]*' "$WORK/ticks" | tail -1 | cut -d: -f2)
saved=$(redis-cli -p "$P" --raw GET "$(redis-cli -p "$P" --raw KEYS 'emdb-sync-cursor:*' | head -1)")
"$EMDB" --db "$DB" sync --json --to "redis://127.0.0.1:$P" > "$WORK/done"
echo "after SIGKILL: saved cursor '$saved', last reported position ${last:-none (killed during the copy: ticks start after it)}; restart: $(tail -1 "$WORK/done")"
