//! Fuzz targets: the PBM reader, the grid (Lights Out) reader, every shipped game's position
//! parser (script, descriptor and native module), and the RON descriptor loader.
//!
//! Each target takes inputs made by random mutations of a seed corpus in `tests/fuzz/corpus/`
//! (bit flips, byte insertions and deletions, repeated and spliced slices, interesting
//! numbers) and must never panic, abort or hang: every input is read or refused with an
//! error. proptest drives the mutations and shrinks a failing input to a small one.
//!
//! `cargo test --release --test fuzz` runs each target on 10,000 inputs (CI does this);
//! `FUZZ_CASES=200000 cargo test --release --test fuzz` runs longer. A failure prints the
//! input; add it to the corpus once fixed.

use crate::common;

use gamesman::catalog::{Catalog, Database, Engine, How, Session};
use gamesman::descriptor::DescriptorGame;
use gamesman::game::Game;
use gamesman::grid::Grid;
use gamesman::script::ScriptGame;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::path::Path;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = common::root().join("tests/fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert!(!seeds.is_empty(), "{}: no seeds", dir.display());
    seeds
}

fn cases() -> u32 {
    std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

/// One mutation: (kind, position, length, byte).
type Edit = (u8, usize, usize, u8);

/// Numbers and bytes that often find bugs in readers.
const INTERESTING: &[&[u8]] = &[
    b"0",
    b"-1",
    b"4294967296",
    b"18446744073709551616",
    b"99999999999999999999",
    b"65",
    b"64",
    b"8",
    b"\n",
    b"/",
    b",",
    b" ",
    b"#",
    b"@",
    b"P1",
    b"\xff",
    b"\xe2\x80\x94",
    b"\0",
];

fn mutate(seed: &[u8], other: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for &(kind, at, len, byte) in edits {
        let at = if v.is_empty() { 0 } else { at % (v.len() + 1) };
        match kind % 7 {
            0 if at < v.len() => v[at] ^= 1 << (byte % 8),
            1 => v.insert(at, byte),
            2 => {
                let end = (at + len % 16).min(v.len());
                v.drain(at..end);
            }
            3 => {
                // Repeat a slice (makes long rows, big numbers, deep nesting).
                let end = (at + 1 + len % 32).min(v.len());
                let piece = v[at..end].to_vec();
                for _ in 0..(byte % 64) {
                    v.splice(at..at, piece.iter().copied());
                }
            }
            4 => {
                let word = INTERESTING[byte as usize % INTERESTING.len()];
                v.splice(at..at, word.iter().copied());
            }
            5 if !other.is_empty() => {
                // Splice in part of another seed.
                let from = len % other.len();
                let end = (from + 1 + byte as usize % 64).min(other.len());
                v.splice(at..at, other[from..end].iter().copied());
            }
            _ => {
                let end = (at + len % 8).min(v.len());
                v.truncate(end.max(at));
            }
        }
        if v.len() > 1 << 16 {
            v.truncate(1 << 16);
        }
    }
    v
}

/// Run `check` on `cases()` mutated inputs of `target`'s corpus (the seeds themselves first).
/// With `FUZZ_LAST=path`, each input is written there before it is checked, so an input that
/// kills the process (out of memory, a hang stopped by a signal) is left behind to read.
fn fuzz(target: &str, check: impl Fn(&[u8])) {
    let last = std::env::var_os("FUZZ_LAST").map(|p| std::path::PathBuf::from(p).with_extension(target));
    let check = |input: &[u8]| {
        if let Some(path) = &last {
            std::fs::write(path, input).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        check(input)
    };
    let seeds = corpus(target);
    for s in &seeds {
        check(s);
    }
    let n = seeds.len();
    let strategy =
        (0..n, 0..n, proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>(), any::<u8>()), 1..8));
    let mut runner = TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() });
    let ran = std::cell::Cell::new(0u32);
    runner
        .run(&strategy, |(i, j, edits)| {
            ran.set(ran.get() + 1);
            check(&mutate(&seeds[i], &seeds[j], &edits));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    assert!(ran.get() >= cases(), "{target}: only {} inputs ran", ran.get());
    eprintln!("{target}: {} inputs", ran.get());
}

#[test]
fn fuzz_pbm_reader() {
    fuzz("pbm", |input| {
        // A small cell budget, as the contest's: larger declared boards are refused.
        if let Ok(b) = tactix::pbm::read(input, 1 << 20) {
            assert!((b.width as u64) * (b.height as u64) <= 1 << 20);
            assert!(b.count() <= b.width * b.height);
            // What is read can be solved or refused, never crash (a tiny time budget).
            let mut board = b;
            let mut s =
                tactix::Solver::new(1 << 20, Some(std::time::Instant::now() + std::time::Duration::from_millis(20)));
            let _ = s.board(&mut board);
        }
    });
}

#[test]
fn fuzz_grid_reader() {
    fuzz("grid", |input| {
        let text = String::from_utf8_lossy(input);
        if let Ok(g) = Grid::parse(&text) {
            // Rows written back read as the same grid.
            if g.rows() > 0 && g.cols() > 0 {
                assert_eq!(Grid::parse(&g.to_rows('#', '0', "/")).as_ref(), Ok(&g), "{text:?}");
            }
            if g.rows() * g.cols() <= 64 {
                let _ = gamesman::native::lightsout::solve(&g, 0);
            }
        }
    });
}

/// Parse `text` as a position of `game`; if it reads, its text reads back, and (with
/// `moves`) its moves can be listed or refused. Scripts' moves are not asked for: a heap of
/// 10^8 runs a script into its 20-million-operation limit, a second per input.
fn position<G: Game>(game: &G, text: &str, moves: bool) {
    let Ok(pos) = game.parse(text) else { return };
    let shown = game.format(&pos).expect("a parsed position formats");
    game.parse(&shown).unwrap_or_else(|e| panic!("{:?} formats as {shown:?}, which does not parse: {e}", text));
    if moves && text.len() <= 24 {
        let _ = game.moves(&pos);
        let _ = game.primitive(&pos);
    }
}

#[test]
fn fuzz_position_parsers() {
    let games = common::root().join("games");
    let scripts: Vec<(String, ScriptGame)> = std::fs::read_dir(&games)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rhai"))
        .map(|p| (stem(&p), ScriptGame::load(&p).unwrap()))
        .collect();
    let descriptors: Vec<(String, DescriptorGame)> = std::fs::read_dir(&games)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .map(|p| (stem(&p), DescriptorGame::load(&p).unwrap()))
        .collect();
    // Every native module the shipped scripts name, opened through the catalogue.
    let catalog = Catalog::new().with_dir(&games);
    let how = How { engine: Engine::Native, database: Database::Off, ..How::default() };
    let natives: Vec<(String, Box<dyn Session>)> = scripts
        .iter()
        .filter(|(_, g)| g.info().native.is_some())
        .map(|(n, g)| (n.clone(), catalog.open(g.file(), &how).unwrap()))
        .collect();
    fuzz("positions", |input| {
        let text = String::from_utf8_lossy(input);
        let (name, pos) = text.split_once('\t').unwrap_or(("nim", &text));
        for (n, g) in &scripts {
            if n == name.trim() {
                position(g, pos, false);
            }
        }
        for (n, g) in &descriptors {
            if n == name.trim() {
                position(g, pos, true);
            }
        }
        if let Some((_, native)) = natives.iter().find(|(n, _)| n == name.trim()) {
            native_position(&**native, pos);
        }
    });
}

/// A native module's position text, through the catalogue's session: what it writes reads
/// back, and moves from a short one do not panic.
fn native_position(game: &dyn Session, text: &str) {
    let Ok(shown) = game.normalize(text) else { return };
    game.normalize(&shown).unwrap_or_else(|e| panic!("{:?} formats as {shown:?}, which does not parse: {e}", text));
    if text.len() <= 24 {
        let _ = game.move_names(text);
        let _ = game.primitive(text);
    }
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn fuzz_descriptor_loader() {
    fuzz("descriptor", |input| {
        let text = String::from_utf8_lossy(input);
        match DescriptorGame::from_source("fuzz.ron", &text, None) {
            Ok(g) => {
                if let Ok(Some(start)) = g.start() {
                    let _ = g.moves(&start);
                }
            }
            Err(e) => {
                let e = e.to_string();
                assert!(e.starts_with("fuzz.ron"), "an error names the file: {e}");
                assert!(!e.contains('\n'), "one line: {e}");
            }
        }
    });
}

/// The responses in `bytes`, read one after another by their `content-length`: (status,
/// lower-case head, body).
fn responses(mut bytes: &[u8]) -> Vec<(u16, String, Vec<u8>)> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            panic!("a response cut short: {:?}", String::from_utf8_lossy(&bytes[..bytes.len().min(200)]))
        };
        let head = String::from_utf8_lossy(&bytes[..end]).to_lowercase();
        let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().expect("a content-length"));
        let rest = &bytes[end + 4..];
        let body = rest[..len.min(rest.len())].to_vec();
        bytes = &rest[len.min(rest.len())..];
        out.push((status, head, body));
    }
    out
}

