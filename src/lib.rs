//! gamesman: strongly solve two-player games and puzzles described as Rhai scripts.
//!
//! - [`game`]: the one definition of what a game is ([`game::Game`]).
//! - [`solve`]: generic solvers that know nothing about any particular game.
//! - [`script`]: the Rhai adapter (a script is a [`game::Game`]).
//! - [`native`]: native Rust modules for classic games, behind the same trait.
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
