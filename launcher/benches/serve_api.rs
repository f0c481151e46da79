//! How fast `mlb serve` answers its API on a store of 1,000 runs (the
//! store of the db_queries bench, [`runs_store`]): each route asked
//! [`RUNS`] times of the real server over HTTP on this host; the median of
//! the wall time from the request sent to the last byte read, and the mean
//! CPU time (user and system, all threads) the server spent on an answer,
//! in milliseconds. On a machine shared with other work the wall time
//! grows and the CPU time does not: the bench fails when an answer's CPU
//! time is over [`LIMIT_MS`], and says which wall medians are.
//!
//! Run with `cargo bench -p mlb --bench serve_api`. With
//! `SERVE_API_STORE=FILE` the store is kept in `FILE`, and a store already
//! there is timed as it is.

use runs_store::{fill, median};
use served::Served;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

mod runs_store;
mod served;

const RUNS: usize = 11;
/// Most an answer may take (its median), in milliseconds.
const LIMIT_MS: f64 = 100.0;

/// `GET path` on `addr`: the status and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

/// CPU time (user and system) the process `pid` has used, in ms.
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's name (which may hold spaces), from the state on.
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    let per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK).unwrap().unwrap() as f64;
    ticks * 1e3 / per_second
}

fn main() {
    let mlb = env!("CARGO_BIN_EXE_mlb");
    let dir = tempfile::tempdir().unwrap();
    let (url, seconds) = fill(mlb, dir.path(), std::env::var_os("SERVE_API_STORE").map(Into::into));
    println!("store of 1,000 runs ready in {seconds:.1} s");
    let served = Served::start(mlb, &url, &[]);
    let (addr, pid) = (served.addr.clone(), served.server.id());
    let runs: serde_json::Value = serde_json::from_str(&get(&addr, "/api/runs?system=sysC").1).unwrap();
    let run = format!("/api/runs/{}", runs["runs"][0]["id"]);
    let routes = [
        "/api/systems",
        "/api/runs",
        "/api/runs?system=sysB&page=2",
        "/api/runs?outcome=completed&since=2026-03-01",
        &run,
        "/api/compare?systems=sysA,sysB,sysC,sysD,sysE",
        "/api/compare?systems=sysA,sysB,sysC,sysD,sysE&format=csv",
        "/api/history?system=sysC",
        "/api/history?system=sysC&bench=bench07&format=csv",
    ];
    let mut ok = true;
    for route in routes {
        let (status, body) = get(&addr, route);
        assert_eq!(status, 200, "{route}: {body}");
        let cpu0 = cpu_ms(pid);
        let times: Vec<f64> = (0..RUNS)
            .map(|_| {
                let t0 = Instant::now();
                get(&addr, route);
                t0.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        let cpu = (cpu_ms(pid) - cpu0) / RUNS as f64;
        let wall = median(times);
        let fine = cpu <= LIMIT_MS;
        ok &= fine;
        let verdict = match (fine, wall <= LIMIT_MS) {
            (false, _) => "TOO SLOW",
            (true, false) => "ok (CPU; the wall time is over: a loaded machine?)",
            (true, true) => "ok",
        };
        println!("{route:<58} wall {wall:>6.1} ms, CPU {cpu:>6.1} ms ({} bytes) {verdict}", body.len());
    }
    drop(served);
    assert!(ok, "an answer of the API took more than {LIMIT_MS} ms of CPU");
}
