//! `export --format resp` loaded into a real redis-server and read back with
//! redis-cli; `import --from redis://...` copying out of one; `bench --redis`.
//! Skipped (with a message) when redis-server is not installed.

// Test helpers: a failure here should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{text, TestDb};

/// A private redis-server on a free port, shut down when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Option<Server> {
        let found = Command::new("redis-server")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            eprintln!(
                "skipped: redis-server is not on PATH (apt-get install redis-server redis-tools)"
            );
            return None;
        }
        // A port found free can be taken before the server binds it (then
        // a PING would reach someone else's server): ours must answer with
        // its own pid, or another port is tried.
        for _ in 0..20 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            let mut server = Server { child, port };
            let ours = format!("process_id:{}", server.child.id());
            let start = Instant::now();
            loop {
                if server.child.try_wait().unwrap().is_some() {
                    break; // it could not bind the port
                }
                let info = server.cli(&["INFO", "server"]);
                if info.lines().any(|l| l.trim() == ours) {
                    return Some(server);
                }
                if info.contains("process_id:") {
                    break; // another server answers there
                }
                assert!(
                    start.elapsed() < Duration::from_secs(10),
                    "redis-server did not start"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        panic!("redis-server did not start on any of 20 free ports");
    }

    fn cli(&self, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .unwrap();
        text(&out.stdout)
    }

    /// Send `commands` (each a list of arguments, binary-safe) through
    /// `redis-cli --pipe`.
    fn pipe(&self, commands: &[Vec<Vec<u8>>]) {
        let mut resp = Vec::new();
        for args in commands {
            resp.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
            for a in args {
                resp.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
                resp.extend_from_slice(a);
                resp.extend_from_slice(b"\r\n");
            }
        }
        self.pipe_raw(&resp);
    }

    /// Send RESP bytes through `redis-cli --pipe`; it must report no error.
    fn pipe_raw(&self, resp: &[u8]) {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string(), "--pipe"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(resp)?;
                c.wait_with_output()
            })
            .unwrap();
        let report = text(&out.stdout);
        assert!(report.contains("errors: 0"), "{report}");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

