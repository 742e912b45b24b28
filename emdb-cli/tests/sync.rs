//! `emdb sync` against real redis-server processes started here on loopback
//! ports: one standalone server, and a 3-master cluster made with
//! `redis-cli --cluster create`. The test process is the writer; `emdb sync`
//! runs beside it. Every test ends with the target equal, key for key, to
//! `emdb export` of the source (TTLs within a second).
//!
//! `EMDB_SYNC_ROUNDS=N` sets the SIGKILL-and-restart rounds (default 4; the
//! long variant is 50 or more).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use common::TestDb;
use emdb_core::{Emdb, Ttl};
use predicates::prelude::PredicateBooleanExt;

/// A private redis-server on a free loopback port, killed (by pid) on drop.
struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A free port whose cluster bus port (port + 10000) is valid and free too.
fn free_cluster_port() -> u16 {
    loop {
        let p = free_port();
        if p < 55_000 && std::net::TcpListener::bind(("127.0.0.1", p + 10_000)).is_ok() {
            return p;
        }
    }
}

impl Server {
    /// A redis-server of our own on a free loopback port. A port found free
    /// can be taken by someone else (another test's server, an outgoing
    /// connection) before the server binds it: then our server exits and a
    /// PING would reach the other one, so the server must answer with our
    /// child's pid, or we try another port.
    fn start(cluster: bool) -> Server {
        Server::start_with(cluster, &[])
    }

    /// [`Server::start`] with more `redis-server` arguments.
    fn start_with(cluster: bool, extra: &[&str]) -> Server {
        for _ in 0..20 {
            if let Some(s) = Server::try_start(cluster, extra) {
                return s;
            }
        }
        panic!("redis-server did not start on any of 20 free ports");
    }

