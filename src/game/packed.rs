//! Packed positions: an optional capability of a puzzle, for a faster search.
//!
//! A game whose positions (those reachable from a given root) fit in 128 bits offers a
//! [`Packed`] space through [`crate::game::Keys::packed`]: each position as a `u128` key,
//! its children and its end computed on keys, natively, and, where the positions can be
//! numbered densely, each key's **index** in `0..size` (the 8-puzzle: the rank of its
//! permutation, 9! indices; peg solitaire: the set of holes with pegs, 2^cells; the Tower of
//! Hanoi: each disc's peg, pegs^discs). The puzzle solvers then keep a flat array indexed by
//! position instead of a hash table of positions (`src/solve/puzzle.rs`), or, where there is
//! no index or the array would not fit, a hash table of keys.
//!
//! Fallback (`None`, the default): the solvers work on the game's own positions through
//! `moves`, `play` and `primitive`, with a hash table of positions.

use super::value::Value;

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

/// An impartial game under normal play whose positions are sums of parts, packed in 64 bits:
/// an optional capability ([`crate::game::Keys::packed_sum`]) for a faster Grundy search.
///
/// A key stands for a position of the game reachable from one root (the same board, say).
/// The game splits a key into its **parts**, each in canonical form (one key for every
/// position equal to it under the game's symmetries, so that equal parts meet in the
/// solver's table), lists a part's children as keys (sums again, not canonical), and counts
/// a part's moves. The nimber search (`src/solve/nimber.rs`) then runs on keys with a
/// table of `u64`, natively, where the fallback asks `split`, `canonical`, `children` and
/// `move_count` of the game's own positions.
///
/// The contract, which the solver relies on: the Grundy value of a key is the XOR of its
/// parts' values; a part's children are the game's positions one move away from it (one a
/// move; repeats allowed); a part has no moves exactly when [`PackedSum::move_count`] is 0;
/// every play ends (no key recurs on a line of play). A part whose Grundy value is 0 for a
/// reason the game knows (a lone cell of a domino board) may be left out of the parts.
///
/// Fallback (`None`, the default): the search works on the game's own positions.
pub trait PackedSum<P> {
    /// The key of `pos`, a position reachable from the root; `None` when it does not pack
    /// into this space (another board).
    fn pack(&self, pos: &P) -> Option<u64>;
    /// A position of the game for a key (any key: a sum or a part).
    fn unpack(&self, key: u64) -> P;
    /// The parts of the position `key`, canonical, pushed on `out`.
    fn parts(&self, key: u64, out: &mut Vec<u64>);
    /// The positions one move away from the part `key`, pushed on `out`.
    fn children(&self, key: u64, out: &mut Vec<u64>);
    /// How many moves the part `key` has.
    fn move_count(&self, key: u64) -> u32;
    /// The parts within a bound the user names (`text`, e.g. `4x8` for Cram: every part that
    /// fits in 4 rows and 8 columns), for an endgame database of their nimbers built once and
    /// kept on disk (`src/solve/part_db.rs`); `Err` with a clear message for a bound the game
    /// cannot use. Fallback (`None`, the default): no endgame database, the search as it is.
    fn parts_within(&self, _text: &str) -> Option<Result<Box<dyn PartBox>, String>> {
        None
    }
}

/// The canonical parts within a bound ([`PackedSum::parts_within`]): every key below
/// `2^bits` that is a part, in key order.
///
/// The contract, which the endgame database relies on: a key `k` below `2^bits` is a
/// canonical part exactly when [`PartBox::is_part`] says so, and then
/// [`PackedSum::parts`] of `k` is `k` alone; every key [`PackedSum::parts`] gives below
/// `2^bits` is such a part (so a table of them all answers every part below the bound: the
/// test of membership is `key < 2^bits`); every part of every child of a part is a smaller
/// key on a lower [`PartBox::level`] (so the table can be filled level by level, each
/// nimber the mex of its children's).
pub trait PartBox: Send + Sync {
    /// Every part within the bound has a key below `2^bits` (at most 32).
    fn bits(&self) -> u32;
    /// The bound as the game names it (`4x8`), and the key space it holds for (the boards
    /// whose parts within the bound have the same keys: for Cram, every board as wide):
    /// together, the file's identity beside the game's.
    fn name(&self) -> String;
    fn space(&self) -> String;
    /// Is `key` (below `2^bits`) a canonical part?
    fn is_part(&self, key: u64) -> bool;
    /// A part's level: every part of every child of a part is on a lower level (the table is
    /// filled a level at a time, each level in parallel).
    fn level(&self, key: u64) -> u32;
    /// The positions one move away from the part `key` (as [`PackedSum::children`]).
    fn children(&self, key: u64, out: &mut Vec<u64>);
    /// The parts of `key` (as [`PackedSum::parts`]).
    fn parts(&self, key: u64, out: &mut Vec<u64>);
}

