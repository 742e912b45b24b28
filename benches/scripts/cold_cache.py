#!/usr/bin/env python3
"""One-shot `emdb` against `sqlite3` with a cold page cache.

Uses the databases `benches/scripts/per_invocation.sh` builds (run it
first). Before each call every database file is dropped from the page
cache (`posix_fadvise(DONTNEED)`; the binaries stay cached), then one
process runs: `get` of a random key, then a second `get` of another key
(the files are still mostly cold), and `scan --prefix` of 100 keys. Prints
medians, min and max in milliseconds.

    benches/scripts/cold_cache.py [SIZE] [RUNS]     # default 10000000 15
    EMDB_BIN=/path/to/emdb benches/scripts/cold_cache.py

The window the kernel reads around a cold mapped page is the disk's
`read_ahead_kb` (printed); that is what `MADV_RANDOM` avoids.
"""

import os
import random
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIZE = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 15
EMDB = os.environ.get("EMDB_BIN", os.path.join(ROOT, "target", "release", "emdb"))
DATA = os.path.join(
    os.environ.get("PER_INVOCATION_DIR", os.path.join(ROOT, "target", "per-invocation")),
    str(SIZE),
)
DB = os.path.join(DATA, "emdb.emdb")
LITE = os.path.join(DATA, "kv.sqlite")
FILES = [DB, DB + ".ckpt", LITE]


def evict():
    for path in FILES:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def timed(cmd, expect):
    start = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout
    ms = (time.perf_counter() - start) * 1e3
    lines = out.count(b"\n")
    if lines != expect:
        sys.exit(f"cold_cache: {cmd} printed {lines} lines, not {expect}")
    return ms


def main():
    for path in FILES + [EMDB]:
        if not os.path.exists(path):
            sys.exit(f"cold_cache: {path} is missing (run benches/scripts/per_invocation.sh first)")
    try:
        with open("/sys/block/vda/queue/read_ahead_kb") as f:
            print(f"read_ahead_kb of vda: {f.read().strip()}")
    except OSError:
        pass
    rng = random.Random(3)
    res = {}
    for _ in range(RUNS):
        k1 = "user:%08d" % rng.randrange(SIZE - 1)
        k2 = "user:%08d" % rng.randrange(SIZE - 1)
        p = "user:%06d" % rng.randrange((SIZE - 1) // 100)
        q = p[:-1] + chr(ord(p[-1]) + 1)  # "9" + 1 is ":", still past the prefix
        calls = {
            "get (cold)": (
                [EMDB, "--db", DB, "-q", "get", k1],
                ["sqlite3", LITE, f"SELECT v FROM kv WHERE k='{k1}'"],
                1,
            ),
            "get (second key)": (
                [EMDB, "--db", DB, "-q", "get", k2],
                ["sqlite3", LITE, f"SELECT v FROM kv WHERE k='{k2}'"],
                1,
            ),
            "scan --prefix (100 keys, cold)": (
                [EMDB, "--db", DB, "-q", "scan", "--prefix", p, "--keys-only"],
                ["sqlite3", LITE, f"SELECT k FROM kv WHERE k >= '{p}' AND k < '{q}' ORDER BY k"],
                100,
            ),
        }
        # emdb and sqlite3 alternate; each starts from evicted files.
        for engine in (0, 1):
            evict()
            for name, call in calls.items():
                if name.endswith("(cold)") and name.startswith("scan"):
                    evict()
                res.setdefault((name, engine), []).append(timed(call[engine], call[2]))
    print(f"{SIZE} keys, {RUNS} runs, ms: median (min-max)")
    print("| call | emdb | sqlite3 | ratio |")
    print("|---|---:|---:|---:|")
    for name in calls:
        e, s = res[(name, 0)], res[(name, 1)]
        me, ms = statistics.median(e), statistics.median(s)
        print(
            f"| `{name}` | {me:.1f} ({min(e):.1f}-{max(e):.1f}) "
            f"| {ms:.1f} ({min(s):.1f}-{max(s):.1f}) | {me / ms:.2f}x |"
        )


if __name__ == "__main__":
    main()
