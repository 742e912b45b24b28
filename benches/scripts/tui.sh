#!/usr/bin/env bash
# emdb-tui on a big database, in a real terminal (issues 14 and 17).
#
# Builds (once, then reuses) a database of N keys `user:%08d` with 100-byte
# values through the release `emdb import`, then runs the release emdb-tui
# read-only in a detached tmux window (160x40) and measures:
#   first page   from just before `tmux new-session` until capture-pane
#                shows the first key (polled every ~10 ms; includes tmux
#                starting the pane), RUNS times, median and max;
#   memory       after the first page, End, ten PgUp, Home, a prefix filter
#                and its clearing: VmHWM (peak RSS), VmRSS, RssAnon (the
#                TUI's own memory: the database's mapped pages are RssFile,
#                page cache shared with every reader);
#   idle CPU     utime+stime of the TUI over IDLE_SECONDS with no writer;
#   follow CPU   the same over CPU_SECONDS while the live_writer example
#                (examples/live_writer.rs) writes RATE keys a second
#                (appends, updates, deletes, a flush every 100 ms), after
#                checking the key count on screen moves;
#   busy page    the first page again, RUNS times, on a copy while
#                live_writer writes BUSY_RATE keys a second (its first key,
#                `blob:logo`, is the one waited for).
# One line per figure on stdout, for docs/BENCH.md ("emdb-tui").
#
# Usage: benches/scripts/tui.sh [--rebuild]
# Environment: N (default 1000000), RUNS (5), RATE (100), CPU_SECONDS (30),
#   IDLE_SECONDS (10), TUI_BENCH_DIR (target/tui-bench), BUSY_RATE (20000),
#   PARTS ("first memory idle follow", the parts to run; add "busy"),
#   EMDB_TUI_BIN (another emdb-tui binary, to compare builds).
# Needs tmux and awk. On the shared 2-core machine: ~1 minute to build the
# database, ~2 minutes to run.

set -euo pipefail
export LC_ALL=C

die() {
    echo "tui.sh: $*" >&2
    exit 1
}
command -v tmux >/dev/null || die "tmux is not installed (apt-get install tmux)"

cd "$(dirname "$0")/../.."
N=${N:-1000000}
RUNS=${RUNS:-5}
RATE=${RATE:-100}
CPU_SECONDS=${CPU_SECONDS:-30}
IDLE_SECONDS=${IDLE_SECONDS:-10}
DIR=${TUI_BENCH_DIR:-target/tui-bench}
REBUILD=${1:-}
PARTS=${PARTS:-first memory idle follow}
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

echo "tui.sh: building release emdb, emdb-tui and live_writer" >&2
cargo build -q --release -p emdb-cli --bin emdb
cargo build -q --release -p emdb-tui --bin emdb-tui --example live_writer
target_dir=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
EMDB="$target_dir/release/emdb"
TUI=${EMDB_TUI_BIN:-"$target_dir/release/emdb-tui"}
WRITER="$target_dir/release/examples/live_writer"

mkdir -p "$DIR"
DB="$DIR/tui-$N.emdb"
if [ "$REBUILD" = "--rebuild" ] || [ ! -e "$DB" ]; then
    rm -f "$DB" "$DB".*
    echo "tui.sh: importing $N keys into $DB" >&2
    awk -v n="$N" 'BEGIN {
        for (i = 0; i < n; i++) {
            s = sprintf("%08d-", i); v = ""
            while (length(v) < 100) v = v s
            printf "{\"key\":\"user:%08d\",\"value\":\"%s\"}\n", i, substr(v, 1, 100)
        }
    }' >"$DIR/data.jsonl"
    "$EMDB" --db "$DB" -q import "$DIR/data.jsonl"
    "$EMDB" --db "$DB" -q compact
    rm -f "$DIR/data.jsonl"
