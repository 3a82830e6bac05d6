//! `gamesman serve`: the JSON API's answers and errors, and the page driven in a real
//! headless browser (Debian's chromium through chromedriver): a tic-tac-toe game and a Lights
//! Out puzzle played to the end by clicking, the colours and the value history checked
//! against the solver run here.
//!
//! Without chromium and chromedriver the browser test is skipped with a message, unless
//! GAMESMAN_REQUIRE_BROWSER=1 (as `.ci/run` sets, after installing them), when it fails.
//! GAMESMAN_SCREENSHOTS=DIR writes the screenshots there (the README's are in docs/).

use crate::common;

use common::{bin, game};
use gamesman::game::{Game, GameExt, Value};
use gamesman::solve::{Analyzer, Options};
use serde_json::{Value as Json, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A server for the test's life.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(games: &[&str]) -> Server {
    serve_with(games, &[])
}

/// A server of `games` with more flags.
fn serve_with(games: &[&str], flags: &[&str]) -> Server {
    started(bin().arg("serve").args(games).args(["--port", "0", "--no-db"]).args(flags).stderr(Stdio::inherit()))
}

/// A server of `games` that reads the databases saved under the cache directory `cache`.
fn serve_cached(games: &[&str], cache: &std::path::Path) -> Server {
    started(bin().arg("serve").args(games).args(["--port", "0"]).env("XDG_CACHE_HOME", cache).stderr(Stdio::null()))
}

/// Start `serve` as `cmd` says, once it prints its address.
fn started(cmd: &mut std::process::Command) -> Server {
    let mut child = cmd.stdout(Stdio::piped()).spawn().expect("gamesman serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the address").to_string();
    Server { child, url: url.trim_end_matches('/').to_string() }
}

/// GET `path`: (status, body as JSON).
fn get(server: &Server, path: &str) -> (u16, Json) {
    get_at(&server.url, path)
}

fn get_at(url: &str, path: &str) -> (u16, Json) {
    try_get_at(url, path).unwrap()
}

/// GET `path`, with the errors of the connection (a server that closes early) given back.
fn try_get_at(url: &str, path: &str) -> std::io::Result<(u16, Json)> {
    let addr = url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr)?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    let status: u16 = text.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = text.split_once("\r\n\r\n").map(|x| x.1).unwrap_or("");
    Ok((status, serde_json::from_str(body).unwrap_or(Json::String(body.to_string()))))
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b == b'.' { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// The value of making each move (`r:c`) from `pos`, for the player who makes it, as the
/// solver here says: the opposite of the child's value (a puzzle: nearer the goal or not).
fn mover_values<G: Game>(g: &G, a: &mut Analyzer<&G>, text: &str, clicks: &[String]) -> Vec<(String, u32)> {
    let pos = g.parse(text).unwrap();
    let (here, _) = a.value(&pos).unwrap();
    clicks
        .iter()
        .map(|c| {
            let child = g.play(&pos, &g.parse_move(&pos, c).unwrap()).unwrap();
            let (s, _) = a.value(&child).unwrap();
            let r = s.remoteness.unwrap_or(u32::MAX);
            let v = if g.kind() == gamesman::game::Kind::Puzzle {
                if s.value == Value::Win && Some(r) < here.remoteness { "win" } else { "lose" }
            } else {
                match s.value {
                    Value::Lose => "win",
                    Value::Win => "lose",
                    Value::Tie => "tie",
                    Value::Draw => "draw",
                }
            };
            (v.to_string(), r)
        })
        .collect()
}

#[test]
fn the_api_answers_and_refuses_bad_requests_with_4xx() {
    let s = serve(&["tictactoe", "lightsout", "nim"]);
    let (code, games) = get(&s, "/api/games");
    assert_eq!(code, 200);
    let ids: Vec<&str> = games.as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["tictactoe", "lightsout", "nim"]);
    // A puzzle's verb for its moves, as games/lightsout.rhai declares it (MOVE_VERB).
    let verbs: Vec<Option<&str>> = games.as_array().unwrap().iter().map(|g| g["move_verb"].as_str()).collect();
    assert_eq!(verbs, [None, Some("Flipping"), None]);
    // X (top left) against O (top middle): X wins by 1:0, 1:1 or 2:0 (see tests/database.rs).
    let (code, p) = get(&s, "/api/tictactoe/position?p=xo.......");
    assert_eq!(code, 200);
    assert_eq!((p["value"].as_str(), p["to_move"].as_u64()), (Some("win"), Some(0)));
    let wins: Vec<&str> = p["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["mover"] == "win")
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(wins, ["1:0", "1:1", "2:0"]);
    let cells = p["board"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 9);
    assert!(cells[0].get("click").is_none() && cells[3]["click"] == "1:0" && cells[3]["mover"] == "win");
    // Nim 3,5 has Grundy value 6, and no board.
    let (_, p) = get(&s, "/api/nim/position?p=3,5");
    assert_eq!((p["grundy"].as_u64(), p["board"].is_null()), (Some(6), true));
    let (code, p) = get(&s, "/api/tictactoe/play?p=xo.......&m=1:1");
    assert_eq!((code, p["position"].as_str()), (200, Some("xo..x....")));
    // Bad requests: 4xx with a message.
    for (path, want) in [
        ("/api/chess/position", 404),
        ("/api/tictactoe/position?p=xxx", 400),
        ("/api/tictactoe/play?p=xo.......&m=0:0", 400),
        ("/api/tictactoe/play?p=xo.......", 400),
        ("/api/tictactoe/play?p=xxxoo....&m=2:2", 400),
        ("/api/nim/position?p=1,2,x", 400),
        ("/nowhere", 404),
    ] {
        let (code, body) = get(&s, path);
        assert_eq!(code, want, "{path}: {body}");
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{path}: {body}");
    }
    // A position too long to serve (refused before it is read), and a request too long for
    // the HTTP layer itself.
    let (code, body) = get(&s, &format!("/api/nim/position?p={}", "1".repeat(30_000)));
    assert_eq!(code, 413, "{body}");
    assert!(body["error"].as_str().unwrap().contains("more than"), "{body}");
    // The server answers 4xx and closes without reading the rest, so the client may instead
    // see its connection reset while it is still sending (then the refusal is the close).
    match try_get_at(&s.url, &format!("/api/nim/position?p={}", "1".repeat(200_000))) {
        Ok((code, _)) => assert!((400..500).contains(&code), "{code}"),
        Err(e) => {
            assert!(matches!(e.kind(), std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset), "{e}")
        }
    }
    let (code, _) = get(&s, "/api/lightsout/position?p=%23%230/%2300/000");
    assert_eq!(code, 200);
    // The server is still there after all that.
    assert_eq!(get(&s, "/api/games").0, 200);
}

// ---- A hostile client ----

/// Send `request` as raw bytes and read the reply to its end: (status line's code, headers, body).
fn raw(server: &Server, request: &[u8]) -> (u16, String, String) {
    let addr = server.url.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request).unwrap();
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).to_string();
    let code = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (code, head.to_lowercase(), body.to_string())
}

fn alive(s: &mut Server) -> bool {
    s.child.try_wait().unwrap().is_none() && get(s, "/api/games").0 == 200
}

