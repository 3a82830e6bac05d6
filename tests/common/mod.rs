//! Shared helpers for the integration tests.
#![allow(dead_code)]

use gamesman::game::{Game, Misere};
use gamesman::script::ScriptGame;
use gamesman::solve::{Analyzer, Options, Report};
use std::path::PathBuf;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The records of `tests/data/NAME.jsonl` (copied from the shared reference vectors).
pub fn cases(name: &str) -> Vec<serde_json::Value> {
    let path = root().join("tests/data").join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("valid JSON line")).collect()
}

/// A shipped game script.
pub fn game(name: &str) -> ScriptGame {
    ScriptGame::load(&root().join("games").join(format!("{name}.rhai"))).unwrap_or_else(|e| panic!("{e}"))
}

/// A test-only game script from `tests/games`.
pub fn test_game(name: &str) -> ScriptGame {
    ScriptGame::load(&root().join("tests/games").join(format!("{name}.rhai"))).unwrap_or_else(|e| panic!("{e}"))
}

pub fn solve<G: Game>(game: &G, position: &str, remoteness: bool) -> Report {
    let pos = game.parse(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    let opts = Options { remoteness, ..Options::default() };
    Analyzer::new(game, opts).solve(&pos).unwrap_or_else(|e| panic!("{position}: {e}"))
}

pub fn solve_misere(game: ScriptGame, position: &str) -> Report {
    solve(&Misere::new(game), position, true)
}

/// The `gamesman` binary.
pub fn bin() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gamesman"));
    c.current_dir(root());
    c
}
