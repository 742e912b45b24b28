#!/usr/bin/env bash
# `emdb shell` batch mode against `redis-cli --pipe` into a local
# redis-server, in the same run: N put lines and N get lines (default
# 1,000,000 each; N=... to change), ROUNDS alternating rounds (default 5;
# each round loads a fresh emdb database and FLUSHALLs the server first).
# Prints every round's wall-clock seconds, the medians and their ratio.
#
#   benches/scripts/shell_vs_redis.sh            # builds the release emdb
#   EMDB=/path/to/emdb N=200000 ROUNDS=3 benches/scripts/shell_vs_redis.sh
#
# redis-server and redis-cli must be installed (apt-get install redis-server).
# The server is started on a free loopback port with persistence off and is
# stopped by its pid at the end; nothing else is touched.
set -euo pipefail

N=${N:-1000000}
ROUNDS=${ROUNDS:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ -z "${EMDB:-}" ]]; then
    cargo build --release -q -p emdb-cli --manifest-path "$root/Cargo.toml"
    EMDB="$root/target/release/emdb"
fi
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
    echo "redis-server and redis-cli are needed" >&2
    exit 2
}

work=$(mktemp -d)
redis_pid=""
cleanup() {
    if [[ -n "$redis_pid" ]]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# The same keys and values for both: key:0000000 -> value:0000000 (13 bytes each).
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "put key:%07d value:%07d\n", i, i }' > "$work/puts.txt"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "get key:%07d\n", i }' > "$work/gets.txt"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$11\r\nkey:%07d\r\n$13\r\nvalue:%07d\r\n", i, i }' > "$work/sets.resp"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "*2\r\n$3\r\nGET\r\n$11\r\nkey:%07d\r\n", i }' > "$work/gets.resp"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
    --dir "$work" --daemonize no --logfile "$work/redis.log" &
redis_pid=$!
for _ in $(seq 100); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.05
done

seconds() { # seconds IN OUT CMD...: run CMD < IN > OUT and print the elapsed seconds
    local in=$1 out=$2 start end
    shift 2
    start=$(date +%s.%N)
    "$@" < "$in" > "$out"
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

# The inputs on disk before anything is timed (their writeback would
# otherwise land in the first timed run).
sync

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: > "$work/put.emdb"; : > "$work/get.emdb"; : > "$work/put.redis"; : > "$work/get.redis"
for round in $(seq "$ROUNDS"); do
    db="$work/bench-$round.emdb"
    seconds "$work/puts.txt" /dev/null "$EMDB" --db "$db" -q shell >> "$work/put.emdb"
    seconds "$work/gets.txt" "$work/emdb_gets.out" "$EMDB" --db "$db" -q shell >> "$work/get.emdb"
    rm -f "$db" "$db".*
    redis-cli -p "$port" flushall >/dev/null
    seconds "$work/sets.resp" "$work/redis_set.out" redis-cli -p "$port" --pipe >> "$work/put.redis"
    seconds "$work/gets.resp" "$work/redis_get.out" redis-cli -p "$port" --pipe >> "$work/get.redis"

    # Both really did the work.
    [[ $(wc -l < "$work/emdb_gets.out") -eq $N ]] || { echo "emdb printed the wrong number of values" >&2; exit 1; }
    [[ "$(head -1 "$work/emdb_gets.out")" == "value:0000000" ]] || { echo "emdb printed a wrong value" >&2; exit 1; }
    grep -q "errors: 0, replies: $N" "$work/redis_set.out" || { cat "$work/redis_set.out" >&2; exit 1; }
    [[ $(redis-cli -p "$port" dbsize) -eq $N ]] || { echo "redis holds the wrong number of keys" >&2; exit 1; }
done

runs() { tr '\n' ' ' < "$1" | sed 's/ $//'; }
printf '%-28s %10s %10s %8s\n' "lines ($N each), medians" "emdb s" "redis s" "speedup"
for what in put get; do
    e=$(median < "$work/$what.emdb")
    r=$(median < "$work/$what.redis")
    label="put (incl. final fsync)"
    [[ $what == get ]] && label="get (values to a file)"
    printf '%-28s %10.3f %10.3f %7.1fx\n' "$label" "$e" "$r" "$(echo "$r / $e" | bc -l)"
done
echo "rounds ($ROUNDS, alternating):"
for what in put get; do
    printf '  emdb %s:  %s\n' "$what" "$(runs "$work/$what.emdb" | xargs printf '%.3f ')"
    printf '  redis %s: %s\n' "$what" "$(runs "$work/$what.redis" | xargs printf '%.3f ')"
done
