#!/usr/bin/env bash
# Per-invocation benchmark: the `emdb` CLI against the `sqlite3` CLI, one
# process per call, on the same rows (issues 13 and 14).
#
# For each size it builds (once, then reuses) an emdb database and a sqlite3
# database holding `user:%08d` keys 0..N-1 with 100-byte values: emdb through
# `emdb import` of a JSON Lines file, sqlite3 through `.import --csv` into
#   CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID
# with sqlite's defaults (journal_mode and synchronous are printed).
# It then times RUNS alternating calls (emdb, sqlite3, emdb, sqlite3, ...) of
#   get KEY              SELECT v FROM kv WHERE k='KEY'
#   exists KEY           SELECT 1 FROM kv WHERE k='KEY' LIMIT 1
#   count                SELECT count(*) FROM kv
#   scan --prefix P      SELECT k FROM kv WHERE k >= P AND k < P' ORDER BY k
#     --keys-only          (P = user:000012: exactly 100 keys)
#   scan --limit 10      SELECT k FROM kv ORDER BY k LIMIT 10
#     --keys-only
#   put KEY VALUE        INSERT OR REPLACE INTO kv VALUES('KEY','VALUE')
#     (durable: emdb flushes each put; sqlite commits with its defaults)
# and prints one markdown table per size: median wall time, median peak RSS
# and the emdb/sqlite3 ratio. get/exists use a different existing key each
# run; put overwrites the last key (user:N-1, never read by get) with a value
# that differs per run. Every answer is checked (emdb's against sqlite3's and
# against the generated data) and any difference aborts the run.
#
# Wall time is measured around a bare exec of the command (bash
# $EPOCHREALTIME; process start, open, query, exit); peak RSS comes from a
# second, untimed call of the same command under `/usr/bin/time -f %M`.
#
# Usage: benches/scripts/per_invocation.sh [--rebuild] [--json PATH]
#
# Environment:
#   SIZES="1000000 10000000"   key counts (default: 1000000)
#   RUNS=10                    timed calls per command and engine (default 10)
#   RSS_RUNS=N                 of those rounds, how many also make the extra
#                              call for peak RSS (default: RUNS; 3 saves time
#                              at 10M keys)
#   EMDB_BIN=PATH              emdb binary (default target/release/emdb,
#                              built with `cargo build --release -p emdb-cli`
#                              when missing)
#   SQLITE3=PATH               sqlite3 binary (default: sqlite3 on PATH)
#   PER_INVOCATION_DIR=DIR     where the databases live, one directory per
#                              size (default target/per-invocation)
#   REBUILD=1|emdb|sqlite      rebuild both databases (or one) even if present
#                              (--rebuild is REBUILD=1)
#   JSON=PATH                  also write the results as JSON (--json PATH)
#   WARM=0                     do not read both databases' files whole
#                              before each command's runs (default 1: both
#                              start each command in the page cache)
#   ENCRYPT=1                  emdb's database is encrypted (AES-256-GCM, a
#                              raw key in a key file, EMDB_KEY_FILE): it lives
#                              in DIR/N-encrypted; sqlite3's stays plain
#
# The databases are reused across runs: rebuild them when the emdb on-disk
# format or the import path changed, or the figures describe old files.
# Each invocation appends RUNS+RSS_RUNS+1 puts (of the same key) to both
# databases. On a shared 2-core machine 1M keys take about 1.5 minutes;
# 10M keys about 4 minutes to build and 20 to run (the scans: ~20 s a call).

set -euo pipefail
export LC_ALL=C

die() {
    echo "per_invocation: $*" >&2
    exit 1
}
say() { echo "per_invocation: $*" >&2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIZES=${SIZES:-1000000}
RUNS=${RUNS:-10}
RSS_RUNS=${RSS_RUNS:-$RUNS}
SQLITE3=${SQLITE3:-sqlite3}
DATA_DIR=${PER_INVOCATION_DIR:-$ROOT/target/per-invocation}
REBUILD=${REBUILD:-0}
JSON_OUT=${JSON:-}
PREFIX=user:000012
TIME_BIN=/usr/bin/time
ENCRYPT=${ENCRYPT:-0}
WARM=${WARM:-1}
case $ENCRYPT in 0 | 1) ;; *) echo "per_invocation: ENCRYPT must be 0 or 1" >&2 && exit 1 ;; esac

