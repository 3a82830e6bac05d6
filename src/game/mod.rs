//! What a game is.
//!
//! Every way of defining a game (a Rhai script, a RON descriptor, a native Rust module)
//! implements [`Game`]: the rules, in eleven methods, and one accessor for what it can do
//! beyond them ([`capability`]: decomposition, closed forms, hints, the page's view, tiers,
//! keys, copies for other threads), each with its fallback written once in [`GameExt`]. The
//! solvers in [`crate::solve`] know nothing else about a game.
//!
//! The files, lowest first: `value.rs` (the shared words: values, errors, metadata),
//! `packed.rs` and `tier.rs` (positions as keys and by index), `capability.rs`, `rules.rs`
//! (the trait), `misere.rs` (a wrapper).

pub mod capability;
mod misere;
pub mod packed;
mod rules;
pub mod tier;
mod value;

pub use capability::{ClosedForm, Hints, Keys, Split, View};
pub use misere::Misere;
pub use rules::{Capabilities, Game, GameExt, Parallel, Replica, Wire, move_named};
pub use value::{Board, Footprint, GameError, GameInfo, GameResult, Kind, MAX_MOVES, Shortcut, Value};
