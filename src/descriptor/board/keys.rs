//! Pieces placed or dropped as 128-bit keys, for the full search (`PieceKeys`, for
//! `src/game/packed.rs`).

use super::bits::{centre_first, full_mask};
use super::rules::{BPos, BoardRules};
use super::vocab::{BoardMove, Pieces};
use crate::game::{Kind, Value};

// --- Pieces placed or dropped as keys, for the full search (src/game/packed.rs) -----------

/// The positions of a board of pieces placed or dropped (tic-tac-toe, Hex, Connect-Four,
/// Notakto) reachable from one root, as 128-bit keys: the first player's (or the shared)
/// bitboard in the low `n` bits, the second player's above it, the turn in bit `2n` (`n` the
/// board's bits, a guard column included). Children are listed on keys; the ends and the
/// symmetries are the board's own (`primitive`, `canonical`), on the position of the key.
#[derive(Clone)]
pub struct PieceKeys {
    rules: BoardRules,
    proto: BPos,
    n: u32,
    mask: u128,
    /// The cells of the board, and the player who is to move after a move (the turn
    /// toggled, or kept in an impartial game).
    full: u128,
    toggle: u128,
    /// The cells nearest the centre first (as `BoardRules::children` lists its children).
    order: Vec<u8>,
}

impl BoardRules {
    /// The keys of the positions of `root`'s board, for pieces placed or dropped with no more
    /// than 63 bits a board (a row's cells and a guard bit each: 7x8 but not 8x7; Hex 7x7);
    /// `None` for the rest.
    pub fn piece_keys(&self, root: &BPos) -> Option<PieceKeys> {
        if !matches!(self.moves, BoardMove::Place | BoardMove::Drop) || self.moving() {
            return None;
        }
        let n = root.rows as u32 * (root.cols as u32 + 1);
        if 2 * n + 1 > 128 {
            return None;
        }
        let toggle = if self.kind == Kind::Impartial { 0 } else { 1u128 << (2 * n) };
        let mut order = Vec::new();
        centre_first(self.shape, root.rows, root.cols, self.moves == BoardMove::Drop, |o| order.extend_from_slice(o));
        Some(PieceKeys {
            order,
            rules: self.clone(),
            proto: BPos { a: 0, b: 0, turn: 0, ..*root },
            n,
            mask: (1u128 << n) - 1,
            full: full_mask(root.rows, root.cols),
            toggle,
        })
    }
}

impl PieceKeys {
    pub fn pack(&self, p: &BPos) -> Option<u128> {
        if (p.rows, p.cols, p.k) != (self.proto.rows, self.proto.cols, self.proto.k) {
            return None;
        }
        Some(p.a | p.b << self.n | u128::from(p.turn & 1) << (2 * self.n))
    }

    pub fn unpack(&self, key: u128) -> BPos {
        BPos { a: key & self.mask, b: (key >> self.n) & self.mask, turn: (key >> (2 * self.n)) as u8 & 1, ..self.proto }
    }

    pub fn canonical(&self, key: u128) -> u128 {
        let p = self.rules.canonical(&self.unpack(key));
        p.a | p.b << self.n | u128::from(p.turn) << (2 * self.n)
    }

    /// The cells a piece may go to.
    fn targets(&self, key: u128) -> u128 {
        let (a, b) = (key & self.mask, (key >> self.n) & self.mask);
        let empty = self.full & !(a | b);
        let w = self.proto.cols as usize + 1;
        if self.rules.moves == BoardMove::Drop { empty & !(empty >> w) } else { empty }
    }

    /// The keys one move away, nearest the centre first (as `BoardRules::children` lists
    /// them: the value-first search tries them in this order among equals).
    pub fn children(&self, key: u128, out: &mut Vec<u128>) {
        let targets = self.targets(key);
        let second = self.rules.pieces == Pieces::Own && (key >> (2 * self.n)) & 1 == 1;
        let shift = if second { self.n } else { 0 };
        for &i in &self.order {
            if targets >> i & 1 != 0 {
                out.push((key | 1u128 << (u32::from(i) + shift)) ^ self.toggle);
            }
        }
    }

    /// How many keys [`PieceKeys::children`] lists.
    pub fn move_count(&self, key: u128) -> u32 {
        self.targets(key).count_ones()
    }

    pub fn primitive(&self, key: u128) -> Option<Value> {
        self.rules.primitive(&self.unpack(key))
    }
}
