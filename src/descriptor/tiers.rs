//! Positions by index (tiers) for board descriptors: a two-player board game written as a
//! descriptor (`rules: Board(...)`) is numbered by [`Ranker`], so that `--save` goes
//! through the tier solver and the array database as the native Quixo and Connect-Four do,
//! with nothing in the game's file. See `docs/tiers.md` ("Board descriptors").
//!
//! Which rule sets qualify ([`BoardTiers::new`]): two-player games (partisan or impartial)
//! on a rectangle or a Hex rhombus whose moves are `Place`, `Drop` or `Step`. The rest keep
//! `GameExt::tiers() == None` (the redb store): puzzles (`Jump`, `Slide`, `Hanoi`), dominoes
//! (Domineering: every even set of covered cells would be an index, 16.8 M on 5×5 for its
//! 455,317 reachable positions, and the tier solve took 6.7× the CPU of the redb save; Cram:
//! an impartial sum of regions) and a descriptor with a script `end`.
//!
//! - **Tier** = the board's size and k, the count of each player's pieces (one count when
//!   the pieces are shared), and the player to move (so a tier never holds both turns, and
//!   no index is spent on a turn the counts rule out) — except for `Step`, where a move
//!   keeps the counts and the turn changes: there the turn is the low bit of the index.
//! - **Index** = the [`Ranker`] rank of the pieces over the board's cells (a multinomial:
//!   every arrangement of the tier's counts is an index). With gravity (`Drop`) only boards
//!   that obey it are numbered: the rank of the column heights among every way n pieces fill
//!   the columns, times C(n, #first player's), plus the rank of which of the pieces (read
//!   column by column from the bottom) are the first player's.
//! - **Child tiers**: `Place` and `Drop` one more of the mover's pieces; `Step` with `off: true` one fewer of either player's pieces (a step on
//!   the board stays in the tier).
//! - **Symmetry**: the descriptor's own canonical form (the symmetries `BoardRules` keeps),
//!   as `canonical_index`.
//! - **Sizes**: a board of more than 64 cells has no index; its position falls in a tier
//!   that says so and whose size (2^64 − 1) every save refuses with one line.

use super::board::{BPos, BoardMove, BoardRules, BoardShape, Orientation, Pieces};
use super::pos::DPos;
use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};
use crate::game::{Kind, Value};
use std::sync::OnceLock;

/// The most cells a board numbered by tiers may have (the [`Ranker`]'s limit).
pub const MAX_TIER_CELLS: u32 = 64;

/// The tier of a board too big to number (with its size in the low bits, for messages).
const BIG: Tier = 1 << 63;

/// Positions by index for a board descriptor (see the module's documentation).
pub struct BoardTiers {
    /// This numbering's own number, for the thread-local memory of the last position (an
    /// address could be reused by another game's numbering after this one is dropped).
    id: usize,
    rules: BoardRules,
    /// `Drop`: boards numbered by their column heights.
    gravity: bool,
    /// `Step`: the turn is the index's low bit.
    turn_in_index: bool,
    /// Each player's own pieces (two kinds); otherwise one shared kind.
    own: bool,
    /// A ranker for each number of cells (made when first needed).
    rankers: Vec<OnceLock<Ranker>>,
    /// `Drop`: for boards `h` rows high, in how many ways `m` pieces fill `w` columns (each
    /// at most `h`): `fill[h][w * 65 + m]`.
    fill: Vec<OnceLock<Vec<u64>>>,
}

/// The parts of a tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parts {
    rows: u8,
    cols: u8,
    k: u8,
    /// The first player's pieces (or the shared ones, or the covered cells).
    na: u32,
    /// The second player's pieces (0 when shared).
    nb: u32,
    /// The player to move (0 when the turn is in the index, or the game impartial).
    turn: u8,
}

fn tier_of(p: Parts) -> Tier {
    (p.na as u64)
        | (p.nb as u64) << 7
        | (p.turn as u64 & 1) << 14
        | (p.k as u64 & 31) << 15
        | (p.cols as u64) << 20
        | (p.rows as u64) << 28
}

fn parts(t: Tier) -> Parts {
    Parts {
        na: (t & 127) as u32,
        nb: (t >> 7 & 127) as u32,
        turn: (t >> 14 & 1) as u8,
        k: (t >> 15 & 31) as u8,
        cols: (t >> 20 & 255) as u8,
        rows: (t >> 28 & 255) as u8,
    }
}

/// The cells of `x` (bit `r * (cols + 1) + c`, a guard bit a row) packed row by row
/// (bit `r * cols + c`).
fn pack(x: u128, rows: u8, cols: u8) -> u64 {
    let (w, cols) = (cols as usize + 1, cols as usize);
    let row = (1u128 << cols) - 1;
    (0..rows as usize)
        .fold(0u64, |m, r| m | ((((x >> (r * w)) & row) as u64).checked_shl((r * cols) as u32).unwrap_or(0)))
}