while [ $# -gt 0 ]; do
    case $1 in
        --rebuild) REBUILD=1 ;;
        --json)
            [ $# -ge 2 ] || die "--json needs a path"
            JSON_OUT=$2
            shift
            ;;
        -h | --help)
            sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
            exit 0
            ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
    shift
done

case $RUNS in '' | *[!0-9]* | 0) die "RUNS must be a positive integer, got '$RUNS'" ;; esac
case $RSS_RUNS in '' | *[!0-9]* | 0) die "RSS_RUNS must be a positive integer, got '$RSS_RUNS'" ;; esac
[ "$RSS_RUNS" -le "$RUNS" ] || die "RSS_RUNS ($RSS_RUNS) must not exceed RUNS ($RUNS)"
for n in $SIZES; do
    case $n in '' | *[!0-9]*) die "SIZES must be key counts, got '$n'" ;; esac
    [ "$n" -ge 2000 ] || die "sizes below 2000 keys do not hold the ~100-key prefix $PREFIX"
done
case $REBUILD in 0 | 1 | emdb | sqlite) ;; *) die "REBUILD must be 0, 1, emdb or sqlite" ;; esac
[ -x "$TIME_BIN" ] || die "GNU time is needed at $TIME_BIN (peak RSS)"
command -v "$SQLITE3" >/dev/null || die "sqlite3 not found ($SQLITE3); apt-get install sqlite3"
[ -n "${EPOCHREALTIME:-}" ] || die "bash 5 or later is needed (EPOCHREALTIME)"

if [ -z "${EMDB_BIN:-}" ]; then
    EMDB_BIN=$ROOT/target/release/emdb
    if [ ! -x "$EMDB_BIN" ]; then
        say "building $EMDB_BIN (cargo build --release -p emdb-cli)"
        (cd "$ROOT" && cargo build --release -p emdb-cli) >&2
    fi
fi
[ -x "$EMDB_BIN" ] || die "emdb binary not found or not executable: $EMDB_BIN"
EMDB_BIN=$(cd "$(dirname "$EMDB_BIN")" && pwd)/$(basename "$EMDB_BIN")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/per_invocation.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------- the data

# The value of key number I: "%08d-" repeated, cut to 100 bytes.
value_of() {
    local s
    printf -v s '%08d-' "$1"
    s=$s$s$s$s$s$s$s$s$s$s$s$s
    REPLY=${s:0:100}
}

key_of() { printf -v REPLY 'user:%08d' "$1"; }

# gen_data N JSONL CSV: both input files in one pass.
gen_data() {
    awk -v n="$1" -v jsonl="$2" -v csv="$3" 'BEGIN {
        for (i = 0; i < n; i++) {
            s = sprintf("%08d-", i)
            v = substr(s s s s s s s s s s s s, 1, 100)
            k = sprintf("user:%08d", i)
            printf "{\"key\":\"%s\",\"value\":\"%s\"}\n", k, v > jsonl
            printf "%s,%s\n", k, v > csv
        }
    }'
}

now_us() { REPLY=${EPOCHREALTIME/./}; }

# emdb_dir N: the directory of size N's databases (encrypted ones apart).
emdb_dir() {
    case $ENCRYPT in
        1) REPLY=$DATA_DIR/$1-encrypted ;;
        *) REPLY=$DATA_DIR/$1 ;;
    esac
}

# secs START_US: seconds since START_US, one decimal.
secs() {
    local now
    now=${EPOCHREALTIME/./}
    printf -v REPLY '%d.%d' $(((now - $1) / 1000000)) $((((now - $1) % 1000000) / 100000))
}

