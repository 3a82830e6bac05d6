//! Generic solvers over [`Game`](crate::game::Game), and the report that combines them.
//!
//! - [`value`]: win / lose / tie / draw and remoteness (loopy games included).
//! - [`grundy`]: Grundy values with decomposition (`split`) and symmetry (`canonical`).
//! - [`puzzle`]: fewest moves to a solved position.
//! - [`analyzer`]: the answer from the first source that has it, on top of them all.

pub mod analyzer;
mod bounded;
pub mod census;
pub mod consistency;
pub mod explore;
pub mod graph;
pub mod grundy;
pub mod memo;
pub mod nimber;
pub mod part_db;
pub mod puzzle;
pub mod quick;
pub mod reach;
pub mod sequence;
mod solution;
pub mod space;
pub mod strategy;
pub mod tier;
#[cfg(feature = "mpi")]
pub mod tier_mpi;
pub mod value;

pub use analyzer::{Analyzer, DEFAULT_MAX_MEMORY, MoveInfo, NO_MOVES_NOTE, Options, Report, SEARCH_LIMIT, mover_value};
pub use solution::{Solution, check_fanout};