    fn try_start(cluster: bool, extra: &[&str]) -> Option<Server> {
        let dir = tempfile::tempdir().unwrap();
        let port = if cluster {
            free_cluster_port()
        } else {
            free_port()
        };
        let mut c = Command::new("redis-server");
        c.args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .args(extra)
            .stdout(Stdio::null());
        if cluster {
            c.args([
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
            ]);
        }
        let child = c
            .spawn()
            .expect("redis-server must be installed (.ci/run installs it)");
        let mut s = Server {
            child,
            port,
            _dir: dir,
        };
        let ours = format!("process_id:{}", s.child.id());
        let start = Instant::now();
        loop {
            if s.child.try_wait().unwrap().is_some() {
                // It could not bind the port.
                return None;
            }
            let info = s.cli(&["INFO", "server"]);
            if info.lines().any(|l| l.trim() == ours) {
                return Some(s);
            }
            if info.contains("process_id:") {
                // Another server answers on this port.
                return None;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Kill the server and start an empty one (no persistence) on the same
    /// port: a Redis restart that lost its data.
    fn restart_empty(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let start = Instant::now();
        loop {
            self.child = Command::new("redis-server")
                .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .arg("--dir")
                .arg(self._dir.path())
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            let ours = format!("process_id:{}", self.child.id());
            let began = Instant::now();
            while self.child.try_wait().unwrap().is_none()
                && began.elapsed() < Duration::from_secs(5)
            {
                if self
                    .cli(&["INFO", "server"])
                    .lines()
                    .any(|l| l.trim() == ours)
                {
                    return;
                }
                std::thread::sleep(Duration::from_millis(30));
            }
            // The port was not free yet (TIME_WAIT, the old process).
            let _ = self.child.kill();
            let _ = self.child.wait();
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "redis-server did not restart on port {}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn cli(&self, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Three masters joined with `redis-cli --cluster create`; `None` (with the
/// reason printed) when this redis-server has no cluster support.
fn cluster() -> Option<Vec<Server>> {
    let nodes: Vec<Server> = (0..3).map(|_| Server::start(true)).collect();
    let info = nodes[0].cli(&["CLUSTER", "INFO"]);
    if !info.contains("cluster_state") {
        eprintln!("skipped: redis-server lacks cluster support (CLUSTER INFO: {info:?})");
        return None;
    }
    let addrs: Vec<String> = nodes
        .iter()
        .map(|n| format!("127.0.0.1:{}", n.port))
        .collect();
    let out = Command::new("redis-cli")
        .args(["--cluster", "create"])
        .args(&addrs)
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cluster create: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let start = Instant::now();
    while !nodes
        .iter()
        .all(|n| n.cli(&["CLUSTER", "INFO"]).contains("cluster_state:ok"))
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "cluster did not form"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(nodes)
}

/// key -> (value, expiry ms or None)
type State = BTreeMap<Vec<u8>, (Vec<u8>, Option<u64>)>;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn field(v: &serde_json::Value, name: &str) -> Option<Vec<u8>> {
    let s = v.get(name)?.as_str()?;
    Some(
        match v.get(format!("{name}_encoding")).and_then(|e| e.as_str()) {
            Some("base64") => base64::engine::general_purpose::STANDARD.decode(s).unwrap(),
            Some(other) => panic!("unexpected encoding {other}"),
            None => s.as_bytes().to_vec(),
        },
    )
}

/// `emdb export` of the source, mapped the way sync maps keys (`prefix`
/// builds a namespace's prefix).
fn exported(db: &TestDb, prefix: &dyn Fn(&str) -> String) -> State {
    let out = db.stdout(["export", "--format", "jsonl"]);
    let mut state = State::new();
    for line in String::from_utf8(out).unwrap().lines().skip(1) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut key = match v.get("ns").and_then(|n| n.as_str()) {
            Some(ns) if !ns.is_empty() => prefix(ns).into_bytes(),
            _ => Vec::new(),
        };
        key.extend(field(&v, "key").unwrap());
        let exp = v.get("expires_at_ms").and_then(serde_json::Value::as_u64);
        state.insert(key, (field(&v, "value").unwrap(), exp));
    }
    state
}

/// Every key of the target but sync cursors, with values and expiries.
fn target_state(servers: &[&Server]) -> State {
    let mut state = State::new();
    for s in servers {
        let mut con = redis::Client::open(s.url())
            .unwrap()
            .get_connection()
            .unwrap();
        let keys: Vec<Vec<u8>> = redis::cmd("KEYS").arg("*").query(&mut con).unwrap();
        for k in keys {
            if k.starts_with(b"emdb-sync-cursor:") || k.starts_with(b"emdb-sync-lease:") {
                continue;
            }
            let v: Option<Vec<u8>> = redis::cmd("GET").arg(&k).query(&mut con).unwrap();
            let ttl: i64 = redis::cmd("PTTL").arg(&k).query(&mut con).unwrap();
            let exp = (ttl >= 0).then(|| now_ms() + ttl as u64);
            if let Some(v) = v {
                state.insert(k, (v, exp));
            }
        }
    }
    state
}

/// True when both hold the same keys and values, expiries within a second.
fn same(a: &State, b: &State) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((ka, (va, ea)), (kb, (vb, eb)))| {
            ka == kb
                && va == vb
                && match (ea, eb) {
                    (None, None) => true,
                    (Some(x), Some(y)) => x.abs_diff(*y) <= 1000,
                    _ => false,
                }
        })
}

/// Wait until the target equals the export (the sync runs beside).
fn wait_equal(db: &TestDb, servers: &[&Server], prefix: &dyn Fn(&str) -> String) {
    wait_equal_or(db, servers, prefix, &String::new);
}

/// [`wait_equal`], adding `diagnose()` to the failure message.
fn wait_equal_or(
    db: &TestDb,
    servers: &[&Server],
    prefix: &dyn Fn(&str) -> String,
    diagnose: &dyn Fn() -> String,
) {
    let want = exported(db, prefix);
    let start = Instant::now();
    loop {
        let got = target_state(servers);
        if same(&want, &got) {
            return;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let missing: Vec<_> = want
                .keys()
                .filter(|k| !got.contains_key(*k))
                .take(5)
                .collect();
            let extra: Vec<_> = got
                .keys()
                .filter(|k| !want.contains_key(*k))
                .take(5)
                .collect();
            panic!(
                "target differs from the export: {} vs {} keys; missing {missing:?}, extra {extra:?}{}",
                want.len(),
                got.len(),
                diagnose()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn sync_child(db: &TestDb, args: &[&str]) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("emdb"))
        .env("HOME", db.dir.path())
        .env_remove("EMDB_PATH")
        .arg("--db")
        .arg(&db.path)
        .arg("sync")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn sigkill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// One `emdb sync` run to completion (no --follow); its final JSON report.
fn sync_once(db: &TestDb, args: &[&str]) -> serde_json::Value {
    let out = db.stdout([&["sync", "--json"], args].concat());
    let last = String::from_utf8(out)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string();
    serde_json::from_str(&last).unwrap()
}

fn writer(path: &Path) -> Emdb {
    Emdb::open(path).unwrap()
}

/// A mixed workload: puts (binary too), TTLs, deletes, a clear, a drop.
fn workload(db: &Emdb, round: u32) {
    let users = db.namespace("users").unwrap();
    let tmp = db.namespace(format!("tmp{round}")).unwrap();
    for i in 0..200u32 {
        db.insert(format!("k{i}"), format!("v{round}-{i}")).unwrap();
        users
            .insert(format!("u{i}"), [0u8, 0xFF, round as u8, i as u8])
            .unwrap();
        tmp.insert(format!("t{i}"), "x").unwrap();
    }
    db.insert([0u8, 1, 2, 0xFE], [0xFFu8, 0, 0x80]).unwrap();
    db.insert_with_ttl("ttl", "soon", Ttl::After(Duration::from_secs(3600)))
        .unwrap();
    users
        .insert_with_ttl("gone", "x", Ttl::After(Duration::from_millis(1)))
        .unwrap();
    for i in (0..200u32).step_by(3) {
        db.remove(format!("k{i}")).unwrap();
    }
    db.insert_many((0..50u32).map(|i| (format!("b{round}:{i}"), "batch")))
        .unwrap();
    tmp.clear().unwrap();
    tmp.insert("after-clear", "y").unwrap();
    if round > 0 {
        db.drop_namespace(format!("tmp{}", round - 1)).unwrap();
    }
    // A clear of "app" must spare namespace "app:x", whose keys share the prefix.
    let app = db.namespace("app").unwrap();
    let nested = db.namespace("app:x").unwrap();
    app.insert(format!("a{round}"), "1").unwrap();
    nested.insert(format!("n{round}"), "2").unwrap();
    app.clear().unwrap();
    // A clear of the default namespace spares named namespaces and cursors.
    if round % 3 == 2 {
        db.clear().unwrap();
        db.insert("after-default-clear", "z").unwrap();
    }
    db.flush().unwrap();
}

fn default_prefix(ns: &str) -> String {
    format!("{ns}:")
}

#[test]
fn copy_then_follow_into_one_server() {
    let server = Server::start(false);
    let db = TestDb::new();
    let w = writer(&db.path);
    workload(&w, 0);
    let url = server.url();

    // Full copy, no follow.
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 0);
    wait_equal(&db, &[&server], &default_prefix);

    // Follow while the writer changes, compacts, and changes again.
    let mut child = sync_child(&db, &["--to", &url, "--follow"]);
    workload(&w, 1);
    w.compact().unwrap();
    workload(&w, 2);
    wait_equal(&db, &[&server], &default_prefix);
    sigkill(&mut child);

    // Stopped caught up, then the writer compacts and writes on: the sync
    // resumes through the coverage block, without a resend.
    w.compact().unwrap();
    workload(&w, 3);
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 0, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
    // Caught up: a second run sends nothing.
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["applied_ops"], 0, "{done}");

    // Caught up, then two compactions while stopped: one counted resend,
    // still exact.
    w.compact().unwrap();
    workload(&w, 4);
    w.compact().unwrap();
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 1, "{done}");
    wait_equal(&db, &[&server], &default_prefix);

    // Behind when the writer compacted (writes the sync had not read were
    // folded into the snapshot): one counted resend, still exact.
    workload(&w, 5);
    w.compact().unwrap();
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 1, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
}

#[test]
fn state_file_and_writer_restart() {
    let server = Server::start(false);
    let db = TestDb::new();
    let state = db.file("sync.state");
    let state = state.to_str().unwrap();
    {
        let w = writer(&db.path);
        workload(&w, 0);
    }
    let url = server.url();
    sync_once(&db, &["--to", &url, "--state-file", state]);
    assert!(std::fs::read_to_string(state)
        .unwrap()
        .starts_with("emdb-sync 1 "));
    // The writer restarts (a clean close, then a reopen) and writes on.
    {
        let w = writer(&db.path);
        workload(&w, 1);
    }
    let done = sync_once(&db, &["--to", &url, "--state-file", state]);
    assert_eq!(done["resends"], 0);
    wait_equal(&db, &[&server], &default_prefix);
}

/// A plain copy of the database restored over it keeps its id and
/// generation, so the saved cursor looked valid: the sync resumed at its
/// offset in whatever the copy wrote there since, and the target kept
/// every key written after the copy was made (or the sync stopped with a
/// corruption error `check` did not confirm). The cursor now carries a
/// checksum of the log before it, and the resume copies everything again.
#[test]
fn a_plain_copy_restored_over_the_database_is_copied_again() {
    let server = Server::start(false);
    let db = TestDb::new();
    let url = server.url();
    let fill = |prefix: &str, n: u32| {
        let w = writer(&db.path);
        for i in 0..n {
            w.insert(format!("{prefix}{i}"), prefix).unwrap();
        }
        w.flush().unwrap();
    };
    fill("a", 100);
    let saved = db.file("copy.emdb");
    std::fs::copy(&db.path, &saved).unwrap();
    fill("later", 100);
    sync_once(&db, &["--to", &url]);
    // The restore: the copy over the file, the files beside it dropped.
    std::fs::copy(&saved, &db.path).unwrap();
    for beside in [".ckpt", ".tail", ".stats"] {
        let _ = std::fs::remove_file(db.file(&format!("test.emdb{beside}")));
    }
    fill("b", 300);
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 1, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
}

#[test]
fn into_a_cluster_with_hash_tags() {
    let Some(nodes) = cluster() else {
        return;
    };
    let db = TestDb::new();
    let w = writer(&db.path);
    workload(&w, 0);
    let seeds: Vec<String> = nodes.iter().map(Server::url).collect();
    let all: Vec<&Server> = nodes.iter().collect();
    let tagged = |ns: &str| format!("{{{ns}}}:");
    let args = [
        "--to",
        &seeds[0],
        "--to",
        &seeds[1],
        "--cluster",
        "--ns-prefix",
        "{%n}:",
    ];
    sync_once(&db, &args);
    wait_equal(&db, &all, &tagged);

    let mut child = sync_child(&db, &[&args[..], &["--follow"]].concat());
    workload(&w, 1);
    w.compact().unwrap();
    workload(&w, 2);
    wait_equal(&db, &all, &tagged);
    sigkill(&mut child);
    workload(&w, 3);
    let done = sync_once(&db, &args);
    assert_eq!(done["resends"], 0);
    wait_equal(&db, &all, &tagged);
}

#[test]
fn sigkill_and_restart_rounds() {
    let rounds: u32 = std::env::var("EMDB_SYNC_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(4);
    let server = Server::start(false);
    let db = TestDb::new();
    let w = writer(&db.path);
    let url = server.url();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for round in 0..rounds {
        let mut child = sync_child(&db, &["--to", &url, "--follow"]);
        workload(&w, round);
        if round % 4 == 3 {
            w.compact().unwrap();
        }
        // Kill at a pseudo-random moment, mid-copy or mid-follow.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_millis(seed % 300));
        sigkill(&mut child);
    }
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 0, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
}

#[test]
fn target_down_is_exit_8() {
    let db = TestDb::new();
    db.put("a", "1");
    let port = free_port();
    db.cmd([
        "sync",
        "--to",
        &format!("redis://127.0.0.1:{port}"),
        "--retry-for",
        "1s",
    ])
    .assert()
    .code(9)
    .stderr(predicates::str::contains("is not usable"));
}

/// A target that answers but refuses every write (here its memory limit)
/// is running and reachable: the hint says to look at Redis's reply, not
/// to check that Redis runs.
#[test]
fn a_refusing_target_is_named_as_refusing() {
    let server = Server::start(false);
    server.cli(&["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
    server.cli(&["CONFIG", "SET", "maxmemory", "1"]);
    let db = TestDb::new();
    db.put("a", "1");
    db.cmd(["sync", "--to", &server.url(), "--retry-for", "1s"])
        .assert()
        .code(9)
        .stderr(predicates::str::contains("refused a command"))
        .stderr(predicates::str::contains("Redis answered with an error"))
        .stderr(predicates::prelude::PredicateBooleanExt::not(
            predicates::str::contains("running and reachable"),
        ));
}

#[test]
fn encrypted_source() {
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("secret", "value");
    let pass = db.file("pass.txt");
    std::fs::write(&pass, "hunter2\n").unwrap();
    db.cmd(["encrypt", "--yes", "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    db.cmd(["sync", "--to", &server.url(), "--passphrase-file"])
        .arg(&pass)
        .assert()
        .success();
    assert_eq!(server.cli(&["GET", "secret"]).trim(), "value");
    // Without the secret: the usual wrong-key exit, nothing sent.
    db.cmd(["sync", "--to", &server.url()]).assert().code(5);
}

/// The writer side of `writer_crash_does_not_force_a_resend`, run in a child
/// process: writes forever, durable every 50 records.
#[test]
#[ignore = "child process of writer_crash_does_not_force_a_resend"]
fn child_writer() {
    let Ok(path) = std::env::var("EMDB_SYNC_CHILD_WRITER") else {
        return;
    };
    let db = Emdb::open(&path).unwrap();
    let ns = db.namespace("crash").unwrap();
    for i in 0u64.. {
        db.insert(format!("c{i}"), format!("v{i}")).unwrap();
        ns.insert_with_ttl(
            format!("t{i}"),
            [0u8, 0xFF],
            Ttl::After(Duration::from_secs(600)),
        )
        .unwrap();
        if i % 50 == 49 {
            db.flush().unwrap();
        }
    }
}

#[test]
fn writer_crash_does_not_force_a_resend() {
    let server = Server::start(false);
    let db = TestDb::new();
    let url = server.url();
    db.put("seed", "1");
    let mut sync = sync_child(&db, &["--to", &url, "--follow"]);
    let mut w = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "child_writer", "--nocapture"])
        .env("EMDB_SYNC_CHILD_WRITER", &db.path)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    // The writer dies mid-write: its unsynced tail is cut at the next open.
    sigkill(&mut w);
    std::thread::sleep(Duration::from_millis(200));
    sigkill(&mut sync);
    let after = writer(&db.path);
    workload(&after, 0);
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 0, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
}

#[test]
fn dropped_connections_are_retried_without_losing_a_change() {
    let server = Server::start(false);
    let db = TestDb::new();
    let w = writer(&db.path);
    workload(&w, 0);
    let url = server.url();
    // The sync's stderr (its retries) goes to a file, shown if the test fails.
    let log = db.file("sync.stderr");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("emdb"))
        .env("HOME", db.dir.path())
        .env_remove("EMDB_PATH")
        .arg("--db")
        .arg(&db.path)
        .args(["sync", "--to", &url, "--follow"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    for round in 1..6 {
        workload(&w, round);
        // Cut every client connection, the sync's included, mid-stream.
        server.cli(&["CLIENT", "KILL", "TYPE", "normal"]);
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = child.id();
    wait_equal_or(&db, &[&server], &default_prefix, &|| {
        let state = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("State:"))
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "exited".into());
        let stderr = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
        format!(
            "\nsync process: {state}\nits stderr (last lines first):\n{}",
            tail.join("\n")
        )
    });
    assert!(child.try_wait().unwrap().is_none(), "the sync gave up");
    sigkill(&mut child);
}

/// A loopback proxy to `upstream` that closes the first `drop_first`
/// connections as soon as it accepts them and forwards the rest.
fn dropping_proxy(upstream: u16, drop_first: usize) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (i, conn) in listener.incoming().enumerate() {
            let Ok(client) = conn else { continue };
            if i < drop_first {
                drop(client);
                continue;
            }
            let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", upstream)) else {
                continue;
            };
            let (mut c2, mut s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut c1, mut s1) = (client, server);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut c1, &mut s1);
                let _ = s1.shutdown(std::net::Shutdown::Both);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s2, &mut c2);
                let _ = c2.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    port
}

#[test]
fn a_connection_dropped_at_start_is_retried() {
    // The first connection is accepted and closed before the PING's reply:
    // a restarting server or a `CLIENT KILL`, not an unreachable target.
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("a", "1");
    let port = dropping_proxy(server.port, 1);
    let done = sync_once(&db, &["--to", &format!("redis://127.0.0.1:{port}")]);
    assert!(done["errors"].as_u64().unwrap() >= 1, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
}

#[test]
fn refused_writes_hold_the_cursor_back() {
    let server = Server::start(false);
    let db = TestDb::new();
    {
        let w = writer(&db.path);
        for i in 0..40_000u32 {
            w.insert(format!("key{i:06}"), [b'x'; 100]).unwrap();
        }
        w.flush().unwrap();
    }
    let url = server.url();
    let state = db.file("sync.state");
    let state = state.to_str().unwrap();
    // The server refuses writes past 3 MiB (-OOM; noeviction is the default
    // policy): the sync retries, then gives up with exit 9.
    server.cli(&["CONFIG", "SET", "maxmemory", "3mb"]);
    db.cmd([
        "sync",
        "--to",
        &url,
        "--state-file",
        state,
        "--retry-for",
        "1s",
    ])
    .assert()
    .code(9)
    .stderr(predicates::str::contains("OOM"));
    let in_redis: usize = server.cli(&["DBSIZE"]).trim().parse().unwrap();
    assert!(in_redis < 40_000, "{in_redis} keys in a 3 MiB server");
    // The cursor (kept locally, so saving it never failed) covers only
    // records the server took.
    let saved: u64 = std::fs::read_to_string(state)
        .map(|t| t.split_whitespace().nth(4).unwrap().parse().unwrap())
        .unwrap_or(0);
    let source = writer(&db.path);
    let (mut feed, _) = emdb_core::changes::ChangeFeed::open(&source, None).unwrap();
    let mut covered = Vec::new();
    while feed.cursor().position < saved {
        let poll = feed.poll(1 << 20).unwrap();
        assert!(!poll.units.is_empty(), "the cursor is past the log");
        for unit in poll.units.iter().filter(|u| u.end.position <= saved) {
            for change in &unit.changes {
                if let emdb_core::changes::Change::Put { key, .. } = change {
                    covered.push(key.clone());
                }
            }
        }
    }
    assert!(
        !covered.is_empty(),
        "no cursor was saved before the refusals"
    );
    let mut con = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let mut exists = redis::pipe();
    for k in &covered {
        exists.cmd("EXISTS").arg(k);
    }
    let found: Vec<i64> = exists.query(&mut con).unwrap();
    let lost: Vec<_> = covered
        .iter()
        .zip(&found)
        .filter(|(_, f)| **f != 1)
        .map(|(k, _)| String::from_utf8_lossy(k))
        .take(5)
        .collect();
    assert!(
        lost.is_empty(),
        "the cursor covers records not in Redis: {lost:?}"
    );
    drop(source);
    // Room again: the same command completes, exactly.
    server.cli(&["CONFIG", "SET", "maxmemory", "0"]);
    let done = sync_once(&db, &["--to", &url, "--state-file", state]);
    assert_eq!(done["resends"], 0, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
}

#[test]
fn an_idle_follow_outlives_drops_far_apart() {
    let server = Server::start(false);
    let db = TestDb::new();
    let w = writer(&db.path);
    workload(&w, 0);
    let url = server.url();
    let mut child = sync_child(&db, &["--to", &url, "--follow", "--retry-for", "2s"]);
    wait_equal(&db, &[&server], &default_prefix);
    // Two failures further apart than --retry-for, nothing to send between
    // them: each is a new run of failures, not one run of 6 s.
    server.cli(&["CLIENT", "KILL", "TYPE", "normal"]);
    std::thread::sleep(Duration::from_secs(6));
    server.cli(&["CLIENT", "KILL", "TYPE", "normal"]);
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().unwrap().is_none(), "the sync gave up");
    workload(&w, 1);
    wait_equal(&db, &[&server], &default_prefix);
    sigkill(&mut child);
}

/// `emdb sync` beside the test, with its stderr in `log` (read it with
/// [`read_log`]).
fn sync_logged(db: &TestDb, args: &[&str], log: &Path) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("emdb"))
        .env("HOME", db.dir.path())
        .env_remove("EMDB_PATH")
        .env_remove("EMDB_PASSPHRASE")
        .env_remove("EMDB_KEY_FILE")
        .arg("--db")
        .arg(&db.path)
        .arg("sync")
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

fn read_log(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// The exit code of `child`, which must end within `limit`.
fn exit_code_within(child: &mut Child, limit: Duration, log: &Path) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if start.elapsed() > limit {
            sigkill(child);
            panic!(
                "the sync did not stop within {limit:?}; its stderr:\n{}",
                read_log(log)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every key of the target, cursors included (not a running sync's lease),
/// with its value.
fn raw_target(server: &Server) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut con = redis::Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let keys: Vec<Vec<u8>> = redis::cmd("KEYS").arg("*").query(&mut con).unwrap();
    keys.into_iter()
        .filter(|k| !k.starts_with(b"emdb-sync-lease:"))
        .map(|k| {
            let v: Vec<u8> = redis::cmd("GET").arg(&k).query(&mut con).unwrap();
            (k, v)
        })
        .collect()
}

/// A following sync whose database is re-keyed under it (`change` runs
/// `encrypt` or `rotate-key`; `encrypted`: the database starts encrypted
/// with the passphrase in `old-secret.txt`, which the sync is given): it
/// must stop with the wrong-key exit 5 and leave every key of the target,
/// its cursor included, as it was.
fn rekeyed_under_a_follow(encrypted: bool, change: &dyn Fn(&TestDb)) {
    let server = Server::start(false);
    let db = TestDb::new();
    let old = db.file("old-secret.txt");
    std::fs::write(&old, "old\n").unwrap();
    let old = old.to_str().unwrap().to_string();
    let lines: String = (0..20).map(|i| format!("put a{i} {i}\n")).collect();
    db.cmd(["-q", "shell"])
        .write_stdin(lines)
        .assert()
        .success();
    let secret: &[&str] = if encrypted {
        db.cmd(["encrypt", "--yes", "--passphrase-file", &old])
            .assert()
            .success();
        &["--passphrase-file", &old]
    } else {
        &[]
    };
    let log = db.file("sync.stderr");
    let url = server.url();
    let mut child = sync_logged(&db, &[&["--to", &url, "--follow"], secret].concat(), &log);
    let start = Instant::now();
    while raw_target(&server).len() < 21 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the first copy did not arrive: {}",
            read_log(&log)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = raw_target(&server);
    change(&db);
    let code = exit_code_within(&mut child, Duration::from_secs(30), &log);
    let stderr = read_log(&log);
    assert_eq!(code, 5, "{stderr}");
    assert!(!stderr.contains("check --repair"), "{stderr}");
    assert!(
        !stderr.contains("emdb sync: copying everything again"),
        "{stderr}"
    );
    assert_eq!(raw_target(&server), before, "the target changed: {stderr}");
}

#[test]
fn encrypting_the_source_under_a_follow_keeps_the_target() {
    rekeyed_under_a_follow(false, &|db| {
        let new = db.file("new-secret.txt");
        std::fs::write(&new, "new\n").unwrap();
        db.cmd(["encrypt", "--yes", "--passphrase-file"])
            .arg(&new)
            .assert()
            .success();
    });
}

#[test]
fn rotating_the_key_under_a_follow_keeps_the_target() {
    rekeyed_under_a_follow(true, &|db| {
        let new = db.file("new-secret.txt");
        std::fs::write(&new, "new\n").unwrap();
        db.cmd(["rotate-key", "--yes", "--passphrase-file"])
            .arg(db.file("old-secret.txt"))
            .arg("--new-passphrase-file")
            .arg(&new)
            .assert()
            .success();
    });
}

#[test]
fn a_target_restarted_empty_gets_everything_again() {
    let mut server = Server::start(false);
    let db = TestDb::new();
    let url = server.url();
    {
        let w = writer(&db.path);
        workload(&w, 0);
    }
    let log = db.file("sync.stderr");
    let mut child = sync_logged(&db, &["--to", &url, "--follow"], &log);
    wait_equal(&db, &[&server], &default_prefix);
    // Redis restarts without its data while the sync follows an idle writer.
    server.restart_empty();
    std::thread::sleep(Duration::from_millis(1500));
    {
        let w = writer(&db.path);
        w.insert("new1", "x").unwrap();
        w.flush().unwrap();
    }
    wait_equal_or(&db, &[&server], &default_prefix, &|| {
        format!("\nsync stderr:\n{}", read_log(&log))
    });
    assert!(child.try_wait().unwrap().is_none(), "the sync gave up");
    sigkill(&mut child);
    assert!(read_log(&log).contains("copying everything again"));
    // A one-shot run after it finds the target's cursor and sends nothing.
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["applied_ops"], 0, "{done}");
}

#[test]
fn retry_for_is_used_whole_at_start() {
    // Every connection is accepted and dropped: retried until --retry-for
    // is used, not until the next backoff would pass it.
    let db = TestDb::new();
    db.put("a", "1");
    let server = Server::start(false);
    let port = dropping_proxy(server.port, usize::MAX);
    let start = Instant::now();
    let out = db
        .cmd([
            "sync",
            "--to",
            &format!("redis://127.0.0.1:{port}"),
            "--retry-for",
            "3s",
        ])
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(8),
        "{took:?}: {stderr}"
    );
    assert_eq!(out.status.code(), Some(9), "{stderr}");
    assert!(stderr.contains("gave up after retrying for 3"), "{stderr}");
}

#[test]
fn retry_for_is_used_whole_while_following() {
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("a", "1");
    let log = db.file("sync.stderr");
    let url = server.url();
    let mut child = sync_logged(&db, &["--to", &url, "--follow", "--retry-for", "3s"], &log);
    wait_equal(&db, &[&server], &default_prefix);
    drop(server);
    let start = Instant::now();
    let code = exit_code_within(&mut child, Duration::from_secs(20), &log);
    let took = start.elapsed();
    let stderr = read_log(&log);
    assert_eq!(code, 9, "{stderr}");
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(8),
        "{took:?}: {stderr}"
    );
    assert!(stderr.contains("gave up after retrying for 3"), "{stderr}");
}

#[test]
fn a_reset_is_counted_in_resends() {
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("a", "1");
    db.put("b", "2");
    let url = server.url();
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 0, "{done}");
    let done = sync_once(&db, &["--to", &url, "--reset"]);
    assert_eq!(done["resends"], 1, "{done}");
    wait_equal(&db, &[&server], &default_prefix);
}

/// Mistakes no retry can fix stop the sync at once with what to change,
/// instead of retrying for all of `--retry-for` and exiting 9 with a hint
/// to check that Redis runs: a state file that cannot be written or read,
/// or that holds another target's cursor (which made a sync into a second
/// target skip everything), `-n` (which sync ignored), and a database
/// number with `--cluster`.
#[test]
fn mistakes_no_retry_fixes_stop_at_once() {
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("a", "1");
    let url = server.url();
    let start = Instant::now();
    let nodir = db.file("no-such-dir/state");
    db.cmd(["sync", "--to", &url, "--retry-for", "30s", "--state-file"])
        .arg(&nodir)
        .assert()
        .code(6)
        .stderr(predicates::str::contains("--state-file"))
        .stderr(predicates::str::contains("check that Redis").not());
    let garbled = db.file("garbled");
    std::fs::write(&garbled, "").unwrap();
    db.cmd(["sync", "--to", &url, "--retry-for", "30s", "--state-file"])
        .arg(&garbled)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("holds no sync cursor"));
    assert!(start.elapsed() < Duration::from_secs(20), "retried");
    // One state file, one target.
    let state = db.file("sync.state");
    let state = state.to_str().unwrap();
    sync_once(&db, &["--to", &format!("{url}/1"), "--state-file", state]);
    db.cmd(["sync", "--to", &format!("{url}/2"), "--state-file", state])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cursor of a sync into"));
    let done = sync_once(
        &db,
        &[
            "--to",
            &format!("{url}/2"),
            "--state-file",
            state,
            "--reset",
        ],
    );
    assert_eq!(done["applied_ops"], 1);
    assert_eq!(server.cli(&["-n", "2", "GET", "a"]).trim(), "1");
    // Two spellings of one server are one target.
    let state0 = db.file("sync0.state");
    let state0 = state0.to_str().unwrap();
    sync_once(&db, &["--to", &url, "--state-file", state0]);
    let done = sync_once(&db, &["--to", &format!("{url}/0"), "--state-file", state0]);
    assert_eq!(done["resends"], 0);
    db.cmd(["-n", "users", "sync", "--to", &url])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("sync copies every namespace"));
    db.cmd(["sync", "--cluster", "--to", &format!("{url}/3")])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("only database 0"));
}

