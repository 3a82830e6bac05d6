//! Packed positions: an optional capability of a puzzle, for a faster search.
//!
//! A game whose positions (those reachable from a given root) fit in 128 bits offers a
//! [`Packed`] space through [`crate::game::Game::packed`]: each position as a `u128` key,
//! its children and its end computed on keys, natively, and, where the positions can be
//! numbered densely, each key's **index** in `0..size` (the 8-puzzle: the rank of its
//! permutation, 9! indices; peg solitaire: the set of holes with pegs, 2^cells; the Tower of
//! Hanoi: each disc's peg, pegs^discs). The puzzle solvers then keep a flat array indexed by
//! position instead of a hash table of positions (`src/solve/puzzle.rs`), or, where there is
//! no index or the array would not fit, a hash table of keys.
//!
//! Fallback (`None`, the default): the solvers work on the game's own positions through
//! `moves`, `play` and `primitive`, with a hash table of positions.

use super::Value;

/// The positions reachable from one root, packed (see the module's documentation).
///
/// The contract, which the solvers rely on: every position reachable from the root packs;
/// `unpack(pack(p)) == p`; [`Packed::children`] lists the keys of `Game::children` in the
/// same order (one a move, repeats kept), and [`Packed::primitive`] is `Game::primitive`; two
/// positions have the same index only when they are the same position.
pub trait Packed<P> {
    /// Indices run over `0..size`; `None` when the game does not number its positions (or
    /// there would be more than 2^64).
    fn size(&self) -> Option<u64>;
    /// The key of `pos`, a position reachable from the root.
    fn pack(&self, pos: &P) -> u128;
    /// The position of a key.
    fn unpack(&self, key: u128) -> P;
    /// The index of a key, below [`Packed::size`] (unused when there is no size).
    fn index(&self, key: u128) -> u64;
    /// The keys of the positions one move away, one a move, in the order of the game's moves
    /// (pushed on `out`, which arrives empty).
    fn children(&self, key: u128, out: &mut Vec<u128>);
    /// The value of the position for the player to move if the game is over there.
    fn primitive(&self, key: u128) -> Option<Value>;
    /// How many symmetries the rules keep, the identity included: transforms that map every
    /// position onto one with the same ends and the images of its children as its children.
    /// The default, 1, is no symmetry (the fallback: every position searched as it is).
    fn symmetries(&self) -> usize {
        1
    }
    /// The key of the image of `key`'s position under symmetry `t` (below
    /// [`Packed::symmetries`]; 0 is the identity).
    fn image(&self, key: u128, _t: usize) -> u128 {
        key
    }
}
