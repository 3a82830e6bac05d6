//! Board games as descriptors (`rules: Board(...)`): pieces placed on a rectangle or a Hex
//! rhombus (optionally falling, as in Connect-Four), dominoes placed across or down, and the
//! ends k in a row, a chain between the owner's sides, a full board (a tie) and no move (a
//! loss, or a win under misère play). Pieces that move (the second half of this file): a
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
//!
//! The files, each using only those listed after it: `keys.rs` (pieces placed as keys),
//! `packing.rs` (packed puzzles), `symmetry.rs` (symmetry of boards whose pieces move),
//! `moving.rs` (pieces that move), `place.rs` (placing pieces, text, ends, the square's
//! symmetries), `rules.rs` (the checked rules, positions and moves), `bits.rs` (bitboards),
//! `vocab.rs` (the vocabulary).

mod bits;
mod keys;
mod moving;
mod packing;
mod place;
mod rules;
mod symmetry;
mod vocab;

pub use keys::PieceKeys;
pub use packing::BoardPacking;
pub use rules::{BMove, BPos, BoardRules, MoveSym};
pub use vocab::{BoardEnd, BoardMove, BoardShape, BoardSpec, Orientation, Pieces};
