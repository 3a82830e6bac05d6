//! Load on `gamesman serve`: N keep-alive clients asking cheap tic-tac-toe positions while
//! long Connect-Four 5×5 searches run; prints the cheap requests' latency percentiles.
//!
//! ```text
//! cargo build --release && cargo build --release --example load_serve
//! target/release/examples/load_serve [--clients 200] [--seconds 20] [--warmup 2] [--searches 2] \
//!     [--positions all|few] [--binary target/release/gamesman | --url http://HOST:PORT]
//! ```
//!
//! It starts its own server (tictactoe and connect4, --no-db, --time-limit 10) on a free
//! port, or uses `--url http://HOST:PORT` (a server of those two games). The cheap clients
//! ask every position of tic-tac-toe reachable from the empty board (`--positions all`, the
//! default: 5,478, each client from its own place in the list) or twelve positions of a few
//! pieces (`--positions few`). `--searches` clients each ask an empty 5×5 Connect-Four board
//! (far past the limit for the script) again as soon as it is answered. Each cheap client
//! sends its next request when the last is answered (a closed loop: the load is bounded by
//! the clients, and latency is clients over rate, Little's law). The first `--warmup`
//! seconds (2) are not counted: the game threads fill their tables, the answer cache fills. One thread of
//! tokio, raw HTTP/1.1 on each socket. When it starts its own server, `time` on this tool
//! counts the server's processor time too (a child it waits for): to see the tool's own
//! share, start the server apart and pass `--url` (docs/cli.md, "The load tool").

use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// A few cheap positions (`--positions few`): a few pieces on the board, each a search of a
/// few hundred positions.
const FEW: &[&str] = &[
    "x...o....",
    "....x...o",
    "x.o......",
    "xo..x....",
    "..x.o.x..",
    "o...x...x",
    "x...x.o.o",
    ".x.o.x...",
    "xx.oo....",
    "....xo.x.",
    "x.......o",
    ".o..x..x.",
];

