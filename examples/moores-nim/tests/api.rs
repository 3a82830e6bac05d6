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
