//! `export --format resp` loaded into a real redis-server and read back with
//! redis-cli; `bench --redis`. Skipped (with a message) when redis-server is
//! not installed.

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
        let server = Server { child, port };
        let start = Instant::now();
        while server.cli(&["PING"]) != "PONG\n" {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(server)
    }

    fn cli(&self, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .unwrap();
        text(&out.stdout)
    }
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
    let out = Command::new("redis-cli")
        .args(["-p", &server.port.to_string(), "--pipe"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(&dump)?;
            c.wait_with_output()
        })
        .unwrap();
    let report = text(&out.stdout);
    assert!(report.contains("errors: 0"), "{report}");
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

fn predicate_contains(s: &str) -> predicates::str::ContainsPredicate {
    predicates::str::contains(s)
}
