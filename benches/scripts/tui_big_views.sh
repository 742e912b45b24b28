#!/usr/bin/env bash
# emdb-tui's own memory (RssAnon) through the views of a list too big to
# hold (issue 17): on a database of N users (examples/live_writer.rs
# --fill-only, ~1,000,000 keys), in a detached tmux window (160x40), with
# the debug build: start, s (10,000 largest), s (soonest to expire), s
# (back to the pages), x, x, t (tree level), Enter on user: (its level),
# t (back), O (streamed export of every key). RssAnon is sampled every
# 0.1 s while each step runs; one line per step: seconds, max, after.
#
# Usage: benches/scripts/tui_big_views.sh   (N=1000000 by default)
# Needs tmux and awk; ~2 minutes on the shared 2-core machine.
set -u
cd "$(dirname "$0")/../.."
N=${N:-1000000}
cargo build -q -p emdb-tui --bin emdb-tui --example live_writer || exit 1
T=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
DIR="$T/tui-big-views"
mkdir -p "$DIR"
DB="$DIR/big-$N.emdb"
[ -e "$DB" ] || "$T/debug/examples/live_writer" "$DB" --users "$N" --fill-only >/dev/null || exit 1
TUI="$T/debug/emdb-tui"
OUT="$DIR/export.jsonl"
rm -f "$OUT"
S=tuibigviews
tmux -L $S kill-server 2>/dev/null
tmux -L $S new-session -d -x 160 -y 40 -s m "$TUI $DB"
pid=$(tmux -L $S display -p -t m '#{pane_pid}')
scr() { tmux -L $S capture-pane -p -t m; }
anon() { awk '/RssAnon/ {print $2}' /proc/$pid/status; }
step() { # name, keys, pattern, timeout
    local name=$1 keys=$2 pat=$3 to=${4:-120} max=0 a t0=$SECONDS
    [ -n "$keys" ] && tmux -L $S send-keys -t m $keys
    until scr | grep -Eq -- "$pat"; do
        a=$(anon); [ "$a" -gt "$max" ] && max=$a
        [ $((SECONDS - t0)) -lt $to ] || { echo "$name: TIMEOUT /$pat/"; scr | head -5; return 1; }
        sleep 0.1
    done
    sleep 0.5; a=$(anon); [ "$a" -gt "$max" ] && max=$a
    echo "$name: $((SECONDS - t0)) s, RssAnon max $max kB, after $a kB"
}
step start "" 'Keys 1,0[0-9][0-9],[0-9]{3} ' 180
step sort_size s 'Keys 10,000 largest of'
step sort_ttl s 'Keys 10,000 soonest to expire of'
step back s 'Keys 1,0[0-9][0-9],[0-9]{3} · '
sleep 3
step expiring x 'Keys [0-9,]+ soonest to expire of'
step back2 x 'Keys 1,0[0-9][0-9],[0-9]{3} · '
sleep 3
step tree t 'Keys 1,0[0-9][0-9],[0-9]{3} · .*\[tree'
tmux -L $S send-keys -t m Down Down Down Down Down Down Down
sleep 0.3
step open_group Enter 'Keys [0-9,]+ under user:'
step back3 t 'Keys 1,0[0-9][0-9],[0-9]{3} · [0-9.]+ MiB ━'
step export "O $OUT Enter" 'exported [0-9,]+ keys' 300
scr | grep -o 'exported[^│┃]*' | head -1
tmux -L $S send-keys -t m q
sleep 0.5
tmux -L $S kill-server 2>/dev/null
