#!/usr/bin/env bash
# End-to-end test of emdb-tui in a real terminal: tmux runs the binary
# against a database that another process (examples/live_writer.rs) keeps
# writing, and the screen is read back with capture-pane.
#
# Checks: the key count and the dashboard stats on screen change while the
# writer writes; filter, tabs and help work; a namespace the writer drops is
# reported as such; --write names the lock holder and exits 3; quitting, a
# panic, SIGTERM and SIGHUP all leave the terminal usable (cooked mode, main
# screen, no mouse reporting, cursor shown); Ctrl-Z suspends and fg resumes;
# a time to live of 0 is refused; y copies a key through OSC 52 and L
# sets a time to live alone; a namespace of 150,000 keys is paged (End,
# Home, a prefix filter, the tree counted by a scan); when its terminal goes away without a
# signal (the tmux session killed under a process in another session),
# emdb-tui ends (as by SIGHUP) instead of spinning.
#
# Usage: emdb-tui/tests/e2e_tmux.sh            (from anywhere in the repo)
#        E2E_CAPTURE_DIR=dir emdb-tui/tests/e2e_tmux.sh   also saves screens
# Skips (exit 0) when tmux is not installed.
set -euo pipefail

if ! command -v tmux >/dev/null 2>&1; then
    echo "e2e_tmux: SKIP: tmux is not installed (apt-get install tmux)"
    exit 0
fi

cd "$(dirname "$0")/../.."
echo "e2e_tmux: building emdb-tui and the live_writer example"
cargo build -q -p emdb-tui --bin emdb-tui --example live_writer
target_dir=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
BIN="$target_dir/debug/emdb-tui"
WRITER="$target_dir/debug/examples/live_writer"

WORK=$(mktemp -d)
SOCKET="emdb-e2e-$$"
WRITER_PID=""
tmx() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() {
    tmx kill-server >/dev/null 2>&1 || true
    if [ -n "$WRITER_PID" ]; then kill "$WRITER_PID" 2>/dev/null || true; fi
    if [ -s "$WORK/gone.pid" ]; then kill -9 "$(cat "$WORK/gone.pid")" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
    echo "e2e_tmux: FAIL: $*" >&2
    echo "---- screen ----" >&2
    screen >&2 || true
    echo "---- writer log ----" >&2
    tail -5 "$WORK/writer.log" >&2 || true
    exit 1
}
screen() { tmx capture-pane -p -t e2e; }
# The screen with the lines scrolled off above it (a long message, such as a
# panic's with a backtrace, may not fit).
scrollback() { tmx capture-pane -p -S -300 -t e2e; }
save() {
    if [ -n "${E2E_CAPTURE_DIR:-}" ]; then
        mkdir -p "$E2E_CAPTURE_DIR"
        screen >"$E2E_CAPTURE_DIR/$1.txt"
    fi
}
# wait_for PATTERN [SECONDS]: until the screen matches (grep -E).
wait_for() {
    local deadline=$((SECONDS + ${2:-15}))
    until screen | grep -Eq -- "$1"; do
        [ $SECONDS -lt $deadline ] || fail "timed out waiting for /$1/"
        sleep 0.2
    done
}
send() { tmx send-keys -t e2e "$@"; }
number() { tr -dc '0-9'; }
default_count() { screen | grep -o '(default) *[0-9,]*' | head -1 | number; }

DB="$WORK/live.emdb"
"$WRITER" "$DB" --rate 200 --drop-metrics-on "$WORK/drop" >"$WORK/writer.log" 2>&1 &
WRITER_PID=$!
for _ in $(seq 100); do
    grep -q filled "$WORK/writer.log" 2>/dev/null && break
    sleep 0.1
done
grep -q filled "$WORK/writer.log" || fail "the writer did not start"