#[test]
fn a_client_that_hangs_up_on_pipelined_requests_does_not_stop_the_server() {
    let mut s = serve(&["nim"]);
    let addr = s.url.trim_start_matches("http://").to_string();
    for _ in 0..3 {
        let mut c = std::net::TcpStream::connect(&addr).unwrap();
        let mut batch = String::new();
        for n in 0..50 {
            batch += &format!("GET /api/nim/position?p={n},7 HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        c.write_all(batch.as_bytes()).unwrap();
        let mut first = [0u8; 64];
        let _ = c.read(&mut first);
        assert!(first.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&first));
        drop(c);
        std::thread::sleep(Duration::from_millis(300));
    }
    assert!(alive(&mut s), "the server died after a client hung up");
}

#[test]
fn every_error_is_json_with_its_status() {
    let s = serve(&["nim", "lightsout"]);
    for method in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"] {
        let (code, head, body) = raw(
            &s,
            format!("{method} /api/nim/position?p=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        );
        assert_eq!(code, 405, "{method}");
        assert!(head.contains("content-type: application/json"), "{method}: {head}");
        let j: Json = serde_json::from_str(&body).unwrap();
        assert!(j["error"].as_str().unwrap().contains("GET"), "{method}: {body}");
    }
    // Request lines past the served bound (refused by the API, and by HTTP itself), headers
    // too big, and requests that are not HTTP: each its status, as JSON.
    let big = format!("GET /x HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "b".repeat(200_000));
    for (request, want) in [
        (
            format!(
                "GET /api/nim/position?p=1&pad={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "a".repeat(62_000)
            ),
            414,
        ),
        (
            format!(
                "GET /api/nim/position?p=1&pad={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "a".repeat(70_000)
            ),
            414,
        ),
        (big, 431),
        ("HELLO\r\n\r\n".to_string(), 400),
        ("GET / HTTP/1.1\r\nHost x\r\n\r\n".to_string(), 400),
    ] {
        let (code, head, body) = raw(&s, request.as_bytes());
        assert_eq!(code, want, "{}: {head}", &request[..20]);
        assert!(head.contains("content-type: application/json"), "{}: {head}", &request[..20]);
        assert!(serde_json::from_str::<Json>(&body).unwrap()["error"].is_string(), "{body}");
    }
    // A game name that is not UTF-8.
    let (code, _, body) = raw(&s, b"GET /api/%FF%FE/position?p=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(code, 400, "{body}");
    assert!(serde_json::from_str::<Json>(&body).unwrap()["error"].is_string(), "{body}");
    // A query that is not UTF-8.
    let (code, _, body) = raw(&s, b"GET /api/nim/position?p=%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(code, 400, "{body}");
    assert!(serde_json::from_str::<Json>(&body).unwrap()["error"].is_string(), "{body}");
    // 140×140 Lights Out: 19.6 KB asked, hundreds of MB of moves in the answer. Refused.
    let board = vec!["%23".repeat(140); 140].join("/");
    let (code, body) = get(&s, &format!("/api/lightsout/position?p={board}"));
    let text: String = body.to_string().chars().take(300).collect();
    assert_eq!(code, 413, "{text}");
    assert!(body["error"].as_str().unwrap().contains("MiB"), "{text}");
}

#[test]
fn a_long_search_does_not_hold_up_other_requests_and_ends_at_the_limit() {
    // Connect-4 on an empty 5×5 board is far past 3 s for the script.
    let s = serve_with(&["nim", "connect4"], &["--time-limit", "3", "--searches", "1"]);
    let url = s.url.clone();
    let t0 = Instant::now();
    let long = std::thread::spawn(move || {
        let r = get_at(&url, "/api/connect4/position?p=5x5k4");
        (r, Instant::now())
    });
    std::thread::sleep(Duration::from_millis(800));
    // Another game, and a cheap position of the same game, answered while the search runs.
    let (code, p) = get(&s, "/api/nim/position?p=3,5");
    assert_eq!((code, p["grundy"].as_u64()), (200, Some(6)));
    let (code, p) = get(&s, "/api/connect4/position?p=3x3k3/.../oo./xxx");
    assert_eq!(code, 200, "{p}");
    let cheap = Instant::now();
    // A second search while the only search slot is taken: 503 with Retry-After, as JSON.
    let (code, head, body) =
        raw(&s, b"GET /api/connect4/position?p=5x5k4/...../...../...../...../x.... HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(code, 503, "{body}");
    assert!(head.contains("retry-after:"), "{head}");
    assert!(serde_json::from_str::<Json>(&body).unwrap()["error"].as_str().unwrap().contains("searches"));
    // The same position asked by GamesmanUni: answered, every value unsolved, with its moves
    // (a piece into any of the five columns, none full).
    let (code, a) = get(&s, "/uwapi/connect4/5x5/positions/?p=5x5k4/...../...../...../...../x....");
    assert_eq!(code, 200, "{a}");
    assert_eq!(a["positionValue"], "unsolved", "{a}");
    assert_eq!(a["moves"].as_array().unwrap().len(), 5, "{a}");
    assert!(a["moves"].as_array().unwrap().iter().all(|m| m["moveValue"] == "unsolved"), "{a}");
    let ((code, body), done) = long.join().unwrap();
    // The long search answered after the cheap ones, within the limit and a second.
    assert!(cheap < done, "the cheap requests waited for the search");
    assert!(done - t0 < Duration::from_secs(5), "the 3 s limit was not held: {:?}", done - t0);
    assert!(code == 503 || code == 422, "{code} {body}");
    assert!(body["error"].is_string(), "{body}");
}

/// Tic-tac-toe solved here by plain search over the board, independent of the game's
/// script: every position reachable from the empty board (x first), each with its value for
/// the player to move (1 win, 0 tie, -1 lose) and its remoteness.
fn tic_tac_toe_by_hand() -> std::collections::BTreeMap<String, (i8, u32)> {
    fn won(b: &[u8; 9]) -> bool {
        const LINES: [[usize; 3]; 8] =
            [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
        LINES.iter().any(|l| b[l[0]] != b'.' && b[l[0]] == b[l[1]] && b[l[1]] == b[l[2]])
    }
    fn solve(b: &mut [u8; 9], turn: u8, all: &mut std::collections::BTreeMap<String, (i8, u32)>) -> (i8, u32) {
        let text = String::from_utf8(b.to_vec()).unwrap();
        if let Some(&v) = all.get(&text) {
            return v;
        }
        // The last move made a line: the player to move has lost; a full board is a tie.
        let v = if won(b) {
            (-1, 0)
        } else if !b.contains(&b'.') {
            (0, 0)
        } else {
            let mut children = Vec::new();
            for i in 0..9 {
                if b[i] == b'.' {
                    b[i] = turn;
                    children.push(solve(b, if turn == b'x' { b'o' } else { b'x' }, all));
                    b[i] = b'.';
                }
            }
            let best = children.iter().map(|c| -c.0).max().unwrap();
            let r = children.iter().filter(|c| -c.0 == best).map(|c| c.1);
            // A win by the quickest way, a loss by the slowest, a tie by the quickest.
            (best, 1 + if best == -1 { r.max() } else { r.min() }.unwrap())
        };
        all.insert(text, v);
        v
    }
    let mut all = std::collections::BTreeMap::new();
    solve(&mut [b'.'; 9], b'x', &mut all);
    all
}

/// GET `path` once, on a connection of its own: (status, the head in lower case, the body).
fn get_head(server: &Server, path: &str) -> (u16, String, Json) {
    let (code, head, body) =
        raw(server, format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes());
    (code, head, serde_json::from_str(&body).unwrap_or(Json::String(body)))
}

#[test]
fn answers_from_the_cache_are_the_answers_of_a_server_without_one() {
    let all = tic_tac_toe_by_hand();
    assert_eq!(all.len(), 5478, "tic-tac-toe's positions reachable from the empty board");
    let cached = serve(&["tictactoe"]);
    let uncached = serve_with(&["tictactoe"], &["--cache-memory", "0"]);
    let words = |v: i8| match v {
        1 => "win",
        0 => "tie",
        _ => "lose",
    };
    // A sample from across the game (every 23rd position, the game's ends among them), and
    // the start position by default.
    let mut paths: Vec<(String, Option<(i8, u32)>)> = vec![("/api/tictactoe/position".into(), all.get("........."))]
        .into_iter()
        .map(|(p, v)| (p, v.copied()))
        .collect();
    for (text, v) in all.iter().step_by(23) {
        paths.push((format!("/api/tictactoe/position?p={text}"), Some(*v)));
    }
    paths.push(("/api/tictactoe/play?p=x...o....&m=0:1".into(), None));
    let mut hits = 0;
    for (path, by_hand) in &paths {
        let (code, head, plain) = get_head(&uncached, path);
        assert_eq!(code, 200, "{path}: {plain}");
        assert!(!head.contains("x-gamesman-cache"), "{path}: a server without a cache said {head}");
        if let Some((value, remoteness)) = by_hand {
            assert_eq!((&plain["value"], &plain["remoteness"]), (&json!(words(*value)), &json!(remoteness)), "{path}");
        }
        // Asked twice: the second time from the cache, the same answer both times.
        for round in 0..2 {
            let (code, head, answer) = get_head(&cached, path);
            assert_eq!((code, &answer), (200, &plain), "{path}, round {round}");
            if round == 1 {
                assert!(head.contains("\r\nx-gamesman-cache: hit"), "{path}: not from the cache: {head}");
                hits += 1;
            }
        }
    }
    assert_eq!(hits, paths.len());
    // A 4xx is not kept: asked again, the same error, from a game thread.
    for _ in 0..2 {
        let (code, head, _) = get_head(&cached, "/api/tictactoe/position?p=xxxxxxxxx");
        assert_eq!(code, 400);
        assert!(!head.contains("x-gamesman-cache"), "{head}");
    }
}

/// Closed by the server: end of file, a reset, or an error status before closing.
fn closed(c: &mut std::net::TcpStream) -> bool {
    // Long enough for a server starved by a loaded machine: what matters is that it closes.
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = Vec::new();
    match c.read_to_end(&mut buf) {
        Ok(_) => buf.is_empty() || !buf.starts_with(b"HTTP/1.1 2"),
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock && e.kind() != std::io::ErrorKind::TimedOut,
    }
}

#[test]
fn slow_and_idle_connections_are_closed_and_new_clients_still_served() {
    let mut s = serve_with(&["nim"], &["--header-timeout", "1", "--max-connections", "16"]);
    let addr = s.url.trim_start_matches("http://").to_string();
    // Six clients trickling a request's headers, six that say nothing: all closed after the
    // header timeout (1 s), none held.
    let open = |n: usize| -> Vec<std::net::TcpStream> {
        (0..n)
            .map(|i| {
                let mut c = std::net::TcpStream::connect(&addr).unwrap();
                if i % 2 == 0 {
                    c.write_all(b"GET /api/games HTTP/1.1\r\nHo").unwrap();
                }
                c
            })
            .collect()
    };
    let t0 = Instant::now();
    let mut slow = open(12);
    std::thread::sleep(Duration::from_millis(200));
    assert!(alive(&mut s), "a free slot serves a new client");
    for c in slow.iter_mut() {
        assert!(closed(c), "a slow connection is held open");
    }
    // The header timeout is 1 s; the margin is for a loaded machine (CI runs tests side by side).
    assert!(t0.elapsed() < Duration::from_secs(9), "held for {:?}", t0.elapsed());
    drop(s);
    // More idle connections than the bound: past it, a client is refused at once; once the
    // idle ones time out, new clients are served again. A server of its own with a header
    // timeout of 5 s: with 1 s, a server starved on a loaded machine could reach the client
    // past the bound only after the idle ones had timed out, and serve it (seen in CI).
    let mut s = serve_with(&["nim"], &["--header-timeout", "5", "--max-connections", "16"]);
    let addr = s.url.trim_start_matches("http://").to_string();
    let open = |n: usize| -> Vec<std::net::TcpStream> {
        (0..n).map(|_| std::net::TcpStream::connect(&addr).unwrap()).collect()
    };
    let _idle = open(40);
    std::thread::sleep(Duration::from_millis(200));
    let mut refused = std::net::TcpStream::connect(&addr).unwrap();
    refused.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert!(closed(&mut refused), "a connection past the bound was served");
    // Once the idle ones time out (5 s, later on a loaded machine), new clients are served.
    let t1 = Instant::now();
    std::thread::sleep(Duration::from_millis(5500));
    // A client still refused (the idle ones not yet closed, on a loaded machine) is asked again.
    let served = |s: &mut Server| {
        s.child.try_wait().unwrap().is_none() && matches!(try_get_at(&s.url, "/api/games"), Ok((200, _)))
    };
    while !served(&mut s) {
        assert!(t1.elapsed() < Duration::from_secs(20), "new clients are not served after the idle ones timed out");
        std::thread::sleep(Duration::from_millis(250));
    }
}

// ---- The browser ----

fn browser() -> Option<(String, String)> {
    let find = |names: &[&str]| {
        names.iter().find_map(|n| {
            std::env::var_os("PATH")?
                .to_str()?
                .split(':')
                .map(|d| std::path::Path::new(d).join(n))
                .find(|p| p.is_file())
                .map(|p| p.display().to_string())
        })
    };
    Some((find(&["chromium", "chromium-browser", "google-chrome"])?, find(&["chromedriver"])?))
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

async fn js(c: &fantoccini::Client, script: &str) -> Json {
    c.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// Wait until the page has `len` positions in its history and nothing pending.
async fn settle(c: &fantoccini::Client, len: usize) {
    let started = Instant::now();
    loop {
        let s = js(c, "return [state.history.length, state.busy, document.getElementById('error').textContent]").await;
        assert_eq!(s[2], "", "the page shows an error");
        if s[0] == len && s[1] == false {
            // Rendered: the value history has a point for every position.
            let n = js(c, "return document.querySelectorAll('.vvh-point').length").await;
            if n == len {
                return;
            }
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the page never reached {len} positions: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Every clickable cell: (click, data-value, remoteness, background as r, g, b).
async fn cells(c: &fantoccini::Client) -> Vec<(String, String, u32, [f64; 3])> {
    let v = js(
        c,
        "return [...document.querySelectorAll('.cell[data-click]')].map(b => [b.dataset.click, b.dataset.value, \
         b.dataset.remoteness, getComputedStyle(b).backgroundColor])",
    )
    .await;
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let r = x[2].as_str().unwrap().parse().unwrap_or(u32::MAX);
            (x[0].as_str().unwrap().into(), x[1].as_str().unwrap().into(), r, rgb(x[3].as_str().unwrap()))
        })
        .collect()
}

/// "rgb(31, 157, 58)", or "color(srgb 0.12 0.61 0.22)" (what a color-mix computes to), as 0..255.
fn rgb(css: &str) -> [f64; 3] {
    let inner = css.split_once('(').map(|x| x.1).unwrap_or("").trim_end_matches(')');
    let nums: Vec<f64> = inner.split([',', ' ', '/']).filter_map(|t| t.trim().parse::<f64>().ok()).collect();
    assert!(nums.len() >= 3, "a colour: {css}");
    if css.starts_with("color(") {
        [nums[0] * 255.0, nums[1] * 255.0, nums[2] * 255.0]
    } else {
        [nums[0], nums[1], nums[2]]
    }
}

/// Which value colour a background is, by its hue (mixing with white for remoteness keeps
/// the hue): red (lose), yellow (tie), green (win), blue (draw), or grey (values hidden).
fn hue(c: [f64; 3]) -> &'static str {
    let [r, g, b] = c;
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    if max - min < 12.0 {
        return "grey";
    }
    let d = max - min;
    let h = if max == r {
        60.0 * (((g - b) / d).rem_euclid(6.0))
    } else if max == g {
        60.0 * ((b - r) / d + 2.0)
    } else {
        60.0 * ((r - g) / d + 4.0)
    };
    match h {
        h if !(20.0..340.0).contains(&h) => "lose",
        h if h < 75.0 => "tie",
        h if h < 170.0 => "win",
        _ => "draw",
    }
}

async fn screenshot(c: &fantoccini::Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    let dir = common::root().join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), &png).unwrap();
    if let Some(d) = std::env::var_os("GAMESMAN_SCREENSHOTS") {
        std::fs::write(std::path::Path::new(&d).join(name), &png).unwrap();
    }
}

#[test]
fn the_page_plays_tic_tac_toe_and_lights_out_in_a_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        if std::env::var_os("GAMESMAN_REQUIRE_BROWSER").is_some_and(|v| v == "1") {
            panic!(
                "GAMESMAN_REQUIRE_BROWSER=1, but chromium or chromedriver is not installed (scripts/install-browser.sh)"
            );
        }
        eprintln!(
            "SKIPPED the browser test: chromium and chromedriver are not installed (scripts/install-browser.sh installs \
             Debian's)"
        );
        return;
    };
    let server = serve(&["tictactoe", "lightsout"]);
    let port = free_port();
    let driver = Driver(
        std::process::Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts"),
    );
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let caps: serde_json::Map<String, Json> = serde_json::from_value(json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1040,640", "--hide-scrollbars"],
            }
        }))
        .unwrap();
        let started = Instant::now();
        let c = loop {
            let mut b = fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
            match b.capabilities(caps.clone()).connect(&format!("http://127.0.0.1:{port}")).await {
                Ok(c) => break c,
                Err(e) if started.elapsed() < Duration::from_secs(20) => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => panic!("cannot start a browser session: {e}"),
            }
        };
        tic_tac_toe(&c, &server.url).await;
        lights_out(&c, &server.url).await;
        c.close().await.unwrap();
    });
    drop(driver);
}

