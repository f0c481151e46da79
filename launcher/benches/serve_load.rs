//! How `mlb serve` holds up under load: the real server over the store of
//! the `db_queries` bench ([`runs_store`]: 1,000 runs of 5 systems,
//! 100,000 instances, a million metric rows), asked by [`CLIENTS`] clients
//! at once, each sending [`REQUESTS`] requests in all, taken in turn from
//! the pages and the API (one connection a request, as a browser's first
//! visit); then as many requests of addresses each asked once (a bench's
//! history, a page of runs, per system: every answer drawn from the store,
//! none kept from before). Prints, for each, the latency of a request
//! (median, 90th and 99th percentile, from the request sent to the last
//! byte read), the requests a second, and the server's resident memory
//! before and after the load and at its peak; and, per address, the size of its answer and the time
//! of its first (an answer is kept for the next requests of its address
//! while the store is as it was: the first is drawn from the store).
//!
//! Run with `cargo bench -p mlb --bench serve_load [-- CLIENTS]`. With
//! `SERVE_LOAD_STORE=FILE` the store is kept in `FILE`, and a store already
//! there is timed as it is.

mod memory;
mod runs_store;
mod served;

use memory::memory_mb;
use runs_store::{fill, median};
use served::Served;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Clients asking at once (default).
const CLIENTS: usize = 10;
/// Requests sent in all.
const REQUESTS: usize = 2000;

/// `GET path` on `addr`: the status and the body's length.
fn get(addr: &str, path: &str) -> (u16, usize) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let text = String::from_utf8_lossy(&answer[..answer.len().min(32)]).to_string();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let head = answer.windows(4).position(|w| w == b"\r\n\r\n").map_or(answer.len(), |p| p + 4);
    (status, answer.len() - head)
}

/// The `p`th percentile (0 to 100) of `sorted`.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p / 100.0).round() as usize]
}

fn main() {
    let clients: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(CLIENTS);
    let mlb = env!("CARGO_BIN_EXE_mlb");
    let dir = tempfile::tempdir().unwrap();
    let (url, seconds) = fill(mlb, dir.path(), std::env::var_os("SERVE_LOAD_STORE").map(Into::into));
    println!("store of 1,000 runs ready in {seconds:.1} s");
    let served = Served::start(mlb, &url, &[]);
    let addr = served.addr.clone();
    let routes = [
        "/systems",
        "/runs",
        "/runs?system=sysB&page=2",
        "/runs/500",
        "/compare?systems=sysA,sysB,sysC,sysD,sysE",
        "/history?system=sysC",
        "/history?system=sysC&bench=bench07",
        "/api/systems",
        "/api/runs?system=sysD",
        "/api/runs/501",
        "/api/compare?systems=sysA,sysB,sysC,sysD,sysE",
        "/api/history?system=sysC",
    ];
    for route in routes {
        let sent = Instant::now();
        let (status, bytes) = get(&addr, route);
        let first = sent.elapsed().as_secs_f64() * 1e3;
        assert_eq!(status, 200, "{route}");
        println!("{route:<50} {:>8.1} KB, first answer {first:>6.1} ms", bytes as f64 / 1024.0);
    }
    let before = memory_mb(served.server.id());
    let again: Vec<String> = (0..REQUESTS).map(|k| routes[k % routes.len()].to_string()).collect();
    load(&addr, clients, "addresses asked again", &again);
    // Each address once: a bench's history (page or API) or a page of runs, of each system.
    let once: Vec<String> = (0..REQUESTS)
        .map(|k| {
            let (system, bench, page) = (["sysA", "sysB", "sysC", "sysD", "sysE"][k % 5], k / 5 % 20, k / 100 + 1);
            match k / 5 % 3 {
                0 => format!("/history?system={system}&bench=bench{bench:02}&last={page}"),
                1 => format!("/api/history?system={system}&bench=bench{bench:02}&last={page}"),
                _ => format!("/api/runs?system={system}&page={}", k % 4 + 1),
            }
        })
        .collect();
    let unique: std::collections::HashSet<&String> = once.iter().collect();
    load(&addr, clients, &format!("{} addresses, most asked once", unique.len()), &once);
    let after = memory_mb(served.server.id());
    println!("server memory: {:.0} MB before, {:.0} MB after, {:.0} MB at its peak", before.0, after.0, after.1);
}

/// Asks `addr` for each of `routes`, `clients` at once, and prints what it took.
fn load(addr: &str, clients: usize, what: &str, routes: &[String]) {
    let next = AtomicUsize::new(0);
    let t0 = Instant::now();
    let mut times: Vec<f64> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..clients)
            .map(|_| {
                s.spawn(|| {
                    let mut times = Vec::new();
                    while let Some(route) = routes.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let sent = Instant::now();
                        let (status, _) = get(addr, route);
                        assert_eq!(status, 200, "{route}");
                        times.push(sent.elapsed().as_secs_f64() * 1e3);
                    }
                    times
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    let wall = t0.elapsed().as_secs_f64();
    times.sort_by(f64::total_cmp);
    println!(
        "{} requests ({what}), {clients} at once: {:.0} requests/s; latency median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms",
        routes.len(),
        routes.len() as f64 / wall,
        median(times.clone()),
        percentile(&times, 90.0),
        percentile(&times, 99.0),
    );
}