build_size() {
    local n=$1 dir
    emdb_dir "$n"
    dir=$REPLY
    local want_emdb=0 want_sqlite=0
    mkdir -p "$dir"
    if [ "$ENCRYPT" = 1 ]; then
        [ -f "$dir/emdb.key" ] || head -c 32 /dev/urandom >"$dir/emdb.key"
        export EMDB_KEY_FILE=$dir/emdb.key
    fi
    if [ ! -f "$dir/emdb.done" ] || [ "$REBUILD" = 1 ] || [ "$REBUILD" = emdb ]; then want_emdb=1; fi
    if [ ! -f "$dir/sqlite.done" ] || [ "$REBUILD" = 1 ] || [ "$REBUILD" = sqlite ]; then want_sqlite=1; fi
    if [ $want_emdb = 0 ] && [ $want_sqlite = 0 ]; then
        say "$n keys: reusing $dir"
        return
    fi
    local jsonl=$dir/data.jsonl csv=$dir/data.csv t0
    say "$n keys: generating the input files"
    now_us
    t0=$REPLY
    gen_data "$n" "$jsonl" "$csv"
    secs "$t0"
    echo "generate JSON Lines + CSV input: ${REPLY} s" >"$dir/gen.txt"
    if [ $want_emdb = 1 ]; then
        rm -f "$dir/emdb.done" "$dir"/emdb.emdb*
        say "$n keys: emdb import"
        now_us
        t0=$REPLY
        "$EMDB_BIN" --db "$dir/emdb.emdb" -q import "$jsonl" >&2 || die "emdb import failed"
        secs "$t0"
        {
            echo "emdb import: ${REPLY} s ($("$EMDB_BIN" --version))"
            echo "emdb files: $(cd "$dir" && du -sh emdb.emdb emdb.emdb.ckpt 2>/dev/null | awk '{printf "%s %s; ", $2, $1}')"
        } >"$dir/emdb.done"
    fi
    if [ $want_sqlite = 1 ]; then
        rm -f "$dir/sqlite.done" "$dir"/kv.sqlite*
        say "$n keys: sqlite3 import"
        now_us
        t0=$REPLY
        "$SQLITE3" -batch "$dir/kv.sqlite" \
            "CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID" \
            ".import --csv $csv kv" >&2 || die "sqlite3 import failed"
        secs "$t0"
        {
            echo "sqlite3 import: ${REPLY} s (sqlite $("$SQLITE3" --version | awk '{print $1}'))"
            echo "sqlite3 file: $(du -sh "$dir/kv.sqlite" | awk '{print $1}')"
        } >"$dir/sqlite.done"
    fi
    rm -f "$jsonl" "$csv"
}

# ---------------------------------------------------------------- the calls

COMMANDS=(get exists count scan-prefix scan-limit put)
declare -A LABEL=(
    [get]='get KEY'
    [exists]='exists KEY'
    [count]='count'
    [scan-prefix]="scan --prefix $PREFIX --keys-only (100 keys)"
    [scan-limit]='scan --limit 10 --keys-only'
    [put]='put KEY VALUE (durable)'
)

# The key get/exists use in run R (0 = the warm-up call) of a size N: spread
# over 0..N-2, so never the put key (N-1) nor, for most runs, a scanned one.
probe_index() { REPLY=$(((($1 + 1) * 7919 * 127 + 12345) % ($2 - 1))); }

# The prefix's upper bound for sqlite: its last byte plus one.
prefix_end() {
    local p=$1 last
    last=$(printf '%d' "'${p: -1}")
    printf -v REPLY '%s\x'"$(printf '%02x' $((last + 1)))" "${p:0:${#p}-1}"
}