# A plain shell in a 120x40 terminal; emdb-tui is started from it so the
# shell's state after exit can be inspected.
# The pane's terminal modes: alternate screen, mouse reporting, cursor
# shown; "0 0 1" is a terminal given back.
modes() { tmx display -p -t e2e '#{alternate_on} #{mouse_any_flag} #{cursor_flag}'; }
restored() {
    [ "$(modes)" = "0 0 1" ] || fail "$1: terminal modes are '$(modes)', not '0 0 1'"
    send clear Enter
    send "stty -a | tr ' ' '\n' | grep -x -e icanon -e echo | sort | tr '\n' ' '; echo" Enter
    wait_for '^echo icanon' 5
}
# start_tui ARGS: run emdb-tui from the shell, its pid in $WORK/tui.pid.
start_tui() {
    send clear Enter
    send "sh -c 'echo \$\$ > $WORK/tui.pid; exec $BIN $*'; echo EXIT=\$?" Enter
}
tmx new-session -d -s e2e -x 120 -y 40 "env -i PATH=$PATH HOME=$HOME TERM=xterm-256color PS1='$ ' bash --norc --noprofile"
wait_for '^\$'

echo "e2e_tmux: browsing a database while it is written"
send "$BIN $DB; echo EXIT=\$?" Enter
wait_for 'Keys [0-9]'
wait_for 'refreshed'
sleep 1
first=$(default_count)
[ -n "$first" ] || fail "no key count on screen"
save browse
sleep 3
second=$(default_count)
[ "$second" -gt "$first" ] || fail "key count did not grow ($first -> $second)"
echo "e2e_tmux: key count $first -> $second"

send '/' 'event:' Enter
wait_for 'Keys [0-9,]+ of [0-9,]+ /event: '
send 'G'
wait_for '> event:'
sleep 1
last_seen=$(screen | grep -o '> event:[0-9]*' | number)
sleep 2
# On the last row, the selection follows new keys as they arrive.
[ "$(screen | grep -o '> event:[0-9]*' | number)" -gt "$last_seen" ] ||
    fail "the selection did not follow new keys at the end of the list"
save filter
# Escape alone: followed at once by a key it would read as Alt+key.
send Escape
sleep 0.3
send t
wait_for "\[tree ':'\]"
send G l
wait_for '▾ user:'
save tree
send t

send '2'
wait_for 'live keys'
wait_for 'writes/s [0-9]' 10
r1=$(screen | grep -o 'live keys *[0-9,]*' | number)
w1=$(screen | grep -o 'writes [0-9,]*   flushes' | number)
sleep 3
r2=$(screen | grep -o 'live keys *[0-9,]*' | number)
w2=$(screen | grep -o 'writes [0-9,]*   flushes' | number)
[ "$r2" -gt "$r1" ] || fail "live keys did not change on the dashboard ($r1 -> $r2)"
[ "$w2" -gt "$w1" ] || fail "the writer's write counter did not change ($w1 -> $w2)"
screen | grep -q 'writer pid '"$WRITER_PID" || fail "the dashboard does not name the writer pid"
echo "e2e_tmux: dashboard live keys $r1 -> $r2, writes $w1 -> $w2"
save dashboard

send '1' '?'
wait_for 'q or \? closes'
save help
send Escape
sleep 0.3
wait_for 'Keys [0-9]'
send 'x'
wait_for 'expiring soon'
save expiring
send 'x' 'v'

echo "e2e_tmux: the writer drops the namespace on screen"
send h j j
wait_for '>metrics'
wait_for 'cpu\.00'
touch "$WORK/drop"
wait_for 'namespace metrics dropped by the writer' 10
screen | grep -q 'reopen it without read_only' && fail "the viewer tried to write"
save dropped
send q
wait_for '^EXIT=0'
restored "after q"

