//! Board games as descriptors (`rules: Board(...)`): pieces placed on a rectangle or a Hex
//! rhombus (optionally falling, as in Connect-Four), dominoes placed across or down, and the
//! ends k in a row, a chain between the owner's sides, a full board (a tie) and no move (a
//! loss, or a win under misère play). Pieces that move (`moving.rs`): a
//! piece stepping in its owner's directions, maybe off the board (Dodgem); a peg jumping over
//! another and removing it, on a rectangle or a triangle (peg solitaire); a tile sliding into
//! the blank (the 8-puzzle); the top disc moving between pegs (the Tower of Hanoi); with the
//! ends "all of a player's pieces gone", a goal position and "n pieces left". See
//! `docs/descriptors.md`.
//!
//! Executed natively: a position is two bitboards in a `u128`, cell (r, c) at bit
//! `r * (cols + 1) + c` (a guard column of zeros stops lines and dominoes from wrapping round
//! a row), so a move, a line test or a flood fill is a few shifts and masks. A triangle of
//! side n is the lower-left half of an n × n board (cell (r, c) for c ≤ r). Tiles (`Slide`)
//! are labels, 5 bits a cell in reading order, with the blank's index beside them; a Hanoi
//! position is a board of pegs (rows) × discs (columns), bit (p, d) set when disc d + 1 is on
//! peg p.

mod bits;
mod keys;
mod moving;
mod packing;
mod rules;
mod spec;
mod symmetry;
#[cfg(test)]
mod tests;

pub use bits::*;
pub use keys::*;
pub use packing::*;
pub use rules::*;
pub use spec::*;