# set_call ENGINE COMMAND N RUN DB: CALL (the argv) and EXPECT (the exact
# stdout every correct answer prints).
set_call() {
    local engine=$1 cmd=$2 n=$3 run=$4 db=$5 key value i
    case $cmd in
        get | exists)
            probe_index "$run" "$n"
            i=$REPLY
            key_of "$i"
            key=$REPLY
            value_of "$i"
            value=$REPLY
            ;;
        put)
            key_of $((n - 1))
            key=$REPLY
            value_of $((n - 1))
            printf -v value 'put-run-%04d-%s' "$run" "$REPLY"
            value=${value:0:100}
            ;;
    esac
    case $engine:$cmd in
        emdb:get)
            CALL=("$EMDB_BIN" --db "$db" -q get "$key")
            EXPECT=$value$'\n'
            ;;
        sqlite:get)
            CALL=("$SQLITE3" -batch "$db" "SELECT v FROM kv WHERE k='$key'")
            EXPECT=$value$'\n'
            ;;
        emdb:exists)
            CALL=("$EMDB_BIN" --db "$db" -q exists "$key")
            EXPECT=
            ;;
        sqlite:exists)
            CALL=("$SQLITE3" -batch "$db" "SELECT 1 FROM kv WHERE k='$key' LIMIT 1")
            EXPECT=$'1\n'
            ;;
        emdb:count)
            CALL=("$EMDB_BIN" --db "$db" -q count)
            EXPECT=$n$'\n'
            ;;
        sqlite:count)
            CALL=("$SQLITE3" -batch "$db" "SELECT count(*) FROM kv")
            EXPECT=$n$'\n'
            ;;
        emdb:scan-prefix)
            CALL=("$EMDB_BIN" --db "$db" -q scan --prefix "$PREFIX" --keys-only)
            EXPECT=$PREFIX_KEYS
            ;;
        sqlite:scan-prefix)
            prefix_end "$PREFIX"
            CALL=("$SQLITE3" -batch "$db" "SELECT k FROM kv WHERE k >= '$PREFIX' AND k < '$REPLY' ORDER BY k")
            EXPECT=$PREFIX_KEYS
            ;;
        emdb:scan-limit)
            CALL=("$EMDB_BIN" --db "$db" -q scan --limit 10 --keys-only)
            EXPECT=$FIRST10_KEYS
            ;;
        sqlite:scan-limit)
            CALL=("$SQLITE3" -batch "$db" "SELECT k FROM kv ORDER BY k LIMIT 10")
            EXPECT=$FIRST10_KEYS
            ;;
        emdb:put)
            CALL=("$EMDB_BIN" --db "$db" -q put "$key" "$value")
            EXPECT=
            CHECK=("$EMDB_BIN" --db "$db" -q get "$key")
            CHECK_EXPECT=$value$'\n'
            ;;
        sqlite:put)
            CALL=("$SQLITE3" -batch "$db" "INSERT OR REPLACE INTO kv VALUES('$key','$value')")
            EXPECT=
            CHECK=("$SQLITE3" -batch "$db" "SELECT v FROM kv WHERE k='$key'")
            CHECK_EXPECT=$value$'\n'
            ;;
        *) die "internal: no call for $engine:$cmd" ;;
    esac
}

# check_output WHAT FILE EXPECT RC: abort unless the call exited 0 and
# printed exactly EXPECT (trailing newlines compared too).
check_output() {
    local what=$1 file=$2 expect=$3 rc=$4 got
    got=$(cat "$file"; printf x)
    got=${got%x}
    if [ "$rc" != 0 ] || [ "$got" != "$expect" ]; then
        {
            echo "per_invocation: WRONG ANSWER from $what (exit $rc)"
            echo "--- expected ($(printf '%s' "$expect" | wc -l) lines):"
            printf '%s' "$expect" | head -5
            echo "--- got ($(wc -l <"$file") lines):"
            head -5 "$file"
            echo "--- stderr:"
            head -5 "$file.err"
        } >&2
        exit 1
    fi
}