/// A two-player game's positions reachable from one root, packed in 128 bits: an optional
/// capability ([`crate::game::Keys::packed_play`]) for the searches of value and remoteness
/// on keys, natively, with tables of keys: the full search (`src/solve/value.rs`) and the
/// value-first search with its depth-bounded remoteness searches (`src/solve/quick.rs`), each
/// run over the keys (`KeySpace` in `src/solve/space.rs`) where the game packs its positions,
/// and over the game's own positions otherwise. The value-first search tries children in the
/// order [`PackedPlay::children`] lists them among those with as many replies: a game lists
/// them as its `children` does (the board's centre first).
///
/// The contract, which the solver relies on: a key stands for one position (up to the
/// game's symmetries, for a canonical key); [`PackedPlay::children`] lists the keys of the
/// positions one move away (one a move, any order, repeats allowed, not necessarily
/// canonical); [`PackedPlay::primitive`] is `Game::primitive`, and a key that is not
/// primitive and has no children has the value `Game::stalemate`;
/// [`PackedPlay::canonical`] maps a key to one with the same value and remoteness (one key
/// for all the positions equal under the symmetries the game uses, so that they meet in the
/// table); every play ends (no key recurs on a line of play: pieces placed, dominoes laid).
///
/// Fallback (`None`, the default): the full search works on the game's own positions.
pub trait PackedPlay<P> {
    /// The key of `pos`; `None` when it does not pack into this space (another board).
    fn pack(&self, pos: &P) -> Option<u128>;
    /// A position of the game for a key.
    fn unpack(&self, key: u128) -> P;
    /// The representative of the keys equal to `key` under the game's symmetries.
    fn canonical(&self, key: u128) -> u128;
    /// The keys of the positions one move away, pushed on `out`.
    fn children(&self, key: u128, out: &mut Vec<u128>);
    /// The value of the position for the player to move if the game is over there.
    fn primitive(&self, key: u128) -> Option<Value>;
    /// How many keys [`PackedPlay::children`] lists for `key`: the value-first search tries
    /// the children with the fewest replies first, and uses this count for nothing else. The
    /// default lists them and counts; a game overrides it where counting is cheaper, or to
    /// weigh some replies more (games on points with an `order`).
    fn move_count(&self, key: u128) -> u32 {
        let mut out = Vec::new();
        self.children(key, &mut out);
        out.len() as u32
    }
    /// Does each key stand for exactly one of the game's positions, and
    /// [`PackedPlay::children`] list the keys of `Game::children`, in order (none sorted or
    /// canonical)? Then `analyze` explores the keys ([`PlayAsPacked`]). The default, `false`:
    /// it explores the game's own positions.
    fn exact(&self) -> bool {
        false
    }
}

/// A two-player game's exact keys ([`PackedPlay::exact`]) seen as a [`Packed`] space with no
/// index and no symmetry: what lets the whole-graph census (`analyze`) run on keys, as a
/// puzzle's runs on [`Packed`]. Built only where the root packs.
pub struct PlayAsPacked<P>(Box<dyn PackedPlay<P>>);

impl<P> PlayAsPacked<P> {
    /// `play` as a [`Packed`] space, where its keys are exact and `root` packs in it.
    pub fn new(play: Box<dyn PackedPlay<P>>, root: &P) -> Option<Self> {
        (play.exact() && play.pack(root).is_some()).then_some(PlayAsPacked(play))
    }
}

impl<P> Packed<P> for PlayAsPacked<P> {
    fn size(&self) -> Option<u64> {
        None
    }
    /// Only the root is packed (the census works on keys from there), and it packs.
    fn pack(&self, pos: &P) -> u128 {
        self.0.pack(pos).expect("a position reachable from the root, which packs")
    }
    fn unpack(&self, key: u128) -> P {
        self.0.unpack(key)
    }
    fn index(&self, _key: u128) -> u64 {
        0
    }
    fn children(&self, key: u128, out: &mut Vec<u128>) {
        self.0.children(key, out)
    }
    fn primitive(&self, key: u128) -> Option<Value> {
        self.0.primitive(key)
    }
}