/// The inverse of [`pack`].
fn unpack(x: u64, rows: u8, cols: u8) -> u128 {
    let (w, cols) = (cols as usize + 1, cols as usize);
    let row = ((1u128 << cols) - 1) as u64;
    (0..rows as usize)
        .fold(0u128, |m, r| m | (u128::from(x.checked_shr((r * cols) as u32).unwrap_or(0) & row) << (r * w)))
}

thread_local! {
    /// The last position unranked on this thread (by which `BoardTiers`' id, tier and index):
    /// the solver asks `canonical_index`, `primitive_at` and `children_at` of one index in
    /// a row, and unranking is a good part of the cost.
    static LAST: std::cell::Cell<Option<(usize, Tier, u64, BPos)>> = const { std::cell::Cell::new(None) };
}

impl BoardTiers {
    /// Positions by index for `rules`, or why they have none (a sentence for the docs and
    /// messages). A descriptor with a script `end` is refused by the caller.
    pub fn new(rules: &BoardRules) -> Result<BoardTiers, String> {
        if rules.kind == Kind::Puzzle {
            return Err("a puzzle (Jump, Slide, Hanoi) has no tiers: it is saved in the redb store".into());
        }
        if !matches!(rules.shape, BoardShape::Rectangle | BoardShape::Hex) {
            return Err("only rectangles and Hex boards are numbered by tiers".into());
        }
        match rules.moves {
            BoardMove::Place | BoardMove::Drop | BoardMove::Step { .. } => {}
            BoardMove::Domino(Orientation::PerPlayer) => {
                return Err("Domineering has no tiers: every even set of covered cells would be an index (16.8 M \
                            on 5×5 for 455,317 reachable positions), slower than the redb store it is saved in"
                    .into());
            }
            BoardMove::Domino(Orientation::Either) => {
                return Err("Cram (dominoes either way) is a sum of regions whose Grundy values the arrays do not \
                            hold: it is saved in the redb store"
                    .into());
            }
            _ => return Err("these moves have no tiers".into()),
        }
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
        Ok(BoardTiers {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            gravity: rules.moves == BoardMove::Drop,
            turn_in_index: matches!(rules.moves, BoardMove::Step { .. }),
            own: rules.pieces == Pieces::Own,
            rules: rules.clone(),
            rankers: (0..=MAX_TIER_CELLS).map(|_| OnceLock::new()).collect(),
            fill: (0..=MAX_TIER_CELLS).map(|_| OnceLock::new()).collect(),
        })
    }

    fn ranker(&self, cells: u32) -> &Ranker {
        self.rankers[cells as usize].get_or_init(|| Ranker::new(cells))
    }

    fn fill(&self, h: u8) -> &[u64] {
        self.fill[h as usize].get_or_init(|| crate::game::tier::column_fills(h as usize, MAX_TIER_CELLS as usize + 1))
    }

    /// The counts and turn of `p` as a tier's parts.
    fn parts_of(&self, p: &BPos) -> Parts {
        Parts {
            rows: p.rows,
            cols: p.cols,
            k: p.k,
            na: p.a.count_ones(),
            nb: if self.own { p.b.count_ones() } else { 0 },
            turn: if self.turn_in_index { 0 } else { p.turn },
        }
    }

    fn cells(rows: u8, cols: u8) -> u32 {
        rows as u32 * cols as u32
    }

    /// The tier of a board too big to number.
    fn big(rows: u8, cols: u8) -> Tier {
        BIG | (rows as u64) << 8 | cols as u64
    }

    /// The index of `p` in its tier (whose parts are `t`).
    fn index(&self, t: &Parts, p: &BPos) -> u64 {
        let cells = Self::cells(p.rows, p.cols);
        if self.gravity {
            let (heights, a_slots) = self.slots(p);
            let n = t.na + t.nb;
            let colours = self.ranker(MAX_TIER_CELLS).choose(n, t.na);
            let shapes = self.heights_rank(p.rows, p.cols, &heights, n);
            let colour = self.ranker(MAX_TIER_CELLS).rank(&[a_slots]);
            return shapes.saturating_mul(colours).saturating_add(colour);
        }
        let a = pack(p.a, p.rows, p.cols);
        let rank = if self.own {
            self.ranker(cells).rank(&[a, pack(p.b, p.rows, p.cols)])
        } else {
            self.ranker(cells).rank(&[a])
        };
        if self.turn_in_index { rank.saturating_mul(2) + (p.turn as u64 & 1) } else { rank }
    }