# children_cpu FILE: the children's user+sys CPU time (us, 1 ms resolution)
# from the output of the `times` builtin saved in FILE.
children_cpu() {
    local user sys total=0 v m rest
    { read -r _ _ && read -r user sys; } <"$1"
    for v in "$user" "$sys"; do
        m=${v%%m*}
        rest=${v#*m}
        rest=${rest%s}
        total=$((total + (m * 60 + 10#${rest%.*}) * 1000000 + 10#${rest#*.} * 1000))
    done
    REPLY=$total
}

# timed_call WHAT: run CALL bare and check it; its wall time (us) in TIME_US,
# its CPU time (user+sys, us) in CPU_US.
timed_call() {
    local what=$1 out=$WORK/out t0 t1 rc cpu0
    times >"$WORK/times0"
    t0=${EPOCHREALTIME/./}
    rc=0
    "${CALL[@]}" >"$out" 2>"$out.err" || rc=$?
    t1=${EPOCHREALTIME/./}
    times >"$WORK/times1"
    check_output "$what" "$out" "$EXPECT" "$rc"
    TIME_US=$((t1 - t0))
    children_cpu "$WORK/times0"
    cpu0=$REPLY
    children_cpu "$WORK/times1"
    CPU_US=$((REPLY - cpu0))
}

# rss_call WHAT: run CALL under GNU time and check it; its peak RSS (KiB) in
# RSS_KIB.
rss_call() {
    local what=$1 out=$WORK/out rc=0
    "$TIME_BIN" -f %M -o "$WORK/rss" "${CALL[@]}" >"$out" 2>"$out.err" || rc=$?
    check_output "$what (under time)" "$out" "$EXPECT" "$rc"
    RSS_KIB=$(tail -n 1 "$WORK/rss")
    case $RSS_KIB in '' | *[!0-9]*) die "unreadable peak RSS from $TIME_BIN: '$RSS_KIB'" ;; esac
}

# after a put: read the key back (untimed) in the same engine.
check_put() {
    local what=$1 out=$WORK/check rc=0
    "${CHECK[@]}" >"$out" 2>"$out.err" || rc=$?
    check_output "$what (reading the put back)" "$out" "$CHECK_EXPECT" "$rc"
}

# median of the arguments (integers), as an integer (mean of the middle two).
median() {
    printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END {
        if (NR % 2) printf "%d\n", a[(NR + 1) / 2]; else printf "%d\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

declare -A MED_US MED_RSS MED_CPU ALL_US ALL_RSS ALL_CPU

run_size() {
    local n=$1 dir cmd engine run db i
    local -a times_e times_s rss_e rss_s cpu_e cpu_s
    emdb_dir "$n"
    dir=$REPLY
    if [ "$ENCRYPT" = 1 ]; then export EMDB_KEY_FILE=$dir/emdb.key; fi
    PREFIX_KEYS=
    for i in $(seq 1200 1299); do
        key_of "$i"
        PREFIX_KEYS+=$REPLY$'\n'
    done
    FIRST10_KEYS=
    for i in $(seq 0 9); do
        key_of "$i"
        FIRST10_KEYS+=$REPLY$'\n'
    done
    for cmd in "${COMMANDS[@]}"; do
        say "$n keys: $cmd"
        times_e=() times_s=() rss_e=() rss_s=() cpu_e=() cpu_s=()
        # Both databases whole in the page cache before each command: this
        # machine's proactive reclaim (kdamond) evicts file pages left
        # untouched for a while, and sqlite3's count reads its whole file
        # while emdb's does not, so random point reads found emdb's log
        # evicted and sqlite3's file cached.
        if [ "$WARM" = 1 ]; then
            cat "$dir"/emdb.emdb* "$dir"/kv.sqlite > /dev/null
        fi
        for run in $(seq 0 "$RUNS"); do
            for engine in emdb sqlite; do
                if [ $engine = emdb ]; then db=$dir/emdb.emdb; else db=$dir/kv.sqlite; fi
                set_call "$engine" "$cmd" "$n" "$run" "$db"
                timed_call "$engine $cmd (run $run, $n keys)"
                [ "$cmd" = put ] && check_put "$engine put (run $run)"
                # run 0 warms the page cache and is not counted
                [ "$run" = 0 ] && continue
                if [ $engine = emdb ]; then
                    times_e+=("$TIME_US")
                    cpu_e+=("$CPU_US")
                else
                    times_s+=("$TIME_US")
                    cpu_s+=("$CPU_US")
                fi
            done
            [ "$run" = 0 ] && continue
            [ "$run" -le "$RSS_RUNS" ] || continue
            # peak RSS: one more call each, untimed (puts write the same value again)
            for engine in emdb sqlite; do
                if [ $engine = emdb ]; then db=$dir/emdb.emdb; else db=$dir/kv.sqlite; fi
                set_call "$engine" "$cmd" "$n" "$run" "$db"
                rss_call "$engine $cmd (run $run, $n keys)"
                if [ $engine = emdb ]; then rss_e+=("$RSS_KIB"); else rss_s+=("$RSS_KIB"); fi
            done
        done
        MED_US[$n:emdb:$cmd]=$(median "${times_e[@]}")
        MED_US[$n:sqlite:$cmd]=$(median "${times_s[@]}")
        MED_RSS[$n:emdb:$cmd]=$(median "${rss_e[@]}")
        MED_RSS[$n:sqlite:$cmd]=$(median "${rss_s[@]}")
        MED_CPU[$n:emdb:$cmd]=$(median "${cpu_e[@]}")
        MED_CPU[$n:sqlite:$cmd]=$(median "${cpu_s[@]}")
        ALL_CPU[$n:emdb:$cmd]=${cpu_e[*]}
        ALL_CPU[$n:sqlite:$cmd]=${cpu_s[*]}
        ALL_US[$n:emdb:$cmd]=${times_e[*]}
        ALL_US[$n:sqlite:$cmd]=${times_s[*]}
        ALL_RSS[$n:emdb:$cmd]=${rss_e[*]}
        ALL_RSS[$n:sqlite:$cmd]=${rss_s[*]}
    done
}

# ---------------------------------------------------------------- formatting

ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "nan" }'; }
json_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else printf "null" }'; }
json_list() { local IFS=,; echo "[$*]"; }
fmt_int() { echo "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'; }

# ---------------------------------------------------------------- main

mkdir -p "$DATA_DIR"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
START_US=${EPOCHREALTIME/./}
for n in $SIZES; do
    build_size "$n"
done
JOURNAL=unknown SYNC=unknown
for n in $SIZES; do
    emdb_dir "$n"
    JOURNAL=$("$SQLITE3" -batch "$REPLY/kv.sqlite" "PRAGMA journal_mode")
    SYNC=$("$SQLITE3" -batch "$REPLY/kv.sqlite" "PRAGMA synchronous")
    break
done
case $SYNC in 0) SYNC_NAME=OFF ;; 1) SYNC_NAME=NORMAL ;; 2) SYNC_NAME=FULL ;; 3) SYNC_NAME=EXTRA ;; *) SYNC_NAME=$SYNC ;; esac
for n in $SIZES; do
    run_size "$n"
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
secs "$START_US"
ELAPSED=$REPLY

