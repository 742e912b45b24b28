#!/usr/bin/env bash
# CPU and memory of emdb-tui following a live writer: a million keys, then
# about 100 writes a second (examples/live_writer.rs), emdb-tui read-only in
# a 120x40 tmux pane. Prints the TUI's CPU (percent of one core, from
# /proc/<pid>/stat) over SECONDS while the writer writes, then idle after the
# writer stops, and its resident memory.
#
# Usage: emdb-tui/scripts/cpu_follow.sh [KEYS] [SECONDS]   (release build)
set -euo pipefail
KEYS=${1:-1000000}
SECS=${2:-30}
command -v tmux >/dev/null || { echo "needs tmux"; exit 1; }
cd "$(dirname "$0")/../.."
cargo build -q --release -p emdb-tui --bin emdb-tui --example live_writer
target_dir=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
BIN="$target_dir/release/emdb-tui"
WRITER="$target_dir/release/examples/live_writer"
WORK=$(mktemp -d)
SOCKET="emdb-cpu-$$"
WRITER_PID=""
tmx() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() {
    tmx kill-server >/dev/null 2>&1 || true
    if [ -n "$WRITER_PID" ]; then kill "$WRITER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

DB="$WORK/big.emdb"
"$WRITER" "$DB" --users "$KEYS" --rate 100 >"$WORK/writer.log" 2>&1 &
WRITER_PID=$!
until grep -q filled "$WORK/writer.log" 2>/dev/null; do sleep 0.5; done
echo "cpu_follow: $(head -1 "$WORK/writer.log"); writer at ~100 writes/s"

tmx new-session -d -s cpu -x 120 -y 40 "sh -c 'echo \$\$ > $WORK/tui.pid; exec $BIN $DB'"
sleep 1
PID=$(cat "$WORK/tui.pid")
until tmx capture-pane -p -t cpu | grep -q 'Keys [0-9]'; do sleep 0.5; done
sleep 10 # the first load and its settling are not what is measured

ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
HZ=$(getconf CLK_TCK)
measure() {
    local a b
    a=$(ticks)
    sleep "$SECS"
    b=$(ticks)
    awk -v d=$((b - a)) -v hz="$HZ" -v s="$SECS" 'BEGIN { printf "%.1f", d / hz / s * 100 }'
}
busy=$(measure)
rss=$(awk '/VmRSS/ {print $2 / 1024}' "/proc/$PID/status")
echo "cpu_follow: with the writer: ${busy}% of a core over ${SECS}s; RSS ${rss} MiB"
kill "$WRITER_PID"
wait "$WRITER_PID" 2>/dev/null || true
WRITER_PID=""
sleep 5
idle=$(measure)
echo "cpu_follow: writer gone, idle: ${idle}% of a core over ${SECS}s"
