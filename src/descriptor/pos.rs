//! The position of a descriptor game, below the files that use it (`mod.rs`, `tiers.rs`, `heap_keys.rs`).

use super::board::BPos;
use super::points::PPos;
use super::stacks::SPos;
use crate::game::Footprint;
use crate::grid::Grid;

/// A position of a descriptor game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DPos {
    Heaps(Vec<u64>),
    /// Chomp: column heights.
    Heights(Vec<u64>),
    Grid(Grid),
    /// A toggle puzzle: the board, and the first cell that may still be pressed (presses
    /// commute and two cancel, so a solution presses cells in order, each at most once).
    Lights(Grid, usize),
    /// A board game (`board/`): two bitboards.
    Board(BPos),
    /// A game on points joined by lines (`points/`).
    Points(PPos),
    /// Pieces of several sizes that stack (`stacks.rs`).
    Stacks(SPos),
}

impl Footprint for DPos {
    fn heap_bytes(&self) -> usize {
        match self {
            // By length, not capacity: a copy (one that crossed threads) is counted the same.
            DPos::Heaps(v) | DPos::Heights(v) => v.len() * 8,
            DPos::Grid(g) | DPos::Lights(g, _) => g.heap_bytes(),
            DPos::Board(_) | DPos::Points(_) | DPos::Stacks(_) => 0,
        }
    }
}
