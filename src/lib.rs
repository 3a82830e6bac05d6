//! gamesman: strongly solve two-player games and puzzles written as Rhai scripts, RON
//! descriptors or Rust modules. The modules, lowest first (each uses only those above it;
//! `docs/architecture.md` is the map, checked against the code by
//! `scripts/check-architecture.py`):
//!
//! - [`game`]: what a game is ([`game::Game`]), positions by index, the misère wrapper.
//! - [`input`]: what is read from outside, bounded by the memory budget.
//! - [`grid`]: the token grid of the grid games.
//! - [`progress`]: the time limit and the progress line.
//! - [`meter`]: the allocation meter.
//! - [`db`]: the solved-game store and the array database.
//! - [`solve`]: the solvers, which know nothing of any particular game.
//! - [`script`]: the Rhai adapter (a script is a [`game::Game`]).
//! - [`descriptor`]: the RON descriptor language, run natively.
//! - [`native`]: games written in Rust, behind the same trait.
//! - [`catalog`]: the one door from the front ends to the games.
//! - [`serve`]: the web server and its page.
//! - [`cli`]: the `gamesman` commands.

pub mod catalog;
pub mod cli;
pub mod db;
pub mod descriptor;
pub mod game;
pub mod grid;
pub mod input;
pub mod meter;
pub mod native;
pub mod progress;
pub mod script;
pub mod serve;
pub mod solve;
