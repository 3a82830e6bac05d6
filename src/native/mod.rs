//! Native Rust modules for classic games. Each implements [`crate::game::Game`] with the same
//! position text as its script in `games/`, plus a [`crate::game::Shortcut`]: an answer
//! from a closed form or a special algorithm instead of a search. A script that declares
//! `const NATIVE = "nim";` is solved by the module of that name unless `--engine script`
//! says otherwise; `gamesman check` compares the two. The modules of the original
//! assignments also hold the assignment's own command (`command`, over [`command::Call`]).
//!
//! Adding one is one file here and one row in the catalogue's table
//! ([`crate::catalog::table::natives`]): its name, its constructor, the shipped definitions
//! it answers for, its sampler, its bench positions and its assignment command, if any. No
//! module here knows the catalogue.

pub mod chomp;
pub mod command;
mod common;
pub mod connect4;
pub mod gf2;
pub mod lightsout;
pub mod nim;
pub mod nimrod;
pub mod quixo;
pub mod tactix;

pub use common::{format_big_heaps, grid_board, parse_big_heaps, parse_decimal};