    /// A gravity board's column heights, and which of its pieces (column by column from the
    /// left, each from the bottom) are the first player's.
    fn slots(&self, p: &BPos) -> ([u32; 64], u64) {
        let w = p.cols as usize + 1;
        let mut heights = [0u32; 64];
        let mut a_slots = 0u64;
        let mut j = 0;
        for (c, height) in heights.iter_mut().enumerate().take(p.cols as usize) {
            for level in 0..p.rows as usize {
                let bit = 1u128 << ((p.rows as usize - 1 - level) * w + c);
                if (p.a | p.b) & bit == 0 {
                    break;
                }
                if p.a & bit != 0 {
                    a_slots |= 1 << j;
                }
                *height += 1;
                j += 1;
            }
        }
        (heights, a_slots)
    }

    fn heights_rank(&self, rows: u8, cols: u8, heights: &[u32], n: u32) -> u64 {
        let f = self.fill(rows);
        let mut rank = 0u64;
        let mut left = n;
        for (c, &h) in heights.iter().enumerate().take(cols as usize) {
            let rest = cols as usize - 1 - c;
            for v in 0..h {
                rank = rank.saturating_add(f[rest * 65 + (left - v) as usize]);
            }
            left -= h;
        }
        rank
    }

    fn heights_unrank(&self, rows: u8, cols: u8, mut index: u64, n: u32) -> [u32; 64] {
        let f = self.fill(rows);
        let mut heights = [0u32; 64];
        let mut left = n;
        for (c, height) in heights.iter_mut().enumerate().take(cols as usize) {
            let rest = cols as usize - 1 - c;
            let mut v = 0;
            while v < rows as u32 && v < left {
                let count = f[rest * 65 + (left - v) as usize];
                if index < count {
                    break;
                }
                index -= count;
                v += 1;
            }
            *height = v;
            left -= v;
        }
        heights
    }

    /// The position at `index` of the tier with parts `t` (of at most 64 cells).
    fn unrank(&self, t: &Parts, index: u64) -> BPos {
        let (rows, cols) = (t.rows, t.cols);
        let mut p = BPos { rows, cols, a: 0, b: 0, k: t.k, turn: t.turn };
        if self.gravity {
            let n = t.na + t.nb;
            let colours = self.ranker(MAX_TIER_CELLS).choose(n, t.na).max(1);
            let heights = self.heights_unrank(rows, cols, index / colours, n);
            let mut a_slots = [0u64];
            self.ranker(MAX_TIER_CELLS).unrank(&[t.na], index % colours, &mut a_slots);
            let w = cols as usize + 1;
            let mut j = 0;
            for (c, &h) in heights.iter().enumerate().take(cols as usize) {
                for level in 0..h as usize {
                    let bit = 1u128 << ((rows as usize - 1 - level) * w + c);
                    if a_slots[0] >> j & 1 == 1 {
                        p.a |= bit;
                    } else {
                        p.b |= bit;
                    }
                    j += 1;
                }
            }
            return p;
        }
        let cells = Self::cells(rows, cols);
        let (rank, turn) = if self.turn_in_index { (index / 2, (index & 1) as u8) } else { (index, t.turn) };
        p.turn = turn;
        if self.own {
            let mut boards = [0u64; 2];
            self.ranker(cells).unrank(&[t.na, t.nb], rank, &mut boards);
            p.a = unpack(boards[0], rows, cols);
            p.b = unpack(boards[1], rows, cols);
        } else {
            let mut boards = [0u64; 1];
            self.ranker(cells).unrank(&[t.na], rank, &mut boards);
            p.a = unpack(boards[0], rows, cols);
        }
        p
    }

    /// [`BoardTiers::unrank`], remembered for the next question about the same index.
    fn at(&self, tier: Tier, index: u64) -> BPos {
        let me = self.id;
        LAST.with(|last| match last.get() {
            Some((m, t, i, p)) if m == me && t == tier && i == index => p,
            _ => {
                let p = self.pos(tier, index);
                last.set(Some((me, tier, index, p)));
                p
            }
        })
    }

    fn pos(&self, tier: Tier, index: u64) -> BPos {
        if tier & BIG != 0 {
            // No index numbers a board this big: its empty board, for messages only.
            let (rows, cols) = ((tier >> 8 & 255) as u8, (tier & 255) as u8);
            return BPos { rows, cols, a: 0, b: 0, k: 0, turn: 0 };
        }
        self.unrank(&parts(tier), index)
    }

    /// The representative of `p` under the board's symmetries, in the same tier: the
    /// descriptor's canonical form.
    fn canon(&self, p: &BPos) -> BPos {
        self.rules.canonical(p)
    }

