//! Moore's Nim through gamesman's public API, checked against Moore's theorem (1910): solved
//! by the catalogue's session, served by the web server, and answered by the crate's own
//! binary (`gamesman::cli::main_with`).

use gamesman::catalog::{Catalog, Database, How};
use gamesman::game::Value;
use moores_nim::{moore_loses, row};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

fn how() -> How {
    How { database: Database::Off, ..How::default() }
}

/// Every position of up to three heaps of at most 4 (k = 1, 2): the searched value is the
/// theorem's, every winning move leads to a position the theorem says is lost, and for k = 1
/// the Grundy value is the heaps' XOR (Nim).
#[test]
fn solve_agrees_with_moores_theorem() {
    let catalog = Catalog::new().with_native(row());
    for k in 1..=2 {
        let mut session = catalog.open("moores-nim", &how()).unwrap();
        for a in 0..=4u32 {
            for b in 0..=4u32 {
                for c in 0..=4u32 {
                    let text = format!("k={k} {a},{b},{c}");
                    let r = session.solve(&text).unwrap();
                    let loses = moore_loses(k, &[a, b, c]);
                    assert_eq!(r.value, if loses { Value::Lose } else { Value::Win }, "{text}");
                    for m in &r.winning_moves {
                        let heaps: Vec<u32> =
                            m.position.split(' ').nth(1).unwrap().split(',').map(|h| h.parse().unwrap()).collect();
                        assert!(moore_loses(k, &heaps), "{text}: the winning move {} leads to {}", m.name, m.position);
                    }
                    if k == 1 {
                        assert_eq!(r.grundy, Some(u64::from(a ^ b ^ c)), "{text}");
                    }
                }
            }
        }
    }
}

/// The web server over the same catalogue: the API answers a position with the theorem's value.
#[test]
fn serves_through_the_public_api() {
    let catalog = Catalog::new().with_native(row());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let games = vec![("moores-nim".to_string(), "moores-nim".to_string())];
        let config = gamesman::serve::Config { no_db: true, ..Default::default() };
        let addr = "127.0.0.1:0".parse().unwrap();
        let _ = gamesman::serve::run(addr, catalog, games, config, move |bound, _| tx.send(bound).unwrap());
    });
    let addr = rx.recv().unwrap();
    for (k, heaps) in [(2, [1, 1, 1]), (2, [1, 2, 3]), (1, [1, 2, 3]), (2, [3, 5, 6])] {
        let text = format!("k={k} {},{},{}", heaps[0], heaps[1], heaps[2]);
        let loses = moore_loses(k, &heaps);
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        let p = text.replace(' ', "%20").replace(',', "%2C");
        write!(s, "GET /api/moores-nim/position?p={p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        let mut reply = String::new();
        s.read_to_string(&mut reply).unwrap();
        let body: serde_json::Value = serde_json::from_str(reply.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!(body["value"], if loses { "lose" } else { "win" }, "{text}: {body}");
        assert_eq!(body["engine"], "native");
    }
}

/// The crate's binary is gamesman with the game added: `solve` and `games` know it.
#[test]
fn the_binary_has_every_command() {
    let bin = env!("CARGO_BIN_EXE_moores-nim");
    let out = Command::new(bin).args(["solve", "moores-nim", "k=2 3,4,5", "--json", "--no-db"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let loses = moore_loses(2, &[3, 4, 5]);
    assert_eq!(j["value"], if loses { "lose" } else { "win" });
    let out = Command::new(bin).arg("games").stdout(Stdio::piped()).output().unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.lines().any(|l| l.trim_start().starts_with("moores-nim")), "{listed}");
    // A bad position is a clear error naming it, not a panic.
    let out = Command::new(bin).args(["solve", "moores-nim", "k=2 3,x", "--no-db"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(BufReader::new(err.as_bytes()).lines().count() == 1 && err.contains("\"x\""), "{err}");
}

/// A fresh empty directory for one test's files.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("moores-nim-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The crate's binary, run in `dir` with its own cache (no user database read or written).
fn binary_in(dir: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_moores-nim"));
    c.current_dir(dir).env("XDG_CACHE_HOME", dir.join("cache")).env_remove("GAMESMAN_GAMES");
    c
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A single heap of n is Nim's heap of n whatever k (a move touches the one heap), so its
/// Grundy value is n: `moores-nim:10` is 10, and with `nim:3` the sum is 10 XOR 3 = 9, a win.
#[test]
fn sums_take_a_game_written_in_rust() {
    let dir = temp_dir("sum");
    let one = json_of(&binary_in(&dir).args(["solve", "moores-nim:10", "--json"]).output().unwrap());
    assert_eq!(one["grundy"], 10, "{one}");
    let sum = json_of(&binary_in(&dir).args(["solve", "moores-nim:10 + nim:3", "--json"]).output().unwrap());
    assert_eq!(
        (sum["grundy"].clone(), sum["value"].clone()),
        (serde_json::json!(9), serde_json::json!("win")),
        "{sum}"
    );
    // The winning moves make the XOR zero: the heap of 10 down to 3.
    let moves = sum["winning_moves"].as_array().unwrap();
    assert!(moves.iter().any(|m| m["game"] == "moores-nim" && m["grundy"] == 3), "{sum}");
    assert!(moves.iter().all(|m| m["grundy"] == if m["game"] == "nim" { 10 } else { 3 }), "{sum}");
}

/// `check` and `bench` work on a game written in Rust: `check` checks it against its own
/// moves (there is no definition to compare it with), `bench` times it by the native engine
/// on the row's own benchmark position.
#[test]
fn check_and_bench_take_a_game_written_in_rust() {
    let dir = temp_dir("check");
    let out = binary_in(&dir).args(["check", "moores-nim", "--count", "40", "--seed", "7"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("40 random positions") && text.contains("no disagreement"), "{text}");
    let out = binary_in(&dir).args(["bench", "moores-nim", "--repeat", "1"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("engine native"), "{text}");
    let row =
        text.lines().find(|l| l.starts_with("| moores-nim | `k=2 3,4,5,6` |")).unwrap_or_else(|| panic!("{text}"));
    let visited: u64 = row.split('|').nth(4).unwrap().trim().parse().unwrap();
    assert!(visited > 0, "{row}");
}

/// A folder named like the game in the current directory does not hide the game.
#[test]
fn a_folder_of_the_same_name_does_not_hide_the_game() {
    let dir = temp_dir("folder");
    std::fs::create_dir_all(dir.join("moores-nim")).unwrap();
    let j = json_of(&binary_in(&dir).args(["solve", "moores-nim", "k=2 3,4,5", "--json"]).output().unwrap());
    assert_eq!(j["value"], if moore_loses(2, &[3, 4, 5]) { "lose" } else { "win" }, "{j}");
}

/// When the reader of its output goes away (`| head`), the binary stops quietly: killed by
/// SIGPIPE, as the `gamesman` binary is, or exit 0; never a panic or "Broken pipe" error.
#[test]
#[cfg(unix)]
fn a_closed_pipe_stops_the_binary_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let dir = temp_dir("pipe");
    for args in [&["moves", "moores-nim", "k=2 3,4,5"][..], &["export", "moores-nim", "k=2 2,2,2"]] {
        let mut child = binary_in(&dir).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        // Closed before the binary writes anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.signal() == Some(13) || out.status.code() == Some(0), "{args:?}: {:?} {err}", out.status);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}
