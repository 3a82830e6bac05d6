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

mod common;

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
fn fuzz(target: &str, check: impl Fn(&[u8])) {
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