/// One command's arguments as owned bytes.
fn args(parts: &[&[u8]]) -> Vec<Vec<u8>> {
    parts.iter().map(|p| p.to_vec()).collect()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn resp_export_loads_into_redis() {
    let Some(server) = Server::start() else {
        return;
    };
    let db = TestDb::new();
    db.put("plain", "v");
    db.cmd(["put", "bin", "-"])
        .write_stdin(&b"a\r\nb\x00c"[..])
        .assert()
        .success();
    db.cmd(["put", "soon", "x", "--ttl", "1h"])
        .assert()
        .success();
    db.cmd(["-n", "users", "put", "u:1", "james", "--ttl", "10m"])
        .assert()
        .success();
    db.cmd(["-n", "users", "put", "u:2", "alex"])
        .assert()
        .success();
    let dump = db.stdout(["export", "--format", "resp"]);
    server.pipe_raw(&dump);
    assert_eq!(server.cli(&["DBSIZE"]), "5\n");
    assert_eq!(server.cli(&["GET", "plain"]), "v\n");
    assert_eq!(server.cli(&["GET", "users:u:2"]), "alex\n");
    assert_eq!(server.cli(&["GET", "users:u:1"]), "james\n");
    let raw = Command::new("redis-cli")
        .args(["-p", &server.port.to_string(), "--no-raw", "GET", "bin"])
        .output()
        .unwrap();
    assert_eq!(text(&raw.stdout), "\"a\\r\\nb\\x00c\"\n");
    let pttl: i64 = server.cli(&["PTTL", "users:u:1"]).trim().parse().unwrap();
    assert!(pttl > 590_000 && pttl <= 600_000, "{pttl}");
    let pttl: i64 = server.cli(&["PTTL", "soon"]).trim().parse().unwrap();
    assert!(pttl > 3_590_000, "{pttl}");
    assert_eq!(server.cli(&["PTTL", "plain"]), "-1\n");
}

#[test]
fn bench_against_redis() {
    let Some(server) = Server::start() else {
        return;
    };
    let db = TestDb::new();
    let out = db
        .cmd(["bench", "--records", "500", "--threads", "2", "--json"])
        .arg("--redis")
        .arg(format!("redis://127.0.0.1:{}", server.port))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    assert_eq!(results[3]["engine"], "redis");
    assert!(results[4]["ops_per_sec"].as_f64().unwrap() > 0.0);
    // Its keys are deleted afterwards.
    assert_eq!(server.cli(&["DBSIZE"]), "0\n");
    db.cmd(["bench", "--records", "10", "--redis", "redis://127.0.0.1:1"])
        .assert()
        .code(6)
        .stderr(predicate_contains("cannot connect to Redis"));
}

#[test]
fn import_from_redis_copies_string_keys_with_their_ttls() {
    let Some(server) = Server::start() else {
        return;
    };
    // Several SCAN pages of plain keys, a binary key and value, keys with
    // TTLs, and one key of each other type; database 2 holds others.
    let mut cmds: Vec<Vec<Vec<u8>>> = (0..2500)
        .map(|i| {
            args(&[
                b"SET",
                format!("k{i:05}").as_bytes(),
                format!("v{i}").as_bytes(),
            ])
        })
        .collect();
    cmds.push(args(&[b"SET", b"bin\x00\xff\n", b"a\r\nb\x00c"]));
    cmds.push(args(&[b"SET", b"session", b"s", b"PX", b"600000"]));
    cmds.push(args(&[b"SET", b"daily", b"d", b"EX", b"86400"]));
    cmds.push(args(&[b"HSET", b"h", b"f", b"1"]));
    cmds.push(args(&[b"RPUSH", b"l", b"1", b"2"]));
    cmds.push(args(&[b"SADD", b"s1", b"a"]));
    cmds.push(args(&[b"SADD", b"s2", b"a"]));
    cmds.push(args(&[b"ZADD", b"z", b"1", b"a"]));
    // What `emdb sync` keeps for itself: not copied (a database synced to
    // Redis and imported back got its cursor as a record).
    cmds.push(args(&[
        b"SET",
        b"emdb-sync-cursor:00ff",
        b"emdb-sync 1 00ff 0 4096",
    ]));
    cmds.push(args(&[
        b"SET",
        b"emdb-sync-lease:{emdb-sync-cursor:00ff}",
        b"h:1:2",
    ]));
    cmds.push(args(&[b"SELECT", b"2"]));
    cmds.push(args(&[b"SET", b"other-db", b"x"]));
    server.pipe(&cmds);

    let db = TestDb::new();
    let before = now_ms();
    let out = db
        .cmd(["-n", "cache", "--json", "import", "--from", &server.url()])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["records"], 2503, "{report}");
    assert_eq!(report["format"], "redis");
    assert_eq!(report["gone"], 0);
    assert_eq!(report["sync_keys"], 2);
    assert_eq!(
        report["other_types"],
        serde_json::json!({"hash": 1, "list": 1, "set": 2, "zset": 1})
    );
    assert_eq!(db.stdout(["-n", "cache", "count"]), b"2503\n");
    assert_eq!(db.stdout(["count"]), b"0\n");
    assert_eq!(db.stdout(["-n", "cache", "get", "k00000"]), b"v0\n");
    assert_eq!(db.stdout(["-n", "cache", "get", "k02499"]), b"v2499\n");
    assert_eq!(
        db.stdout(["-n", "cache", "--hex", "get", "62696e00ff0a"]),
        b"610d0a620063\n"
    );
    for (key, ms) in [("session", 600_000u64), ("daily", 86_400_000)] {
        let ttl = db.stdout(["-n", "cache", "--json", "ttl", key]);
        let ttl: serde_json::Value = serde_json::from_slice(&ttl).unwrap();
        let at = ttl["expires_at_ms"].as_u64().unwrap();
        assert!(
            at >= before + ms - 5_000 && at <= now_ms() + ms,
            "{key}: expires at {at}, copied at {before}"
        );
    }
    let ttl = db.stdout(["-n", "cache", "--json", "ttl", "k00001"]);
    let ttl: serde_json::Value = serde_json::from_slice(&ttl).unwrap();
    assert!(ttl["expires_at_ms"].is_null(), "{ttl}");
    // Nothing of the source changed.
    assert_eq!(server.cli(&["DBSIZE"]), "2510\n");

    // The text summary names what was left behind; /2 reads database 2.
    db.cmd(["import", "--from", &format!("{}/2", server.url())])
        .assert()
        .success()
        .stdout(predicates::str::contains("imported 1 records"))
        .stdout(predicates::str::contains(format!(
            "from redis://127.0.0.1:{}/2 (redis",
            server.port
        )));
    assert_eq!(db.stdout(["get", "other-db"]), b"x\n");
    db.cmd(["import", "--from", &server.url()])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "not copied: 5 keys of other types (1 hash, 1 list, 2 set, 1 zset)",
        ))
        .stdout(predicates::str::contains(
            "not copied: 2 keys emdb sync keeps for itself",
        ));

    // --dry-run counts and writes nothing.
    let fresh = TestDb::new();
    fresh
        .cmd(["import", "--dry-run", "--from", &server.url()])
        .assert()
        .success()
        .stdout(predicates::str::contains("dry run: 2503 records"));
    assert!(!fresh.path.exists());
}