    fn place(&self, p: &BPos) -> (Tier, u64) {
        if Self::cells(p.rows, p.cols) > MAX_TIER_CELLS {
            return (Self::big(p.rows, p.cols), 0);
        }
        let t = self.parts_of(p);
        (tier_of(t), self.index(&t, p))
    }
}

impl TierSpace for BoardTiers {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        if tier & BIG != 0 {
            return Vec::new();
        }
        let t = parts(tier);
        let cells = Self::cells(t.rows, t.cols);
        let flip = if self.rules.kind == Kind::Impartial { t.turn } else { t.turn ^ 1 };
        match self.rules.moves {
            BoardMove::Step { .. } => {
                let mut out = Vec::new();
                if self.rules.off {
                    if t.na > 0 {
                        out.push(tier_of(Parts { na: t.na - 1, ..t }));
                    }
                    if t.nb > 0 {
                        out.push(tier_of(Parts { nb: t.nb - 1, ..t }));
                    }
                }
                out
            }
            _ => {
                let add = 1;
                if t.na + t.nb + add > cells {
                    return Vec::new();
                }
                let next = if self.own && t.turn == 1 {
                    Parts { nb: t.nb + add, turn: flip, ..t }
                } else {
                    Parts { na: t.na + add, turn: flip, ..t }
                };
                vec![tier_of(next)]
            }
        }
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        if tier & BIG != 0 {
            return u64::MAX;
        }
        let t = parts(tier);
        let cells = Self::cells(t.rows, t.cols);
        if t.na + t.nb > cells {
            return 0;
        }
        if self.gravity {
            let n = t.na + t.nb;
            let shapes = self.fill(t.rows)[t.cols as usize * 65 + n as usize] as u128;
            let colours = self.ranker(MAX_TIER_CELLS).choose(n, t.na) as u128;
            return u64::try_from(shapes * colours).unwrap_or(u64::MAX);
        }
        let count = if self.own { self.ranker(cells).count(&[t.na, t.nb]) } else { self.ranker(cells).count(&[t.na]) };
        let count = count.unwrap_or(u64::MAX);
        if self.turn_in_index { count.saturating_mul(2) } else { count }
    }

    fn tier_name(&self, tier: Tier) -> String {
        if tier & BIG != 0 {
            let (rows, cols) = (tier >> 8 & 255, tier & 255);
            return format!(
                "{rows}x{cols} ({} cells: positions by index number boards of at most {MAX_TIER_CELLS} cells)",
                rows * cols
            );
        }
        let t = parts(tier);
        let (x, o) = ('X', 'O');
        let size = if t.k != 0 { format!("{}x{}k{}", t.rows, t.cols, t.k) } else { format!("{}x{}", t.rows, t.cols) };
        let counts = if self.own { format!("{x}{} {o}{}", t.na, t.nb) } else { format!("{} {x}", t.na) };
        if self.turn_in_index || self.rules.kind == Kind::Impartial {
            format!("{size} {counts}")
        } else {
            format!("{size} {counts}, {} to move", if t.turn == 0 { "first" } else { "second" })
        }
    }

    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        if tier & BIG != 0 {
            return index;
        }
        let p = self.at(tier, index);
        let c = self.canon(&p);
        if c == p { index } else { self.index(&parts(tier), &c) }
    }

    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        self.rules.primitive(&self.at(tier, index))
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        if self.rules.primitive(&p).is_some() {
            return;
        }
        for c in self.rules.children(&p) {
            out.push(self.place(&self.canon(&c)));
        }
    }

    fn stalemate_value(&self) -> Value {
        if self.rules.misere { Value::Win } else { Value::Lose }
    }
}

impl Tiers for BoardTiers {
    type Pos = DPos;

    fn locate(&self, pos: &DPos) -> (Tier, u64) {
        match pos {
            DPos::Board(p) => self.place(p),
            // Not a board: no tier (a board descriptor has no other positions).
            _ => (Self::big(0, 0), 0),
        }
    }

    fn position(&self, tier: Tier, index: u64) -> DPos {
        DPos::Board(self.pos(tier, index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trips() {
        let mut rng = fastrand::Rng::with_seed(3);
        for (rows, cols) in [(3u8, 3u8), (4, 5), (8, 8), (1, 64), (64, 1), (5, 12)] {
            let full = (1u64.checked_shl(rows as u32 * cols as u32).unwrap_or(0)).wrapping_sub(1);
            for _ in 0..20 {
                let x = rng.u64(..) & full;
                assert_eq!(pack(unpack(x, rows, cols), rows, cols), x);
            }
        }
    }

    #[test]
    fn tier_parts_round_trip() {
        let p = Parts { rows: 8, cols: 8, k: 15, na: 64, nb: 63, turn: 1 };
        assert_eq!(parts(tier_of(p)), p);
        assert_eq!(tier_of(p) & BIG, 0);
    }
}