fi
# A copy per run of the writer, so the figures always start from N keys.
WORK=$(mktemp -d)
SOCKET="emdb-tui-bench-$$"
WRITER_PID=""
tmx() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() {
    tmx kill-server >/dev/null 2>&1 || true
    if [ -n "$WRITER_PID" ]; then kill "$WRITER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

now_us() { echo "${EPOCHREALTIME/./}"; }
screen() { tmx capture-pane -p -t bench; }
tui_pid() { tmx list-panes -t bench -F '#{pane_pid}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
status_kb() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }
keys() { tmx send-keys -t bench "$@"; }
wait_for() { # text, timeout in s
    local deadline=$(($(now_us) + $2 * 1000000))
    until screen | grep -qF -- "$1"; do
        [ "$(now_us)" -lt "$deadline" ] || { screen >&2; die "timed out waiting for '$1'"; }
        sleep 0.01
    done
}

start_tui() { # db
    tmx new-session -d -s bench -x 160 -y 40 "exec $TUI $1"
}

# first_pages DB TEXT PAUSE: start the TUI on DB RUNS times (PAUSE seconds
# after the last one ended), each timed until TEXT shows; sets times,
# median and max (ms). The last one is left running.
first_pages() {
    times=()
    for _ in $(seq "$RUNS"); do
        tmx kill-server >/dev/null 2>&1 || true
        sleep "$3"
        t0=$(now_us)
        start_tui "$1"
        wait_for "$2" 20
        t1=$(now_us)
        times+=($(((t1 - t0) / 1000)))
    done
    local sorted
    sorted=$(printf '%s\n' "${times[@]}" | sort -n)
    median=$(echo "$sorted" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    max=$(echo "$sorted" | tail -1)
}

first=$(printf 'user:%08d' 0)
hz=$(getconf CLK_TCK)
if part first || part memory || part idle; then
first_pages "$DB" "$first" 0.2
part first && echo "first page: median ${median} ms, max ${max} ms over $RUNS runs (${times[*]})"

# Memory after moving around the whole list.
pid=$(tui_pid)
if part memory; then
sleep 1
last=$(printf 'user:%08d' $((N - 1)))
keys End
wait_for "$last" 20
for _ in $(seq 10); do keys PPage; done
keys Home
wait_for "$first" 20
keys / '^user:0005' Enter
wait_for "user:00050000" 20
keys Escape
sleep 1
echo "memory: VmHWM $(status_kb "$pid" VmHWM) kB, VmRSS $(status_kb "$pid" VmRSS) kB, RssAnon $(status_kb "$pid" RssAnon) kB, RssFile $(status_kb "$pid" RssFile) kB"
fi
if part idle; then
c0=$(cpu_ticks "$pid")
sleep "$IDLE_SECONDS"
c1=$(cpu_ticks "$pid")
awk -v d=$((c1 - c0)) -v hz="$hz" -v s="$IDLE_SECONDS" \
    'BEGIN {printf "idle CPU: %.2f%% of a core over %d s\n", 100 * d / hz / s, s}'
fi
fi
if part busy; then
tmx kill-server >/dev/null 2>&1 || true
BUSY_RATE=${BUSY_RATE:-20000}
cp "$DB" "$WORK/busy.emdb"
for f in "$DB".*; do [ -e "$f" ] && cp "$f" "$WORK/busy.emdb${f#"$DB"}"; done
"$WRITER" "$WORK/busy.emdb" --rate "$BUSY_RATE" --users 0 >"$WORK/busy.log" 2>&1 &
WRITER_PID=$!
sleep 3
first_pages "$WORK/busy.emdb" "blob:logo" 0.5
kill "$WRITER_PID" 2>/dev/null || true
wait "$WRITER_PID" 2>/dev/null || true
WRITER_PID=""
tmx kill-server >/dev/null 2>&1 || true
rm -f "$WORK"/busy.emdb*
echo "first page beside a writer at $BUSY_RATE keys/s: median ${median} ms, max ${max} ms over $RUNS runs (${times[*]})"
fi
part follow || exit 0

# Follow a writer on a copy (the writer adds keys).
tmx kill-server >/dev/null 2>&1 || true
cp "$DB" "$WORK/live.emdb"
for f in "$DB".*; do [ -e "$f" ] && cp "$f" "$WORK/live.emdb${f#"$DB"}"; done
"$WRITER" "$WORK/live.emdb" --rate "$RATE" --users 0 >"$WORK/writer.log" 2>&1 &
WRITER_PID=$!
sleep 2
start_tui "$WORK/live.emdb"
wait_for "Keys" 20
pid=$(tui_pid)
sleep 3
count() { screen | grep -o 'Keys [0-9,]*' | head -1; }
before=$(count)
c0=$(cpu_ticks "$pid")
w0=$(cpu_ticks "$WRITER_PID")
sleep "$CPU_SECONDS"
c1=$(cpu_ticks "$pid")
w1=$(cpu_ticks "$WRITER_PID")
after=$(count)
[ "$before" != "$after" ] || die "the key count on screen did not move ($before)"
awk -v d=$((c1 - c0)) -v w=$((w1 - w0)) -v hz="$hz" -v s="$CPU_SECONDS" -v r="$RATE" \
    -v b="$before" -v a="$after" \
    'BEGIN {printf "follow CPU: %.2f%% of a core over %d s, writer at %d keys/s (writer itself %.2f%%); screen %s -> %s\n", 100 * d / hz / s, s, r, 100 * w / hz / s, b, a}'
echo "memory after following: VmHWM $(status_kb "$pid" VmHWM) kB, RssAnon $(status_kb "$pid" RssAnon) kB"