EMDB_VERSION=$("$EMDB_BIN" --version)
SQLITE_VERSION=$("$SQLITE3" --version | awk '{print $1}')

echo "## Per-invocation: emdb vs sqlite3"
echo
echo "- emdb: \`$EMDB_BIN\` ($EMDB_VERSION)"
echo "- sqlite3: $SQLITE_VERSION, \`kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID\`, journal_mode=$JOURNAL, synchronous=$SYNC_NAME (defaults)"
case $WARM in
    1) warmed="both databases' files read whole before each command, then " ;;
    *) warmed="" ;;
esac
echo "- ${warmed}$RUNS alternating runs per command after one warm-up call each; medians. Wall time of a bare exec; peak RSS from \`/usr/bin/time -f %M\` on a separate call in $RSS_RUNS of the rounds"
echo "- $(nproc) cores, load average $LOAD_BEFORE before, $LOAD_AFTER after; took $ELAPSED s"
for n in $SIZES; do
    echo
    echo "### $(fmt_int "$n") keys"
    echo
    emdb_dir "$n"
    cat "$REPLY/gen.txt" "$REPLY/emdb.done" "$REPLY/sqlite.done" 2>/dev/null | sed 's/^/- /'
    if [ "$ENCRYPT" = 1 ]; then echo "- emdb's database is encrypted (AES-256-GCM, raw key file); sqlite3's is plain"; fi
    echo
    echo "| command | emdb median ms | emdb peak RSS MiB | sqlite3 median ms | sqlite3 peak RSS MiB | ratio (emdb/sqlite3) |"
    echo "|---|---:|---:|---:|---:|---:|"
    for cmd in "${COMMANDS[@]}"; do
        e=${MED_US[$n:emdb:$cmd]} s=${MED_US[$n:sqlite:$cmd]}
        echo "| \`${LABEL[$cmd]}\` | $(ms "$e") | $(mib "${MED_RSS[$n:emdb:$cmd]}") | $(ms "$s") | $(mib "${MED_RSS[$n:sqlite:$cmd]}") | $(ratio "$e" "$s")x |"
    done
    echo
    echo "CPU time (user+sys) of the same calls, medians, 1 ms resolution; steadier than wall time on a loaded machine:"
    echo
    echo "| command | emdb CPU ms | sqlite3 CPU ms | ratio (emdb/sqlite3) |"
    echo "|---|---:|---:|---:|"
    for cmd in "${COMMANDS[@]}"; do
        e=${MED_CPU[$n:emdb:$cmd]} s=${MED_CPU[$n:sqlite:$cmd]}
        echo "| \`${LABEL[$cmd]}\` | $(ms "$e") | $(ms "$s") | $(ratio "$e" "$s")x |"
    done