#[test]
fn import_from_redis_that_is_down_exits_9_and_creates_nothing() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    drop(server);
    let db = TestDb::new();
    db.cmd(["import", "--from", &url])
        .assert()
        .code(9)
        .stderr(predicates::str::contains(format!("Redis at {url}/0")));
    assert!(!db.path.exists());
    // A database number the server does not have is the same failure;
    // a URL that does not parse is a usage error.
    let Some(server) = Server::start() else {
        return;
    };
    db.cmd(["import", "--from", &format!("{}/99", server.url())])
        .assert()
        .code(9);
    db.cmd(["import", "--from", "http://127.0.0.1:1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a Redis URL"));
    db.cmd(["import", "dump.jsonl", "--from", &server.url()])
        .assert()
        .code(2);
    assert!(!db.path.exists());
}

#[test]
fn import_from_redis_draws_a_bar_on_a_terminal() {
    let Some(server) = Server::start() else {
        return;
    };
    let cmds: Vec<Vec<Vec<u8>>> = (0..20_000)
        .map(|i| args(&[b"SET", format!("k{i}").as_bytes(), b"v"]))
        .collect();
    server.pipe(&cmds);
    let db = TestDb::new();
    let Some((code, screen)) =
        common::on_terminal(&db, &format!("import --from {}", server.url()), "")
    else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    // The bar counts keys of DBSIZE's total.
    assert!(screen.contains("/20,000"), "{screen}");
    // Not first drawn as a full bar of nothing, before DBSIZE was known.
    assert!(!screen.contains(" 0/0 "), "{screen}");
    assert!(screen.contains("imported 20000 records"), "{screen}");
}

fn predicate_contains(s: &str) -> predicates::str::ContainsPredicate {
    predicates::str::contains(s)
}

/// A source that stops answering (SIGSTOP) ends the import after the 30 s
/// reply timeout: exit 9, "no reply ... for 30 s", the batches imported
/// before it counted. Before, a pipeline's 3,000 replies were each waited
/// for in turn (the import hung for as long as the server was stopped),
/// and a timeout read as "Resource temporarily unavailable (os error 11)".
#[test]
fn import_from_a_redis_that_stops_answering_exits_9() {
    let Some(server) = Server::start() else {
        return;
    };
    let cmds: Vec<Vec<Vec<u8>>> = (0..200_000)
        .map(|i| {
            let k = format!("key{i:07}");
            args(&[b"SET", k.as_bytes(), &[b'v'; 40]])
        })
        .collect();
    server.pipe(&cmds);
    let db = TestDb::new();
    let mut child = common::child(&db, ["import", "--from", &server.url()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let pid = server.child.id();
    common::signal(pid, "STOP");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(90) {
            common::signal(pid, "CONT");
            let _ = child.kill();
            let _ = child.wait();
            panic!("the import waited for a stopped server for 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    common::signal(pid, "CONT");
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(9), "{err}");
    assert!(
        err.contains(&format!(
            "no reply from Redis at {}/0 for 30 s",
            server.url()
        )),
        "{err}"
    );
    assert!(!err.contains("os error 11"), "{err}");
}