#[test]
fn fuzz_http_api() {
    use std::io::{BufRead, Read, Write};
    use std::time::Duration;
    let mut child = common::bin()
        .args(["serve", "tictactoe", "nim", "lightsout", "--port", "0", "--no-db", "--header-timeout", "1"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap();
    let addr = url.trim_start_matches("http://").trim_end_matches('/').to_string();
    let child = std::cell::RefCell::new(child);
    let sent = std::cell::Cell::new(0u32);
    let statuses = std::cell::RefCell::new(std::collections::BTreeMap::<u16, u32>::new());
    let check = |request: &[u8]| {
        let mut s = std::net::TcpStream::connect(&addr).expect("the server takes connections");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        // A peer that sends its request and hangs up its side: what hyper has read is answered.
        let _ = s.write_all(request);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut reply = Vec::new();
        if let Err(e) = s.read_to_end(&mut reply) {
            assert!(e.kind() == std::io::ErrorKind::ConnectionReset, "{e}: {:?}", String::from_utf8_lossy(request));
        }
        for (status, head, body) in responses(&reply) {
            assert!(status >= 200, "no status in {head:?}");
            *statuses.borrow_mut().entry(status).or_default() += 1;
            if status >= 400 {
                assert!(head.contains("content-type: application/json"), "{head}");
                let j: serde_json::Value = serde_json::from_slice(&body).expect("a JSON error");
                assert!(j["error"].as_str().is_some_and(|e| !e.is_empty()), "{j}");
            }
        }
        sent.set(sent.get() + 1);
        if sent.get().is_multiple_of(100) {
            assert!(child.borrow_mut().try_wait().unwrap().is_none(), "the server stopped");
        }
    };
    // Each input is a network round trip: a tenth of the other targets' count.
    let n = std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000u32) / 10;
    let seeds = corpus("http");
    for s in &seeds {
        check(s);
    }
    let strategy = (
        0..seeds.len(),
        0..seeds.len(),
        proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>(), any::<u8>()), 1..8),
    );
    let mut runner = TestRunner::new(Config { cases: n, failure_persistence: None, ..Config::default() });
    runner
        .run(&strategy, |(i, j, edits)| {
            check(&mutate(&seeds[i], &seeds[j], &edits));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("http: {e}"));
    assert!(child.borrow_mut().try_wait().unwrap().is_none(), "the server stopped");
    let _ = child.borrow_mut().kill();
    let statuses = statuses.into_inner();
    eprintln!("http: {} requests; answers by status: {statuses:?}", sent.get());
    // The mutations reach both the API's answers and its refusals.
    assert!(statuses.range(200..300).map(|x| x.1).sum::<u32>() > n / 20, "{statuses:?}");
    assert!(statuses.range(400..600).map(|x| x.1).sum::<u32>() > n / 20, "{statuses:?}");
}