done
read -r -a SIZE_LIST <<<"$SIZES"
if [ ${#SIZE_LIST[@]} -gt 1 ]; then
    small=${SIZE_LIST[0]} big=${SIZE_LIST[-1]}
    echo
    echo "### $(fmt_int "$big") vs $(fmt_int "$small") keys"
    echo
    echo "| command | emdb ms at $small | emdb ms at $big | emdb $big/$small | sqlite3 $big/$small |"
    echo "|---|---:|---:|---:|---:|"
    for cmd in "${COMMANDS[@]}"; do
        echo "| \`${LABEL[$cmd]}\` | $(ms "${MED_US[$small:emdb:$cmd]}") | $(ms "${MED_US[$big:emdb:$cmd]}") | $(ratio "${MED_US[$big:emdb:$cmd]}" "${MED_US[$small:emdb:$cmd]}")x | $(ratio "${MED_US[$big:sqlite:$cmd]}" "${MED_US[$small:sqlite:$cmd]}")x |"
    done
fi

if [ -n "$JSON_OUT" ]; then
    {
        printf '{\n  "bench": "per_invocation",\n  "date": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '  "emdb_bin": "%s",\n  "emdb_version": "%s",\n' "$EMDB_BIN" "$EMDB_VERSION"
        printf '  "sqlite_version": "%s",\n  "sqlite_journal_mode": "%s",\n  "sqlite_synchronous": "%s",\n' \
            "$SQLITE_VERSION" "$JOURNAL" "$SYNC_NAME"
        printf '  "runs": %d,\n  "rss_runs": %d,\n  "cores": %d,\n  "load_before": "%s",\n  "load_after": "%s",\n' \
            "$RUNS" "$RSS_RUNS" "$(nproc)" "$LOAD_BEFORE" "$LOAD_AFTER"
        printf '  "units": {"us": "wall time, microseconds", "cpu_us": "user+sys CPU time, microseconds (1 ms resolution)", "rss_kib": "peak RSS, KiB"},\n  "sizes": {'
        first_n=1
        for n in $SIZES; do
            [ $first_n = 1 ] || printf ','
            first_n=0
            printf '\n    "%s": {' "$n"
            first_c=1
            for cmd in "${COMMANDS[@]}"; do
                [ $first_c = 1 ] || printf ','
                first_c=0
                printf '\n      "%s": {"label": "%s",' "$cmd" "${LABEL[$cmd]}"
                for engine in emdb sqlite; do
                    read -r -a t <<<"${ALL_US[$n:$engine:$cmd]}"
                    read -r -a r <<<"${ALL_RSS[$n:$engine:$cmd]}"
                    read -r -a c <<<"${ALL_CPU[$n:$engine:$cmd]}"
                    printf '\n        "%s": {"median_us": %d, "median_cpu_us": %d, "median_rss_kib": %d, "us": %s, "cpu_us": %s, "rss_kib": %s},' \
                        "$engine" "${MED_US[$n:$engine:$cmd]}" "${MED_CPU[$n:$engine:$cmd]}" "${MED_RSS[$n:$engine:$cmd]}" \
                        "$(json_list "${t[@]}")" "$(json_list "${c[@]}")" "$(json_list "${r[@]}")"
                done
                printf '\n        "ratio": %s}' "$(json_ratio "${MED_US[$n:emdb:$cmd]}" "${MED_US[$n:sqlite:$cmd]}")"
            done
            printf '\n    }'
        done
        printf '\n  }\n}\n'
    } >"$JSON_OUT"
    say "wrote $JSON_OUT"
fi