echo "e2e_tmux: SIGTERM and SIGHUP give the terminal back"
for sig in TERM HUP; do
    start_tui "$DB"
    wait_for 'Keys [0-9]'
    [ "$(modes | cut -d' ' -f1,2)" = "1 1" ] || fail "the TUI is not on the alternate screen with the mouse"
    kill -"$sig" "$(cat "$WORK/tui.pid")"
    wait_for '^EXIT=' 10
    code=$(screen | grep -o '^EXIT=[0-9]*' | number)
    [ "$code" -eq $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: exit code $code"
    restored "after SIG$sig"
done

echo "e2e_tmux: Ctrl-Z suspends, fg resumes"
send clear Enter
# Alone on its line: a stopped job would let "; echo" run at once.
send "$BIN $DB" Enter
wait_for 'Keys [0-9]'
send C-z
wait_for 'Stopped' 10
[ "$(modes)" = "0 0 1" ] || fail "suspended, the terminal modes are '$(modes)'"
send fg Enter
wait_for 'Keys [0-9]' 10
[ "$(modes | cut -d' ' -f1,2)" = "1 1" ] || fail "after fg the TUI did not take the screen back"
send q
sleep 0.5
send 'echo EXIT=$?' Enter
wait_for '^EXIT=0'
restored "after Ctrl-Z, fg and q"

echo "e2e_tmux: --write while another process holds the lock"
send clear Enter
send "$BIN --write $DB; echo EXIT=\$?" Enter
wait_for '^EXIT=' 20
screen | grep -q "locked by another writer (pid $WRITER_PID" ||
    fail "the lock error does not name the writer's pid $WRITER_PID"
screen | grep -q '^EXIT=3' || fail "a busy lock should exit with 3"

echo "e2e_tmux: the terminal is restored after a panic"
send clear Enter
send "EMDB_TUI_CRASH_TEST=1 $BIN $DB; echo EXIT=\$?" Enter
wait_for '^EXIT=' 20
scrollback | grep -q 'crashing on purpose' || fail "the panic message is not on the main screen"
screen | grep -q '^EXIT=101' || fail "a panic should exit with 101"
send clear Enter
send "stty -a | tr ' ' '\n' | grep -x -e icanon -e echo | sort | tr '\n' ' '; echo" Enter
wait_for '^echo icanon' 5

echo "e2e_tmux: the terminal goes away under a process that gets no SIGHUP"
# setsid: emdb-tui runs in a session of its own, so closing the pane's
# terminal sends it no signal; its reads of the terminal see end of file.
cat >"$WORK/detached.sh" <<SCRIPT
sh -c 'echo \$\$ > "$WORK/gone.pid"; exec "$BIN" "$DB"'
echo \$? > "$WORK/gone.status"
SCRIPT
tmx new-session -d -s gone -x 100 -y 30 "setsid -w sh $WORK/detached.sh"
deadline=$((SECONDS + 15))
until tmx capture-pane -p -t gone 2>/dev/null | grep -q 'Keys [0-9]'; do
    [ $SECONDS -lt $deadline ] || fail "the detached emdb-tui did not start"
    sleep 0.2
done
gone_pid=$(cat "$WORK/gone.pid")
tmx kill-session -t gone
deadline=$((SECONDS + 6))
until [ -s "$WORK/gone.status" ]; do
    if [ $SECONDS -ge $deadline ]; then
        ticks=$(awk '{print $14 + $15}' "/proc/$gone_pid/stat" 2>/dev/null || echo "?")
        fail "emdb-tui (pid $gone_pid) still runs 6 s after its terminal went away (CPU ticks used: $ticks)"
    fi
    sleep 0.2
done
[ "$(cat "$WORK/gone.status")" -eq 129 ] ||
    fail "after its terminal went away emdb-tui exited with $(cat "$WORK/gone.status"), not 129 (SIGHUP)"
if kill -0 "$gone_pid" 2>/dev/null; then fail "emdb-tui pid $gone_pid is still alive"; fi
echo "e2e_tmux: ended by SIGHUP after its terminal went away"

echo "e2e_tmux: --write after the writer stopped: stage, review, write"
kill "$WRITER_PID"
wait "$WRITER_PID" 2>/dev/null || true
WRITER_PID=""
send clear Enter
send "$BIN --write $DB; echo EXIT=\$?" Enter
wait_for 'read-write'
send a 'e2e:key' Enter 'hello from tmux' Enter 0 Enter
wait_for 'would expire the key at once'
save ttl0
send C-u Enter
wait_for 'staged put e2e:key'
send w
wait_for 'staged — y/Enter write'
save review
send y
wait_for 'wrote 1 change'
send '/' '^e2e:' Enter
wait_for 'hello from tmux'
save write
# y copies the key with OSC 52; tmux (set-clipboard on) keeps it as a buffer.
tmx set -s set-clipboard on
send y
wait_for 'copied the key'
[ "$(tmx show-buffer)" = "e2e:key" ] || fail "y put '$(tmx show-buffer 2>&1)' on the clipboard, not e2e:key"
# L sets a time to live alone; the value stays.
send L '2h' Enter
wait_for 'staged put e2e:key'
send w
wait_for 'ttl 2h'
send y
wait_for 'wrote 1 change'
wait_for 'hello from tmux'
wait_for '1h 5[0-9]m|2h'
send q
wait_for '^EXIT=0'

echo "e2e_tmux: a namespace past 100,000 keys is paged"
BIG="$WORK/big.emdb"
"$WRITER" "$BIG" --users 150000 --fill-only >"$WORK/big.log" 2>&1 || fail "could not fill $BIG"
send clear Enter
send "$BIN $BIG; echo EXIT=\$?" Enter
wait_for 'Keys 150,0[0-9][0-9] ' 30
top=$(screen | grep -o '> [^ ]*' | head -1)
[ -n "$top" ] || fail "no selected key"
# (user:NNNNN and user:1NNNNN sort by bytes: user:99999 is the last key.)
send G
wait_for '> user:99999 '
save paged_end
send g
wait_for "$top "
send '/' '^user:12345' Enter
wait_for 'Keys 11 of 150,0[0-9][0-9] '
wait_for 'user:123459 '
send Escape
sleep 0.3
wait_for 'Keys 150,0[0-9][0-9] '
send t
wait_for 'Keys 150,0[0-9][0-9] .*\[tree'
save paged_tree
send t
wait_for 'back to every key'
send q
wait_for '^EXIT=0'

echo "e2e_tmux: a secret from a pipe is read once"
# The first page is read before the open; both must use what was read
# (a second read of <(...) finds it empty).
head -c 32 /dev/urandom >"$WORK/enc.key"
printf 'correct horse battery' >"$WORK/enc.phrase"
for how in key-file phrase; do
    case $how in
    key-file) secret="--key-file $WORK/enc.key" pipe="--key-file <(cat $WORK/enc.key)" ;;
    phrase) secret="--passphrase-file $WORK/enc.phrase" pipe="--passphrase-file <(cat $WORK/enc.phrase)" ;;
    esac
    ENC="$WORK/enc-$how.emdb"
    send clear Enter
    send "$BIN --write --create $secret $ENC; echo EXIT=\$?" Enter
    wait_for 'Keys 0 '
    send q
    wait_for '^EXIT=0'
    send clear Enter
    send "$BIN $pipe $ENC; echo EXIT=\$?" Enter
    wait_for 'Keys 0 '
    send q
    wait_for '^EXIT=0'
    send clear Enter
    send "$BIN $pipe -n nope $ENC; echo EXIT=\$?" Enter
    wait_for '^EXIT=' 10
    screen | grep -q 'namespace "nope" does not exist' ||
        fail "$how from a pipe, missing namespace: $(screen | grep emdb-tui:)"
    screen | grep -q '^EXIT=1' || fail "$how from a pipe, missing namespace: not exit 1"
done

echo "e2e_tmux: PASS"
