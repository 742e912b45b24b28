#!/usr/bin/env bash
# One-shot writes in a loop: what a shell script that calls `emdb put` once
# per key pays as the loop goes on, against `sqlite3` on the same rows.
#
# Copies the 1M-key (or SIZE) databases `benches/scripts/per_invocation.sh`
# builds (run it first: `SIZES=N RUNS=1 benches/scripts/per_invocation.sh`)
# into a scratch directory, then runs PUTS iterations of
#   emdb --db DB put loop:I VALUE
#   sqlite3 DB "INSERT OR REPLACE INTO kv VALUES('loop:I','VALUE')"
# alternating (new keys, 100-byte values, one process each, durable as in
# per_invocation.sh), and prints, for each block of BLOCK iterations, the
# median, 99th percentile and slowest call of each, and the ratio of the
# medians. Every value is read back from both at the end.
#
# Environment:
#   SIZE=1000000          key count of the per_invocation.sh databases
#   PUTS=3000             iterations
#   BLOCK=500             iterations per reported block
#   EMDB_BIN=PATH         emdb binary (default target/release/emdb)
#   SQLITE3=PATH          sqlite3 binary (default: sqlite3 on PATH)
#   PER_INVOCATION_DIR    where per_invocation.sh keeps its databases
#                         (default target/per-invocation)

set -euo pipefail
export LC_ALL=C

die() {
    echo "put_loop: $*" >&2
    exit 1
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIZE=${SIZE:-1000000}
PUTS=${PUTS:-3000}
BLOCK=${BLOCK:-500}
SQLITE3=${SQLITE3:-sqlite3}
EMDB_BIN=${EMDB_BIN:-$ROOT/target/release/emdb}
SRC=${PER_INVOCATION_DIR:-$ROOT/target/per-invocation}/$SIZE
case $PUTS$BLOCK in *[!0-9]*) die "PUTS and BLOCK must be positive integers" ;; esac
[ "$PUTS" -gt 0 ] && [ "$BLOCK" -gt 0 ] || die "PUTS and BLOCK must be positive integers"
[ -x "$EMDB_BIN" ] || die "no emdb binary at $EMDB_BIN (cargo build --release -p emdb-cli)"
command -v "$SQLITE3" >/dev/null || die "sqlite3 not found ($SQLITE3); apt-get install sqlite3"
[ -f "$SRC/emdb.done" ] && [ -f "$SRC/sqlite.done" ] ||
    die "no databases in $SRC: run SIZES=$SIZE RUNS=1 benches/scripts/per_invocation.sh first"
[ -n "${EPOCHREALTIME:-}" ] || die "bash 5 or later is needed (EPOCHREALTIME)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/put_loop.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# Sparse copies: the room a writer keeps allocated past the log's end
# reads as zeros and is no data to SEEK_DATA, as in the original; copied
# as written zeros, every writer's open would read it again (about 1.5 MiB).
cp --sparse=always "$SRC"/emdb.emdb* "$WORK"/
cp --sparse=always "$SRC"/kv.sqlite "$WORK"/
sync
DB=$WORK/emdb.emdb
SQ=$WORK/kv.sqlite

value() {
    local s
    printf -v s 'loop%06d-' "$1"
    s=$s$s$s$s$s$s$s$s$s$s$s
    REPLY=${s:0:100}
}

# Microseconds taken by the command in "$@".
micros() {
    local t0 t1
    t0=$EPOCHREALTIME
    "$@" >/dev/null
    t1=$EPOCHREALTIME
    REPLY=$(((${t1/./} - ${t0/./})))
}

# Median, 99th percentile and max of the numbers on stdin, in ms.
stats() {
    sort -n | awk '{a[NR]=$1} END {
        printf "%.2f %.2f %.2f\n", a[int((NR+1)/2)]/1000, a[int(NR*0.99+0.999)]/1000, a[NR]/1000 }'
}

: >"$WORK/e.us"
: >"$WORK/s.us"
echo "| puts | emdb median / p99 / max (ms) | sqlite3 median / p99 / max (ms) | emdb / sqlite3 (medians) |"
echo "|---|---:|---:|---:|"
for ((i = 1; i <= PUTS; i++)); do
    value "$i"
    micros "$EMDB_BIN" --db "$DB" put "loop:$i" "$REPLY"
    echo "$REPLY" >>"$WORK/e.us"
    value "$i"
    micros "$SQLITE3" "$SQ" "INSERT OR REPLACE INTO kv VALUES('loop:$i','$REPLY')"
    echo "$REPLY" >>"$WORK/s.us"
    if ((i % BLOCK == 0 || i == PUTS)); then
        read -r em ep ex < <(stats <"$WORK/e.us")
        read -r sm sp sx < <(stats <"$WORK/s.us")
        ratio=$(awk -v a="$em" -v b="$sm" 'BEGIN { printf "%.2f", a / b }')
        echo "| $((i - $(wc -l <"$WORK/e.us") + 1))-$i | $em / $ep / $ex | $sm / $sp / $sx | ${ratio}x |"
        : >"$WORK/e.us"
        : >"$WORK/s.us"
    fi
done

for i in 1 $((PUTS / 2)) "$PUTS"; do
    [ "$i" -ge 1 ] || continue
    value "$i"
    got=$("$EMDB_BIN" --db "$DB" get "loop:$i")
    [ "$got" = "$REPLY" ] || die "emdb: loop:$i reads back as '$got'"
    got=$("$SQLITE3" "$SQ" "SELECT v FROM kv WHERE k='loop:$i'")
    [ "$got" = "$REPLY" ] || die "sqlite3: loop:$i reads back as '$got'"
done
echo
echo "emdb: $("$EMDB_BIN" --db "$DB" stats | grep 'opened from' | sed 's/  */ /g')" \
    "($("$EMDB_BIN" --version)); sqlite $("$SQLITE3" --version | awk '{print $1}')"