/// A target that stops answering without closing the connection (a
/// stopped process, a partition) while a change waits for its reply is a
/// failure like any other: retried, then exit 9 once `--retry-for` is
/// used. Before, a following sync waited on it for ever with 0 errors.
#[test]
fn a_target_that_stops_answering_is_a_failure() {
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("a", "1");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("emdb"))
        .env("HOME", db.dir.path())
        .env_remove("EMDB_PATH")
        .arg("--db")
        .arg(&db.path)
        .args([
            "sync",
            "--follow",
            "--retry-for",
            "1s",
            "--to",
            &server.url(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_equal(&db, &[&server], &default_prefix);
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-STOP", &pid])
        .status()
        .unwrap()
        .success());
    db.put("b", "2");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = Command::new("kill").args(["-CONT", &pid]).status();
            sigkill(&mut child);
            panic!("the sync waited for a stopped target for 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = Command::new("kill").args(["-CONT", &pid]).status();
    assert_eq!(status.code(), Some(9), "{status:?}");
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("no reply from the target"), "{err}");
}

/// A following sync that is caught up and idle notices a target that lost
/// what it was sent (here `FLUSHALL`) within seconds, and copies everything
/// again. Before, it went on reporting lag 0 over an empty Redis until the
/// writer wrote again.
#[test]
fn an_idle_follow_notices_a_flushed_target() {
    let server = Server::start(false);
    let db = TestDb::new();
    {
        let w = writer(&db.path);
        workload(&w, 0);
    }
    let mut child = sync_child(&db, &["--follow", "--to", &server.url()]);
    wait_equal(&db, &[&server], &default_prefix);
    assert_eq!(server.cli(&["FLUSHALL"]).trim(), "OK");
    // No write: only the sync's own check can bring the keys back.
    wait_equal(&db, &[&server], &default_prefix);
    sigkill(&mut child);
}

/// A first sync of a database into a target that holds another database's
/// cursor (or this one's from before `encrypt`, `decrypt`, `rotate-key` or
/// a restored backup gave it a new id) is exit 2 unless `--reset`: a plain
/// copy over it left every key the other had and this one has not. With
/// `--reset` the target ends equal to this database.
#[test]
fn a_target_synced_from_another_database_needs_reset() {
    let server = Server::start(false);
    let a = TestDb::new();
    a.put("only-in-a", "1");
    a.put("both", "a");
    sync_once(&a, &["--to", &server.url()]);
    let b = TestDb::new();
    b.put("both", "b");
    b.cmd(["sync", "--to", &server.url()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("another database's sync cursor"))
        .stderr(predicates::str::contains("--reset"));
    assert_eq!(server.cli(&["GET", "both"]).trim(), "a");
    sync_once(&b, &["--to", &server.url(), "--reset"]);
    wait_equal(&b, &[&server], &default_prefix);
    // Its own cursor is there now: later runs resume without --reset.
    b.put("later", "1");
    let done = sync_once(&b, &["--to", &server.url()]);
    assert_eq!(done["resends"], 0);
    wait_equal(&b, &[&server], &default_prefix);
}

/// A target that evicts keys when full (a `maxmemory` with an evicting
/// `maxmemory-policy`) is refused at start, exit 2 naming the policy:
/// before, the keys it evicted were silently missing and the sync exited 0
/// ("0 errors"). `--allow-eviction` syncs anyway; `noeviction` is fine.
#[test]
fn an_evicting_target_is_refused() {
    let server = Server::start_with(
        false,
        &["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"],
    );
    let db = TestDb::new();
    db.put("a", "1");
    let url = server.url();
    let start = Instant::now();
    db.cmd(["sync", "--to", &url])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("allkeys-lru"))
        .stderr(predicates::str::contains("noeviction"))
        .stderr(predicates::str::contains("--allow-eviction"));
    assert!(start.elapsed() < Duration::from_secs(20), "retried");
    assert_eq!(server.cli(&["DBSIZE"]).trim(), "0", "wrote before refusing");
    let done = sync_once(&db, &["--to", &url, "--allow-eviction"]);
    assert_eq!(done["applied_ops"], 1, "{done}");
    assert_eq!(
        server
            .cli(&["CONFIG", "SET", "maxmemory-policy", "noeviction"])
            .trim(),
        "OK"
    );
    db.put("b", "2");
    sync_once(&db, &["--to", &url]);
    wait_equal(&db, &[&server], &default_prefix);
    // Found again after a reconnection: a policy changed under a follow.
    let log = db.file("evict.stderr");
    let mut child = sync_logged(&db, &["--to", &url, "--follow"], &log);
    wait_equal(&db, &[&server], &default_prefix);
    assert_eq!(
        server
            .cli(&["CONFIG", "SET", "maxmemory-policy", "volatile-lru"])
            .trim(),
        "OK"
    );
    server.cli(&["CLIENT", "KILL", "TYPE", "normal"]);
    db.put("c", "3");
    let code = exit_code_within(&mut child, Duration::from_secs(30), &log);
    assert_eq!(code, 2, "{}", read_log(&log));
    assert!(
        read_log(&log).contains("volatile-lru"),
        "{}",
        read_log(&log)
    );
}

/// A user that may not run `INFO` is told once that eviction cannot be
/// checked, and the sync goes on.
#[test]
fn a_target_without_info_is_synced_with_a_note() {
    let server = Server::start(false);
    assert_eq!(
        server
            .cli(&["ACL", "SETUSER", "syncer", "on", ">pw", "~*", "+@all", "-info"])
            .trim(),
        "OK"
    );
    let db = TestDb::new();
    db.put("a", "1");
    let url = format!("redis://syncer:pw@127.0.0.1:{}", server.port);
    let out = db.cmd(["sync", "--to", &url]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("cannot read the maxmemory-policy").count(),
        1,
        "{stderr}"
    );
    wait_equal(&db, &[&server], &default_prefix);
}

/// The cursor records the key mapping it was saved under: a run with
/// another `--ns-prefix` is exit 2 naming the old one, in the target and in
/// a state file, and `--reset` copies everything under the new prefix.
/// Before, it resumed from the cursor: keys stayed under the old prefix
/// (deleted ones too) and older keys never reached the new one.
#[test]
fn a_changed_ns_prefix_needs_reset() {
    let server = Server::start(false);
    let db = TestDb::new();
    let url = server.url();
    let state = db.file("sync.state");
    let state = state.to_str().unwrap();
    let url1 = format!("{url}/1");
    for ns in [
        &["-n", "users", "put", "u1", "alice"][..],
        &["-n", "users", "put", "u2", "bob"],
    ] {
        db.cmd(ns).assert().success();
    }
    sync_once(&db, &["--to", &url]);
    sync_once(&db, &["--to", &url1, "--state-file", state]);
    db.cmd(["-n", "users", "put", "u3", "carol"])
        .assert()
        .success();
    db.cmd(["-n", "users", "del", "u1"]).assert().success();
    for extra in [&[][..], &["--state-file", state]] {
        let to = if extra.is_empty() { &url } else { &url1 };
        db.cmd([&["sync", "--to", to, "--ns-prefix", "{%n}:"][..], extra].concat())
            .assert()
            .code(2)
            .stderr(predicates::str::contains("\"%n:\""))
            .stderr(predicates::str::contains("--reset"));
    }
    assert_eq!(server.cli(&["EXISTS", "{users}:u3"]).trim(), "0");
    let tagged = |ns: &str| format!("{{{ns}}}:");
    sync_once(&db, &["--to", &url, "--ns-prefix", "{%n}:", "--reset"]);
    wait_equal(&db, &[&server], &tagged);
    // Later runs under the new prefix resume.
    let done = sync_once(&db, &["--to", &url, "--ns-prefix", "{%n}:"]);
    assert_eq!(done["resends"], 0, "{done}");
    // A cursor saved before the mapping was recorded is taken as it is.
    let key = server.cli(&["--scan", "--pattern", "emdb-sync-cursor:*"]);
    let key = key.trim();
    let value = server.cli(&["GET", key]);
    let old = value.trim().split(" map=").next().unwrap().to_string();
    assert_ne!(old, value.trim());
    assert_eq!(server.cli(&["SET", key, &old]).trim(), "OK");
    let done = sync_once(&db, &["--to", &url]);
    assert_eq!(done["resends"], 0, "{done}");
}

/// A second sync of one database into one target finds the first one's
/// lease and stops (exit 2) naming it, before it writes anything. Before,
/// both ran: each saw the cursor change under it and copied everything
/// again, wiping the target hundreds of times. A killed sync's lease
/// expires within seconds, and a sync that ends deletes its own.
#[test]
fn a_second_sync_into_one_target_is_refused() {
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("a", "1");
    let url = server.url();
    let log = db.file("first.stderr");
    let mut first = sync_logged(&db, &["--to", &url, "--follow"], &log);
    wait_equal(&db, &[&server], &default_prefix);
    let pid = format!(":{}:", first.id());
    let state = db.file("sync.state");
    for extra in [
        &["--follow"][..],
        &[],
        &["--state-file", state.to_str().unwrap()],
    ] {
        db.cmd([&["sync", "--to", &url][..], extra].concat())
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("another emdb sync"))
            .stderr(predicates::str::contains(pid.as_str()));
    }
    // The first one went on undisturbed.
    db.put("b", "2");
    wait_equal(&db, &[&server], &default_prefix);
    assert!(
        !read_log(&log).contains("copying everything again"),
        "{}",
        read_log(&log)
    );
    // Killed: its lease expires, and a new sync runs soon after.
    sigkill(&mut first);
    let start = Instant::now();
    loop {
        let out = db.cmd(["sync", "--to", &url]).output().unwrap();
        if out.status.success() {
            break;
        }
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the lease did not expire"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    // A sync that ends deletes its lease.
    let leases = server.cli(&["--scan", "--pattern", "emdb-sync-lease:*"]);
    assert_eq!(leases.trim(), "", "{leases}");
    sync_once(&db, &["--to", &url]);
}

/// A cursor without `check=` (the older form) whose offset falls inside a
/// record is a bad cursor, not a damaged database: the sync says so and
/// copies everything again (exit 0), in the target and in a state file.
/// Before, it was exit 4 "corruption ... record runs past the end of the
/// file" with a hint to run `check --repair` on a healthy database.
#[test]
fn a_cursor_inside_a_record_is_a_bad_cursor() {
    let server = Server::start(false);
    let db = TestDb::new();
    let lines: String = (0..200)
        .map(|i| format!("put k{i:04} {}\n", "v".repeat(50)))
        .collect();
    db.cmd(["-q", "shell"])
        .write_stdin(lines)
        .assert()
        .success();
    let url = server.url();
    let state = db.file("sync.state");
    let state = state.to_str().unwrap();
    sync_once(&db, &["--to", &url]);
    sync_once(&db, &["--to", &format!("{url}/1"), "--state-file", state]);
    let key = server.cli(&["--scan", "--pattern", "emdb-sync-cursor:*"]);
    let key = key.trim();
    let id = key.strip_prefix("emdb-sync-cursor:").unwrap();
    // Offsets 4097..4101 and 5001: one of them is inside a record for sure.
    for off in [4097, 4098, 4099, 4100, 4101, 5001] {
        let cursor = format!("emdb-sync 1 {id} 0 {off}");
        assert_eq!(server.cli(&["SET", key, &cursor]).trim(), "OK");
        let out = db.cmd(["sync", "--to", &url]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "offset {off}: {stderr}");
        assert!(!stderr.contains("corruption"), "{stderr}");
        wait_equal(&db, &[&server], &default_prefix);
        std::fs::write(state, format!("{cursor} 127.0.0.1:{}/1\n", server.port)).unwrap();
        let out = db
            .cmd(["sync", "--to", &format!("{url}/1"), "--state-file", state])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "offset {off}: {stderr}");
        assert!(!stderr.contains("check --repair"), "{stderr}");
    }
    let out = db.cmd(["sync", "--to", &url]).output().unwrap();
    assert!(out.status.success());
    db.cmd(["check"]).assert().success();
    // One inside a record says why it copies again.
    let said = (5001..5011).any(|off| {
        server.cli(&["SET", key, &format!("emdb-sync 1 {id} 0 {off}")]);
        let out = db.cmd(["sync", "--to", &url]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        stderr.contains("copying everything again") && stderr.contains("record boundary")
    });
    assert!(said);
}

/// Errors no retry fixes stop the sync at once, with what to do: a cursor
/// key holding garbage or another type (exit 2, "delete it, or pass
/// --reset"), a renamed command (exit 9 naming it), a wrong or missing
/// password (exit 9 with an auth hint). Before, the first three were
/// retried for all of `--retry-for`, and all ended with the hint to check
/// that Redis runs.
#[test]
fn errors_no_retry_fixes_stop_at_once() {
    let server = Server::start(false);
    let db = TestDb::new();
    db.put("a", "1");
    let url = server.url();
    sync_once(&db, &["--to", &url]);
    let key = server.cli(&["--scan", "--pattern", "emdb-sync-cursor:*"]);
    let key = key.trim().to_string();
    let quick = |args: &[&str], code: i32, want: &str| {
        let start = Instant::now();
        let out = db
            .cmd([&["sync", "--retry-for", "30s"][..], args].concat())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
        assert!(!stderr.contains("check that Redis is running"), "{stderr}");
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "retried: {stderr}"
        );
    };
    server.cli(&["SET", &key, "garbage"]);
    quick(&["--to", &url], 2, "pass --reset");
    server.cli(&["DEL", &key]);
    server.cli(&["RPUSH", &key, "x"]);
    quick(&["--to", &url], 2, "pass --reset");
    sync_once(&db, &["--to", &url, "--reset"]);
    wait_equal(&db, &[&server], &default_prefix);

    let renamed = Server::start_with(false, &["--rename-command", "EVAL", ""]);
    quick(&["--to", &renamed.url()], 9, "EVAL");

    let locked = Server::start(false);
    assert_eq!(
        locked
            .cli(&["CONFIG", "SET", "requirepass", "secret"])
            .trim(),
        "OK"
    );
    let port = locked.port;
    quick(
        &["--to", &format!("redis://:wrong@127.0.0.1:{port}")],
        9,
        "password",
    );
    quick(&["--to", &locked.url()], 9, "password");
    let done = sync_once(&db, &["--to", &format!("redis://:secret@127.0.0.1:{port}")]);
    assert_eq!(done["applied_ops"], 1, "{done}");
    // Without a password in the URL, REDISCLI_AUTH gives it, as redis-cli
    // takes it (it was not read: NOAUTH, QA).
    db.cmd(["sync", "--to", &locked.url()])
        .env("REDISCLI_AUTH", "secret")
        .assert()
        .success();
    db.cmd(["import", "--dry-run", "--from", &locked.url()])
        .env("REDISCLI_AUTH", "secret")
        .assert()
        .success();
}