/// X (clicked here, always the solver's best move) against the page's perfect O, from the
/// empty board: a tie. Before every click, each empty cell's value and colour must be the
/// solver's; at the end, every point of the value history.
async fn tic_tac_toe(c: &fantoccini::Client, url: &str) {
    use fantoccini::Locator;
    let g = game("tictactoe");
    let mut a = Analyzer::new(&g, Options::default());
    c.goto(&format!("{url}/?game=tictactoe")).await.unwrap();
    settle(c, 1).await;
    // Undo takes back X's move and O's reply.
    c.find(Locator::Css(".cell[data-click='0:0']")).await.unwrap().click().await.unwrap();
    settle(c, 3).await;
    c.find(Locator::Id("undo")).await.unwrap().click().await.unwrap();
    settle(c, 1).await;
    let mut len = 1;
    loop {
        let position = js(c, "return current().position").await.as_str().unwrap().to_string();
        let over = js(c, "return document.getElementById('status').dataset.over").await;
        if over == "true" {
            break;
        }
        let cs = cells(c).await;
        let clicks: Vec<String> = cs.iter().map(|x| x.0.clone()).collect();
        let want = mover_values(&g, &mut a, &position, &clicks);
        assert_eq!(cs.len(), position.matches('.').count(), "one clickable cell for each empty one at {position}");
        for (cell, (v, r)) in cs.iter().zip(&want) {
            assert_eq!((&cell.1, cell.2), (v, *r), "{} at {position}", cell.0);
            assert_eq!(hue(cell.3), v, "the colour of {} at {position}: {:?}", cell.0, cell.3);
        }
        // Play blind for a moment: every cell grey.
        if len == 3 {
            c.find(Locator::Id("showvalues")).await.unwrap().click().await.unwrap();
            assert!(cells(c).await.iter().all(|x| hue(x.3) == "grey"), "values hidden");
            c.find(Locator::Id("showvalues")).await.unwrap().click().await.unwrap();
        }
        // X's best move as the solver here ranks it: a win soonest, else a tie.
        let best = (0..cs.len())
            .min_by_key(|&i| (["win", "tie", "draw", "lose"].iter().position(|v| *v == want[i].0), want[i].1))
            .unwrap();
        c.find(Locator::Css(&format!(".cell[data-click='{}']", cs[best].0))).await.unwrap().click().await.unwrap();
        // O replies unless X's move ended the game.
        len += 1;
        let start = Instant::now();
        loop {
            let s = js(c, "return [state.history.length, state.busy, document.getElementById('status').dataset.over]")
                .await;
            if s[0] == len + 1 && s[1] == false {
                len += 1;
                break;
            }
            if s[0] == len && s[2] == "true" {
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(30), "no reply: {s}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        settle(c, len).await;
    }
    // Perfect play from the empty board is a tie (the known value), in 9 moves.
    assert_eq!(len, 10);
    let status = c.find(Locator::Id("status")).await.unwrap().text().await.unwrap();
    assert_eq!(status, "It is a tie.");
    history_agrees(c, &g, &mut a).await;

    // Two people: X takes the centre, O answers on an edge (a mistake: X now wins), and the
    // value history marks O's move.
    c.goto(&format!("{url}/?game=tictactoe")).await.unwrap();
    settle(c, 1).await;
    c.execute("document.getElementById('p1').value = 'human'", vec![]).await.unwrap();
    for (i, click) in ["1:1", "0:1"].iter().enumerate() {
        c.find(Locator::Css(&format!(".cell[data-click='{click}']"))).await.unwrap().click().await.unwrap();
        settle(c, i + 2).await;
    }
    let marks = js(c, "return document.querySelectorAll('.vvh-mistake').length").await;
    assert_eq!(marks, 1, "O's edge reply threw the tie away");
    let status = c.find(Locator::Id("status")).await.unwrap().text().await.unwrap();
    assert!(status.starts_with("X to move: wins in"), "{status}");
    history_agrees(c, &g, &mut a).await;
    screenshot(c, "serve-tictactoe.png").await;
}

/// Every point of the visual value history against the solver.
async fn history_agrees<G: Game>(c: &fantoccini::Client, g: &G, a: &mut Analyzer<&G>) {
    let pts = js(
        c,
        "return [...document.querySelectorAll('.vvh-point')].map(p => [p.dataset.position, p.dataset.value, \
         p.dataset.remoteness])",
    )
    .await;
    let pts = pts.as_array().unwrap();
    let history = js(c, "return state.history.map(h => h.data.position)").await;
    assert_eq!(pts.len(), history.as_array().unwrap().len());
    for (p, h) in pts.iter().zip(history.as_array().unwrap()) {
        let text = p[0].as_str().unwrap();
        assert_eq!(text, h.as_str().unwrap());
        let (s, _) = a.value(&g.parse(text).unwrap()).unwrap();
        assert_eq!(p[1].as_str().unwrap(), s.value.as_str(), "{text}");
        assert_eq!(p[2].as_str().unwrap(), s.remoteness.map(|r| r.to_string()).unwrap_or_default(), "{text}");
    }
}

/// A 3×3 board (the 3×3 press matrix is invertible, so its solution is unique): the shortest
/// solution is shown, the cells it names are exactly the solver's and exactly the green ones,
/// and pressing them solves the puzzle.
async fn lights_out(c: &fantoccini::Client, url: &str) {
    use fantoccini::Locator;
    let board = "#0#\n##0\n0#0";
    let g = game("lightsout");
    let mut a = Analyzer::new(&g, Options::default());
    let report = a.solve(&g.parse(board).unwrap()).unwrap();
    let mut want: Vec<String> = report.winning_moves.iter().map(|m| m.name.clone()).collect();
    want.sort();
    let n = want.len();
    assert_eq!(report.remoteness, Some(n as u32));
    c.goto(&format!("{url}/?game=lightsout&p={}", enc(board))).await.unwrap();
    settle(c, 1).await;
    let cs = cells(c).await;
    assert_eq!(cs.len(), 9, "every light can be pressed");
    let clicks: Vec<String> = cs.iter().map(|x| x.0.clone()).collect();
    let values = mover_values(&g, &mut a, board, &clicks);
    let mut green: Vec<String> = Vec::new();
    for (cell, (v, r)) in cs.iter().zip(&values) {
        assert_eq!((&cell.1, cell.2), (v, *r), "{}", cell.0);
        assert_eq!(hue(cell.3), v, "the colour of {}", cell.0);
        if v == "win" {
            green.push(cell.0.clone());
        }
    }
    green.sort();
    assert_eq!(green, want, "the presses that bring the goal nearer are the solution's");
    c.find(Locator::Id("solution")).await.unwrap().click().await.unwrap();
    let start = Instant::now();
    let mut hinted: Vec<String> = loop {
        let h = js(c, "return [...document.querySelectorAll('.cell.hint')].map(b => b.dataset.click)").await;
        let h: Vec<String> = h.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
        if !h.is_empty() {
            break h;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no solution shown");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    hinted.sort();
    assert_eq!(hinted, want);
    // The status line names the moves by the game's verb (lightsout.rhai: MOVE_VERB = "Flipping").
    let status = c.find(Locator::Id("status")).await.unwrap().text().await.unwrap();
    assert_eq!(status, format!("Flipping: {n} to solve"));
    screenshot(c, "serve-lightsout.png").await;
    for (i, press) in want.iter().enumerate() {
        c.find(Locator::Css(&format!(".cell[data-click='{press}']"))).await.unwrap().click().await.unwrap();
        settle(c, i + 2).await;
    }
    let status = c.find(Locator::Id("status")).await.unwrap().text().await.unwrap();
    assert_eq!(status, "You got all the lights out!");
    history_agrees(c, &g, &mut a).await;
}

#[test]
fn the_page_reads_the_saved_database() {
    let dir = common::temp_dir("serve-db");
    let out = bin().args(["solve", "tictactoe", "--save"]).env("XDG_CACHE_HOME", &dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = serve_cached(&["tictactoe"], &dir);
    let (code, p) = get(&s, "/api/tictactoe/position?p=xo.......");
    assert_eq!((code, p["source"].as_str(), p["value"].as_str()), (200, Some("database"), Some("win")));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_file_path_of_the_server_goes_to_a_client() {
    // The words of an error that hold a `/` are cut to their last part.
    let cache = "/home/someone/.cache/gamesman/tictactoe-0123.tiers/0000000000030000.tier";
    let said = gamesman::serve::redact(&format!("{cache}: damaged (remove it: `gamesman db rm {cache}`)"));
    assert_eq!(said, "…/0000000000030000.tier: damaged (remove it: `gamesman db rm …/0000000000030000.tier`)");
    assert_eq!(gamesman::serve::redact("no such move: 1:2 (x wins)"), "no such move: 1:2 (x wins)");
    // A damaged tier file of a saved game (tic-tac-toe by tiers), asked for by the page: an
    // error, no path.
    let dir = common::temp_dir("serve-damaged");
    let script = common::root().join("tests/games/tictactoe_text.rhai").display().to_string();
    let out = bin().args(["solve", &script, "--save", "--no-pack"]).env("XDG_CACHE_HOME", &dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut tiers = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "tier") {
                tiers.push(p);
            }
        }
    }
    assert!(!tiers.is_empty(), "no tier file saved under {}", dir.display());
    // Every tier file with a byte of its records flipped (its checksum then fails).
    for p in &tiers {
        let mut bytes = std::fs::read(p).unwrap();
        let at = bytes.len() - 1;
        bytes[at] ^= 0x5a;
        std::fs::write(p, bytes).unwrap();
    }
    let s = serve_cached(&[&script], &dir);
    let mut errors = 0;
    for p in ["xo.......", ".........", "xxoo....."] {
        let (code, body) = get(&s, &format!("/api/tictactoe_text/position?p={p}"));
        let text = body.to_string();
        assert!(!text.contains(&*dir.to_string_lossy()) && !text.contains("gamesman/"), "{code} {text}");
        if code >= 500 {
            errors += 1;
            assert!(body["error"].as_str().is_some_and(|e| e.contains(".tier")), "{code} {text}");
        }
    }
    assert!(errors > 0, "the damage was not seen");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_search_that_looks_at_its_clock_seldom_still_ends_at_the_limit() {
    // Before: a row of 3432 pins (each heap's every move a script call between two looks
    // at the clock) answered 503 after 41–74 s with a limit of 10 s. Now every request ends
    // by its limit and a tenth (2.2 s here; a little more for a loaded machine).
    let s = serve_with(&["kayles"], &["--time-limit", "2"]);
    let t = Instant::now();
    let (code, body) = get(&s, "/api/kayles/position?p=3432");
    let took = t.elapsed();
    assert!(code == 503 || code == 422, "{code} {body}");
    assert!(body["error"].is_string(), "{body}");
    assert!(took < Duration::from_millis(2200 + 500), "answered after {took:?}");
}

#[test]
fn a_search_past_its_limit_frees_its_game_thread() {
    // One game thread a pool. Before: the search of 3432 pins went on after its 503 (for tens
    // of seconds), holding the quick thread too (its every script call long), so the next
    // request waited in the queue and was answered by the HTTP side's clock ("did not end
    // within"), and a cheap one after it as well.
    let s = serve_with(&["kayles"], &["--time-limit", "1", "--workers", "1", "--searches", "1"]);
    let (code, body) = get(&s, "/api/kayles/position?p=3432");
    assert_eq!(code, 503, "{body}");
    // A second long search: it reaches a game thread, which stops it at its own limit with
    // the game's own message, not the HTTP side's. On a machine so busy that the first
    // search (at nice 10) has not yet seen its clock, the slot is still taken: asked again,
    // within 15 s (before, the search went on for tens of seconds).
    let t = Instant::now();
    let (code, body) = loop {
        let (code, body) = get(&s, "/api/kayles/position?p=3431");
        let busy = body["error"].as_str().is_some_and(|w| w.contains("searches are running"));
        if !busy || t.elapsed() > Duration::from_secs(15) {
            break (code, body);
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let why = body["error"].as_str().unwrap_or_default().to_string();
    assert_eq!(code, 503, "{body}");
    assert!(why.contains("this server's limit for one request"), "{why}");
    assert!(!why.contains("did not end within") && !why.contains("searches are running"), "{why}");
    // And a cheap one after it is answered: a row of 3 pins has Grundy value 3 (Kayles, octal
    // 0.77: 0, 1, 2, 3, 1, 4, ...; Winning Ways ch. 4).
    let (code, body) = get(&s, "/api/kayles/position?p=3");
    assert_eq!((code, body["grundy"].as_u64()), (200, Some(3)), "{body}");
}

// --- The GAMESMAN Universal Web API (`/uwapi/`), as GamesmanUni reads it ---

/// The images GamesmanUni ships (tests/data/gamesmanuni-assets.txt, from its tree).
fn gamesmanuni_assets() -> std::collections::HashSet<String> {
    let text = std::fs::read_to_string(common::root().join("tests/data/gamesmanuni-assets.txt")).unwrap();
    text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).map(str::to_string).collect()
}

/// `T_BOARD~TEXT`: the turn, then characters GamesmanUni's AutoGUI reads and a URL keeps as
/// they are (GamesmanUni pastes a position into `?p=` unescaped).
fn uw_pattern(p: &str) -> Option<(char, &str)> {
    let mut chars = p.chars();
    let turn = chars.next()?;
    if !matches!(turn, '1' | '2') || chars.next()? != '_' {
        return None;
    }
    let rest = &p[2..];
    let (board, text) = rest.split_once('~')?;
    let ok_board = board.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    let ok_text = text.split('~').all(|t| t.chars().all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)));
    (ok_board && ok_text).then_some((turn, board))
}

/// A move's board index or indices, if it is drawn on the board (`A_c_i`, `M_i_j`, `L_i_j`).
fn uw_indices(auto: &str) -> Option<Vec<usize>> {
    let parts: Vec<&str> = auto.split('_').collect();
    match parts.first()? {
        &"A" | &"T" => Some(vec![parts.get(2)?.parse().ok()?]),
        &"M" | &"L" => Some(vec![parts.get(1)?.parse().ok()?, parts.get(2)?.parse().ok()?]),
        _ => None,
    }
}

/// `deltaRemoteness` of each move as GamesCraftersUWAPI's `server.py` works it out
/// (`wrangle_move_objects_2Player` / `_1Player`), written again here from its source.
fn server_py_deltas(puzzle: bool, here: &Json) -> Vec<i64> {
    let moves = here["moves"].as_array().unwrap();
    let r = |m: &Json| m["remoteness"].as_i64().unwrap();
    let v = |m: &Json| m["positionValue"].as_str().unwrap().to_string();
    if puzzle {
        let cur = here["remoteness"].as_i64().unwrap();
        return moves.iter().map(|m| if v(m) == "unsolved" || cur < 0 || r(m) < 0 { 0 } else { cur - r(m) }).collect();
    }
    let known = |val: &str| -> Vec<i64> { moves.iter().filter(|m| v(m) == val && r(m) != -100).map(r).collect() };
    let unknown = |val: &str| moves.iter().any(|m| v(m) == val && r(m) == -100);
    let wins = known("win");
    let max_win = wins.iter().copied().max().unwrap_or(0) + if unknown("win") { 1 } else { 0 };
    let (mut min_lose, mut max_lose, mut min_tie, mut max_tie) = (1, 1, 1, 1);
    let loses = known("lose");
    if !loses.is_empty() {
        min_lose = *loses.iter().min().unwrap();
        if unknown("lose") {
            max_lose = loses.iter().max().unwrap() + 1;
        }
    }
    let ties = known("tie");
    if !ties.is_empty() {
        min_tie = *ties.iter().min().unwrap();
        if unknown("tie") {
            max_tie = ties.iter().max().unwrap() + 1;
        }
    }
    moves
        .iter()
        .map(|m| {
            let rm = r(m);
            match m["moveValue"].as_str().unwrap() {
                "win" => (if rm == -100 { max_lose } else { rm }) - min_lose,
                "lose" => max_win - if rm == -100 { max_win } else { rm },
                "tie" => (if rm == -100 { max_tie } else { rm }) - min_tie,
                _ => 0,
            }
        })
        .collect()
}

/// Check one position's answer against the contract; the moves' positions.
fn uw_check_position(what: &str, puzzle: bool, asked: &str, a: &Json, centers: Option<usize>) -> Vec<String> {
    let values = ["win", "lose", "tie", "draw", "unsolved"];
    let p = a["position"].as_str().unwrap_or_else(|| panic!("{what}: {a}"));
    assert_eq!(p, asked, "{what}: ?p= round-trips");
    assert_eq!(a["autoguiPosition"], a["position"], "{what}");
    let (turn, board) = uw_pattern(p).unwrap_or_else(|| panic!("{what}: position {p:?}"));
    if let Some(n) = centers {
        assert!(board.len() <= n, "{what}: a board of {} cells and {n} centers", board.len());
    }
    let value = a["positionValue"].as_str().unwrap();
    assert!(values.contains(&value), "{what}: {value}");
    let rem = a["remoteness"].as_i64().unwrap();
    match value {
        "draw" => assert_eq!(rem, -200, "{what}"),
        "unsolved" => assert_eq!(rem, -100, "{what}"),
        _ => assert!(rem >= 0 || rem == -100, "{what}: remoteness {rem}"),
    }
    let moves = a["moves"].as_array().unwrap();
    if value != "unsolved" {
        assert_eq!(rem == 0, moves.is_empty(), "{what}: remoteness 0 exactly where the game ends ({a})");
    }
    let mut autos = std::collections::HashSet::new();
    let mut names = std::collections::HashSet::new();
    let order = ["win", "tie", "draw", "lose", "unsolved", "undecided"];
    let rank = |m: &Json| order.iter().position(|o| *o == m["moveValue"].as_str().unwrap()).expect("a known moveValue");
    let deltas = server_py_deltas(puzzle, a);
    for (k, m) in moves.iter().enumerate() {
        let name = m["move"].as_str().unwrap();
        let auto = m["autoguiMove"].as_str().unwrap();
        assert!(!name.contains(':'), "{what}: move {name:?}");
        assert!(names.insert(name.to_string()), "{what}: move {name:?} twice");
        assert!(autos.insert(auto.to_string()), "{what}: autoguiMove {auto:?} twice");
        match (uw_indices(auto), centers) {
            (Some(ix), Some(n)) => assert!(ix.iter().all(|&i| i < n), "{what}: {auto} outside {n} centers"),
            _ => assert_eq!(auto, name, "{what}: a move not on the board is listed by its name"),
        }
        let child = m["position"].as_str().unwrap();
        assert_eq!(m["autoguiPosition"].as_str(), Some(child), "{what}");
        let (child_turn, _) = uw_pattern(child).unwrap_or_else(|| panic!("{what}: child {child:?}"));
        let cv = m["positionValue"].as_str().unwrap();
        assert!(values.contains(&cv), "{what}: {cv}");
        let cr = m["remoteness"].as_i64().unwrap();
        let mv = m["moveValue"].as_str().unwrap();
        let expect = if puzzle {
            if cv == "unsolved" {
                "unsolved"
            } else if rem < 0 || cr < 0 {
                "lose"
            } else {
                // The child nearer the goal than here is a good move, as far a tie, farther a bad one.
                ["lose", "tie", "win"][((rem - cr).signum() + 1) as usize]
            }
        } else if child_turn != turn {
            match cv {
                "win" => "lose",
                "lose" => "win",
                o => o,
            }
        } else {
            cv
        };
        assert_eq!(mv, expect, "{what}: move {name}: child {cv} in {cr}, here {value} in {rem}");
        assert_eq!(m["deltaRemoteness"].as_i64(), Some(deltas[k]), "{what}: move {name}");
        if k > 0 {
            let prev = &moves[k - 1];
            let key = |m: &Json| (rank(m), m["deltaRemoteness"].as_i64().unwrap());
            assert!(key(prev) <= key(m), "{what}: moves sorted best first ({prev} before {m})");
        }
    }
    // A win has a winning move first, unless it is won with no move at all (a misère game's
    // player who cannot move).
    if value == "win" && !puzzle && !moves.is_empty() && moves.iter().all(|m| m["positionValue"] != "unsolved") {
        assert_eq!(moves.first().map(|m| m["moveValue"].as_str().unwrap()), Some("win"), "{what}");
    }
    moves.iter().map(|m| m["position"].as_str().unwrap().to_string()).collect()
}

#[test]
fn the_universal_web_api_serves_every_shipped_game_as_gamesmanuni_reads_it() {
    let server = serve_with(&[], &["--time-limit", "2"]);
    let assets = gamesmanuni_assets();
    let (code, head, body) =
        raw(&server, b"GET /uwapi/ HTTP/1.1\r\nHost: x\r\nOrigin: http://elsewhere\r\nConnection: close\r\n\r\n");
    assert_eq!(code, 200, "{body}");
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    let games: Json = serde_json::from_str(&body).unwrap();
    let games = games.as_array().unwrap();
    let (_, served) = get(&server, "/api/games");
    assert_eq!(games.len(), served.as_array().unwrap().len(), "every served game is listed");
    let ids: Vec<&str> = games.iter().map(|g| g["id"].as_str().unwrap()).collect();
    for reserved in ["tictactoe", "quarto", "sim"] {
        assert!(!ids.contains(&reserved), "{reserved} is drawn by GamesmanUni's own component");
    }
    let (code, head, body) = raw(&server, b"GET /uwapi/no-such-game/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert_eq!(code, 404, "{body}");
    assert!(head.contains("access-control-allow-origin: *"), "{head}");
    assert!(serde_json::from_str::<Json>(&body).unwrap()["error"].is_string());
    for g in games {
        let id = g["id"].as_str().unwrap();
        assert!(g["name"].is_string(), "{g}");
        let puzzle = match g["type"].as_str() {
            Some("onePlayer") => true,
            Some("twoPlayer") => false,
            other => panic!("{id}: type {other:?}"),
        };
        assert!(["v0", "v1", "v2", "v3"].contains(&g["gui"].as_str().unwrap()), "{g}");
        let (code, game) = get(&server, &format!("/uwapi/{id}/"));
        assert_eq!(code, 200, "{id}: {game}");
        assert_eq!(game["id"], g["id"]);
        assert!(game["allowCustomVariantCreation"].is_boolean() && game["supportsWinBy"].is_boolean(), "{game}");
        let variants = game["variants"].as_array().unwrap();
        assert!(!variants.is_empty(), "{id}: no variant");
        let (code, instr) = get(&server, &format!("/uwapi/{id}/{}/instructions/", variants[0]["id"].as_str().unwrap()));
        assert_eq!(code, 200, "{id}: {instr}");
        assert!(!instr["instructions"].as_str().unwrap().is_empty());
        for v in variants {
            let vid = v["id"].as_str().unwrap();
            assert!(vid.chars().all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)), "{id}: variant {vid:?}");
            let (code, var) = get(&server, &format!("/uwapi/{id}/{vid}/"));
            assert_eq!(code, 200, "{id}/{vid}: {var}");
            assert_eq!(var["gui"], v["gui"]);
            let start = var["startPosition"].as_str().unwrap().to_string();
            assert_eq!(var["autoguiStartPosition"].as_str(), Some(start.as_str()));
            let data = &var["imageAutoGUIData"];
            let centers = if data.is_null() {
                assert_eq!(v["gui"], "v0", "{id}/{vid}");
                None
            } else {
                let themes = data["themes"].as_object().unwrap();
                assert!(themes.contains_key(data["defaultTheme"].as_str().unwrap()), "{id}/{vid}: defaultTheme");
                let mut n = usize::MAX;
                for theme in themes.values() {
                    let space = theme["space"].as_array().unwrap();
                    let (w, h) = (space[0].as_f64().unwrap(), space[1].as_f64().unwrap());
                    let centers = theme["centers"].as_array().unwrap();
                    for c in centers {
                        let (x, y) = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
                        assert!(
                            (0.0..=w).contains(&x) && (0.0..=h).contains(&y),
                            "{id}/{vid}: center {c} outside {w}×{h}"
                        );
                    }
                    for (ch, img) in theme["charImages"].as_object().unwrap() {
                        assert_eq!(ch.chars().count(), 1, "{id}/{vid}");
                        let path = img["image"].as_str().unwrap();
                        assert!(assets.contains(path), "{id}/{vid}: {path} is not one of GamesmanUni's images");
                        assert!(img["scale"].as_f64().unwrap() > 0.0);
                    }
                    n = n.min(centers.len());
                }
                Some(n)
            };
            // A few moves deep: the best move, and the last (worst) one where it differs.
            let mut frontier = vec![start];
            for _ in 0..3 {
                let mut next = Vec::new();
                for p in &frontier {
                    let what = format!("{id}/{vid} at {p}");
                    let (code, a) = get(&server, &format!("/uwapi/{id}/{vid}/positions/?p={p}"));
                    assert_eq!(code, 200, "{what}: {a}");
                    let children = uw_check_position(&what, puzzle, p, &a, centers);
                    next.extend(children.first().cloned());
                    if children.len() > 1 {
                        next.extend(children.last().cloned());
                    }
                }
                next.dedup();
                next.truncate(3);
                frontier = next;
            }
        }
    }
    // Values known from elsewhere, asked of a server whose time limit leaves them solvable on
    // a busy machine (above, a search the limit cuts short, or one that finds every search
    // slot taken, answers `unsolved`): tic-tac-toe is a tie in 9; Connect-Four on 4 × 4 a tie
    // (John Tromp); the first player wins 3×3 Hex (Nash) and 4×4 Domineering (Breuker,
    // Uiterwijk and van den Herik); the 8-puzzle's farthest position is 31 moves from the goal
    // (Reinefeld).
    drop(server);
    let server = serve_with(
        &["tictactoe", "connect4", "hex", "domineering", "8-puzzle", "nim", "kayles", "chomp", "notakto"],
        &["--time-limit", "120"],
    );
    let find = |id: &str, vid: &str| {
        let (code, var) = get(&server, &format!("/uwapi/{id}/{vid}/"));
        assert_eq!(code, 200, "{id}/{vid}: {var}");
        let start = var["startPosition"].as_str().unwrap();
        let (code, a) = get(&server, &format!("/uwapi/{id}/{vid}/positions/?p={start}"));
        assert_eq!(code, 200, "{id}/{vid}: {a}");
        (a["positionValue"].clone(), a["remoteness"].clone())
    };
    assert_eq!(find("tictactoe-gamesman", "regular"), (json!("tie"), json!(9)));
    assert_eq!(find("connect4", "4x4").0, json!("tie"));
    assert_eq!(find("hex", "3x3").0, json!("win"));
    assert_eq!(find("domineering", "4x4").0, json!("win"));
    assert_eq!(find("8-puzzle", "scrambled"), (json!("win"), json!(31)));

    // Misère variants: every impartial game but Notakto has one.
    for (id, misere) in
        [("nim", true), ("kayles", true), ("chomp", true), ("notakto", false), ("tictactoe-gamesman", false)]
    {
        let (_, game) = get(&server, &format!("/uwapi/{id}/"));
        let ids: Vec<&str> = game["variants"].as_array().unwrap().iter().map(|v| v["id"].as_str().unwrap()).collect();
        assert_eq!(ids.contains(&"misere"), misere, "{id}: {ids:?}");
    }
    // Misère Nim by hand (whoever takes the last stone loses; the player to move at the empty
    // position wins, remoteness 0): (1) must move to (), so it loses in 1; (1,1) moves to (1),
    // a win in 2; (1,1,1) can only move to (1,1), a loss in 3. (2) takes one to leave (1), a
    // win in 2; (1,2) moves to (1), a win in 2; (2,2) moves only to (1,2) or (2), both wins for
    // the opponent in 2: a loss in 3. In normal play (1,1,1) is a win in 3 (to (1,1), a loss in
    // 2) and (1,1) a loss in 2: the two variants' answers differ where they must.
    let value = |v: &str, p: &str| {
        let (code, a) = get(&server, &format!("/uwapi/nim/{v}/positions/?p={p}"));
        assert_eq!(code, 200, "nim/{v} at {p}: {a}");
        (a["positionValue"].as_str().unwrap().to_string(), a["remoteness"].as_i64().unwrap())
    };
    assert_eq!(value("misere", "1,1,1"), ("lose".to_string(), 3));
    assert_eq!(value("misere", "1,1"), ("win".to_string(), 2));
    assert_eq!(value("misere", "2,2"), ("lose".to_string(), 3));
    assert_eq!(value("regular", "1,1,1"), ("win".to_string(), 3));
    assert_eq!(value("regular", "1,1"), ("lose".to_string(), 2));
}

/// The board's moves for the 8-puzzle and Dodgem: each tile slides by an arrow from its cell
/// to the blank, each car by an arrow to its cell, or off the board to a point beyond the edge
/// it leaves by (X's east, O's north), which is one of the theme's centers.
#[test]
fn slides_and_moves_off_the_board_are_arrows() {
    let server = serve(&["8-puzzle", "dodgem"]);
    let moves = |game: &str, v: &str, p: &str| -> Vec<(String, String)> {
        let (code, a) = get(&server, &format!("/uwapi/{game}/{v}/positions/?p={}", enc(p)));
        assert_eq!(code, 200, "{game} at {p}: {a}");
        let mut m: Vec<(String, String)> = a["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["move"].as_str().unwrap().to_string(), m["autoguiMove"].as_str().unwrap().to_string()))
            .collect();
        m.sort();
        m
    };
    let pairs = |l: &[(&str, &str)]| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = l.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        v.sort();
        v
    };
    // 867/254/3.1: the blank is cell 7 (row 2, column 1); tiles 5 (cell 4), 3 (cell 6) and 1
    // (cell 8) slide into it.
    assert_eq!(
        moves("8-puzzle", "scrambled", "867/254/3.1"),
        pairs(&[("5", "M_4_7_x"), ("3", "M_6_7_x"), ("1", "M_8_7_x")])
    );
    // Dodgem's centers: the 9 cells, then a point east of each row (9, 10, 11), then one north of
    // each column (12, 13, 14).
    let (_, var) = get(&server, "/uwapi/dodgem/regular/");
    let theme = &var["imageAutoGUIData"]["themes"]["gamesman"];
    let centers: Vec<[f64; 2]> =
        theme["centers"].as_array().unwrap().iter().map(|c| [c[0].as_f64().unwrap(), c[1].as_f64().unwrap()]).collect();
    assert_eq!(centers.len(), 15, "{theme}");
    let cell = |i: usize| centers[i];
    for r in 0..3 {
        // East of row r: one cell right of its last cell, at its height.
        assert_eq!(cell(9 + r), [cell(3 * r + 2)[0] + 1.0, cell(3 * r + 2)[1]], "{theme}");
    }
    for c in 0..3 {
        // North of column c: one cell above its first cell.
        assert_eq!(cell(12 + c), [cell(c)[0], cell(c)[1] - 1.0], "{theme}");
    }
    // ..x/x../.oo, X to move: the car at 0:2 (cell 2) leaves east of row 0 (point 9).
    assert_eq!(
        moves("dodgem", "regular", "..x/x../.oo"),
        pairs(&[
            ("0,2-off", "M_2_9_x"),
            ("0,2-1,2", "M_2_5_x"),
            ("1,0-1,1", "M_3_4_x"),
            ("1,0-0,0", "M_3_0_x"),
            ("1,0-2,0", "M_3_6_x"),
        ])
    );
    // o.x/x../..o, O to move: the car at 0:0 (cell 0) leaves north of column 0 (point 12).
    assert_eq!(
        moves("dodgem", "regular", "o.x/x../..o o"),
        pairs(&[("0,0-off", "M_0_12_x"), ("0,0-0,1", "M_0_1_x"), ("2,2-1,2", "M_8_5_x"), ("2,2-2,1", "M_8_7_x")])
    );
}

/// A position of the Universal Web API comes from the saved database where there is one,
/// as the page's does: Quixo 3×3 saved here, its answers marked `database` and their values
/// those of the independent solver (tests/data/quixo3.jsonl); without the database, `search`.
#[test]
fn the_universal_web_api_reads_the_saved_database() {
    let dir = common::temp_dir("serve-uwapi-db");
    let out = bin().args(["solve", "quixo", "3x3", "--save"]).env("XDG_CACHE_HOME", &dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let oracle = common::known(include_str!("../data/quixo3.jsonl"));
    let saved = serve_cached(&["quixo"], &dir);
    let searched = serve_with(&["quixo"], &[]);
    for k in oracle.iter().step_by(997) {
        let path = format!("/uwapi/quixo/3x3/positions/?p={}", enc(&k.position));
        let (code, a) = get(&saved, &path);
        assert_eq!(code, 200, "{}: {a}", k.position);
        assert_eq!(a["source"], "database", "{}: {a}", k.position);
        assert_eq!(a["positionValue"], k.value.as_str(), "{}: {a}", k.position);
        assert_eq!(a["remoteness"].as_i64(), Some(k.remoteness.map_or(-200, i64::from)), "{}: {a}", k.position);
        let (code, b) = get(&searched, &path);
        assert_eq!(code, 200, "{}: {b}", k.position);
        assert_eq!(b["source"], "search", "{}: {b}", k.position);
    }
    drop((saved, searched));
    let _ = std::fs::remove_dir_all(&dir);
}