/// Every position of tic-tac-toe reachable from the empty board (`--positions all`, 5,478 of
/// them: the game's ends too), in the server's notation (nine cells, row by row, `x`, `o`,
/// `.`; x moves first).
fn every_position() -> Vec<String> {
    fn won(b: &[u8; 9], c: u8) -> bool {
        const LINES: [[usize; 3]; 8] =
            [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
        LINES.iter().any(|l| l.iter().all(|&i| b[i] == c))
    }
    fn walk(b: &mut [u8; 9], turn: u8, seen: &mut std::collections::HashSet<[u8; 9]>) {
        if !seen.insert(*b) || won(b, b'x') || won(b, b'o') {
            return;
        }
        for i in 0..9 {
            if b[i] == b'.' {
                b[i] = turn;
                walk(b, if turn == b'x' { b'o' } else { b'x' }, seen);
                b[i] = b'.';
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    walk(&mut [b'.'; 9], b'x', &mut seen);
    let mut all: Vec<String> = seen.into_iter().map(|b| String::from_utf8(b.to_vec()).expect("ascii")).collect();
    all.sort();
    all
}

struct Args {
    clients: usize,
    /// `few` or `all`.
    positions: String,
    seconds: f64,
    /// Seconds at the start not counted.
    warmup: f64,
    searches: usize,
    binary: String,
    url: Option<String>,
}

fn args() -> Args {
    let mut a = Args {
        clients: 200,
        positions: "all".into(),
        seconds: 20.0,
        warmup: 2.0,
        searches: 2,
        binary: "target/release/gamesman".into(),
        url: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--clients" => a.clients = value().parse().expect("--clients N"),
            "--positions" => a.positions = value(),
            "--warmup" => a.warmup = value().parse().expect("--warmup S"),
            "--seconds" => a.seconds = value().parse().expect("--seconds S"),
            "--searches" => a.searches = value().parse().expect("--searches N"),
            "--binary" => a.binary = value(),
            "--url" => a.url = Some(value()),
            other => panic!("unknown flag {other}: see the comment at the top of examples/load_serve.rs"),
        }
    }
    a
}

/// Write all of `buf` to `s`.
async fn write_all(s: &TcpStream, mut buf: &[u8]) -> std::io::Result<()> {
    while !buf.is_empty() {
        s.writable().await?;
        match s.try_write(buf) {
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// One GET on a keep-alive connection: the status (the body read whole and dropped).
async fn get(s: &TcpStream, host: &str, path: &str, buf: &mut Vec<u8>) -> std::io::Result<u16> {
    write_all(s, format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes()).await?;
    buf.clear();
    let mut chunk = [0u8; 16384];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let status: u16 = head.split_whitespace().nth(1).and_then(|t| t.parse().ok()).unwrap_or(0);
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return Ok(status);
            }
        }
        s.readable().await?;
        match s.try_read(&mut chunk) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let a = args();
    let mut server = None;
    let url = match &a.url {
        Some(u) => u.trim_end_matches('/').to_string(),
        None => {
            use std::io::BufRead;
            let mut child = std::process::Command::new(&a.binary)
                .args(["serve", "tictactoe", "connect4", "--port", "0", "--no-db", "--time-limit", "10"])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("the server starts");
            let mut line = String::new();
            std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
            server = Some(child);
            line.split_whitespace()
                .find(|w| w.starts_with("http://"))
                .expect("its address")
                .trim_end_matches('/')
                .into()
        }
    };
    let host = url.trim_start_matches("http://").to_string();
    let positions: std::sync::Arc<Vec<String>> = std::sync::Arc::new(match a.positions.as_str() {
        "few" => FEW.iter().map(|p| p.to_string()).collect(),
        "all" => every_position(),
        other => panic!("--positions {other}: say few or all"),
    });
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let started = Instant::now();
    let warm = started + Duration::from_secs_f64(a.warmup);
    let stop = warm + Duration::from_secs_f64(a.seconds);
    let (lat, errors, searches) = rt.block_on(async {
        let mut tasks = Vec::new();
        for i in 0..a.clients {
            let host = host.clone();
            let positions = positions.clone();
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                let mut errors = 0u64;
                let mut buf = Vec::new();
                let mut conn = TcpStream::connect(&host).await.ok();
                // Each client walks the list from its own place, a prime stride apart.
                let mut k = i * 7919;
                while Instant::now() < stop {
                    let Some(s) = &conn else {
                        errors += 1;
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        conn = TcpStream::connect(&host).await.ok();
                        continue;
                    };
                    let path = format!("/api/tictactoe/position?p={}", positions[k % positions.len()]);
                    k += 1;
                    let t = Instant::now();
                    let r = get(s, &host, &path, &mut buf).await;
                    if t >= warm {
                        match r {
                            Ok(200) => lat.push(t.elapsed().as_secs_f64()),
                            _ => errors += 1,
                        }
                    }
                    if r.is_err() {
                        conn = TcpStream::connect(&host).await.ok();
                    }
                }
                (lat, errors)
            }));
        }
        let mut long = Vec::new();
        for _ in 0..a.searches {
            let host = host.clone();
            long.push(tokio::spawn(async move {
                let mut answers = Vec::new();
                let mut buf = Vec::new();
                while Instant::now() < stop {
                    let Ok(s) = TcpStream::connect(&host).await else { break };
                    let t = Instant::now();
                    let r = get(&s, &host, "/api/connect4/position?p=5x5k4", &mut buf).await;
                    answers.push((r.unwrap_or(0), t.elapsed().as_secs_f64()));
                }
                answers
            }));
        }
        let (mut lat, mut errors) = (Vec::new(), 0);
        for t in tasks {
            let (l, e) = t.await.unwrap();
            lat.extend(l);
            errors += e;
        }
        let mut searches = Vec::new();
        for t in long {
            searches.extend(t.await.unwrap());
        }
        (lat, errors, searches)
    });
    if let Some(mut s) = server {
        let _ = s.kill();
        let _ = s.wait();
    }
    let mut lat = lat;
    lat.sort_by(f64::total_cmp);
    let ms = |p: f64| percentile(&lat, p) * 1e3;
    println!(
        "{} clients, {} positions, {} searches, {:.0} s: {} cheap answers ({:.0}/s), {errors} errors",
        a.clients,
        positions.len(),
        a.searches,
        a.seconds,
        lat.len(),
        lat.len() as f64 / a.seconds
    );
    println!("cheap latency ms: p50 {:.1}  p95 {:.1}  p99 {:.1}  max {:.1}", ms(0.50), ms(0.95), ms(0.99), ms(1.0));
    let shown: Vec<String> = searches.iter().map(|(c, t)| format!("{c} in {t:.1} s")).collect();
    println!("long searches: {}", shown.join(", "));
}
