//! Connect-Four with gravity (Connect-k on any board of up to 64 cells): bitboards, the
//! left–right mirror, and positions by index (tiers), so that the tier solver solves a
//! board whole.
//!
//! Rules (as `games/connect4.rhai`): X and O take turns dropping a piece into a column that
//! is not full; it falls to the lowest empty cell. Whoever has just made k in a row (across,
//! down or diagonally) has won: the player to move has lost. A full board without that is a
//! tie. X moves first, so whose turn it is follows from the number of pieces.
//!
//! Position text (as the script's and the descriptor's): `RxCkK` (R rows, C columns, k) and
//! then the rows from the top, each C cells of `x`, `o` or `.`, rows separated by `/`:
//! `4x5k4/...../...../..o../..x..`. `4x5k4` alone is the empty board; `4x5` alone is
//! Connect-Four (k = 4). So `4x6` is the board Tromp calls width 6, height 4.
//!
//! Tiers: the number of pieces played (which says how many are X's and how many O's). A
//! position's index in its tier is, mixed radix, the rank of its column heights among all
//! the ways `n` pieces fill the columns (each at most R high) and the rank of its colouring:
//! the pieces read column by column from the bottom, the set of those that are X ranked
//! among the C(n, ⌈n/2⌉) such sets ([`Ranker`]). Every index of a tier is thus a board
//! that obeys gravity and holds ⌈n/2⌉ X's and ⌊n/2⌋ O's, and every such board has exactly
//! one index; no others (a piece floating, counts X could not have) are in the index space.
//!
//! Positions no game reaches are numbered too (a board where both players have k in a row,
//! or where the play went on after a line): the solver solves them by the same rules as
//! every other position, which are the script's: the position is lost for the player to
//! move if the *other* player has k in a row (whatever the player to move has), else a tie
//! if the board is full, else play goes on (so a line of the player to move alone, which
//! no game makes, does not end the game). Their records are in the arrays; no game from a
//! reachable position meets them.

use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};
use crate::game::{
    Board, Capabilities, Footprint, Game, GameError, GameInfo, GameResult, Hints, Kind, Parallel, Replica, Value, View,
};
use std::sync::{Arc, OnceLock};

/// The most cells a board may have (as the script).
pub const MAX_CELLS: u32 = 64;

/// A position: the board's size, k, and a bitboard a player, column by column from the
/// left, each column `rows + 1` bits from the bottom (the top bit always empty, so that
/// lines do not wrap from one column to the next).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct C4Pos {
    pub rows: u8,
    pub cols: u8,
    pub k: u8,
    pub x: u128,
    pub o: u128,
}

impl Footprint for C4Pos {}

impl C4Pos {
    fn stride(&self) -> u32 {
        self.rows as u32 + 1
    }

    fn pieces(&self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// 0 when X is to move, 1 for O.
    fn turn(&self) -> u32 {
        self.pieces() & 1
    }

    fn column_mask(&self) -> u128 {
        (1u128 << self.rows) - 1
    }

    /// How many pieces column `c` holds.
    fn height(&self, c: u32) -> u32 {
        (((self.x | self.o) >> (c * self.stride())) & self.column_mask()).count_ones()
    }

    /// The cell (row from the top, column) as 0 (empty), 1 (X) or 2 (O).
    fn cell(&self, r: u32, c: u32) -> u8 {
        let bit = 1u128 << (c * self.stride() + (self.rows as u32 - 1 - r));
        if self.x & bit != 0 {
            1
        } else if self.o & bit != 0 {
            2
        } else {
            0
        }
    }

    /// The board seen in a mirror (columns right to left).
    fn mirror(&self) -> C4Pos {
        let s = self.stride();
        let m = self.column_mask();
        let cols = self.cols as u32;
        let (mut x, mut o) = (0u128, 0u128);
        for c in 0..cols {
            let d = (cols - 1 - c) * s;
            x |= ((self.x >> (c * s)) & m) << d;
            o |= ((self.o >> (c * s)) & m) << d;
        }
        C4Pos { x, o, ..*self }
    }

    /// Has `b` k pieces in a row anywhere?
    fn line(&self, b: u128) -> bool {
        let k = self.k as u32;
        if k == 1 {
            return b != 0;
        }
        if k > self.rows.max(self.cols) as u32 {
            return false;
        }
        let s = self.stride();
        // Up a column, along a row, and the two diagonals.
        for shift in [1, s, s - 1, s + 1] {
            let mut m = b;
            for i in 1..k {
                m &= b.checked_shr(i * shift).unwrap_or(0);
                if m == 0 {
                    break;
                }
            }
            if m != 0 {
                return true;
            }
        }
        false
    }

    fn primitive(&self) -> Option<Value> {
        let them = if self.turn() == 0 { self.o } else { self.x };
        if self.line(them) {
            Some(Value::Lose)
        } else if self.pieces() == self.rows as u32 * self.cols as u32 {
            Some(Value::Tie)
        } else {
            None
        }
    }

    /// The columns (from 0) that are not full.
    fn open_columns(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.cols as u32).filter(move |&c| self.height(c) < self.rows as u32)
    }

    /// The position after a piece is dropped into column `c` (which is not full).
    fn drop(&self, c: u32) -> C4Pos {
        let bit = 1u128 << (c * self.stride() + self.height(c));
        if self.turn() == 0 { C4Pos { x: self.x | bit, ..*self } } else { C4Pos { o: self.o | bit, ..*self } }
    }
}

/// A tier: the board's size and k, and the number of pieces played.
fn tier_of(rows: u8, cols: u8, k: u8, pieces: u32) -> Tier {
    ((rows as u64) << 24) | ((cols as u64) << 16) | ((k as u64) << 8) | pieces as u64
}

fn tier_parts(t: Tier) -> (u8, u8, u8, u32) {
    ((t >> 24 & 255) as u8, (t >> 16 & 255) as u8, (t >> 8 & 255) as u8, (t & 255) as u32)
}

/// The counting tables: for boards `h` rows high, in how many ways `m` pieces fill `w`
/// columns (each at most `h`): `fill(h)[w * 65 + m]`, saturating at 2^64 − 1. Made when a
/// height is first asked for.
struct Tables {
    fill: Vec<OnceLock<Vec<u64>>>,
    ranker: Ranker,
}

impl Tables {
    fn new() -> Tables {
        Tables { fill: (0..=MAX_CELLS).map(|_| OnceLock::new()).collect(), ranker: Ranker::new(MAX_CELLS) }
    }

    fn fill(&self, h: u8) -> &[u64] {
        self.fill[h as usize].get_or_init(|| crate::game::tier::column_fills(h as usize, MAX_CELLS as usize + 1))
    }

    /// How many boards of `rows` × `cols` hold `pieces` pieces (obeying gravity, the counts
    /// of X and O fixed by `pieces`); `u64::MAX` when that passes 2^64 − 1.
    fn size(&self, rows: u8, cols: u8, pieces: u32) -> u64 {
        if pieces > rows as u32 * cols as u32 {
            return 0;
        }
        let shapes = self.fill(rows)[cols as usize * 65 + pieces as usize] as u128;
        let colours = self.ranker.choose(pieces, pieces.div_ceil(2)) as u128;
        u64::try_from(shapes * colours).unwrap_or(u64::MAX)
    }

    /// The index of `p` in its tier (`u64::MAX` on a board whose tiers pass 2^64 indices,
    /// which no solve ever holds: the solver refuses tiers over 2^32).
    fn index(&self, p: &C4Pos) -> u64 {
        let fill = self.fill(p.rows);
        let cols = p.cols as u32;
        let s = p.stride();
        let n = p.pieces();
        let mut left = n;
        let mut shape: u128 = 0;
        let mut seq = 0u64;
        let mut off = 0;
        for c in 0..cols {
            let h = p.height(c);
            let rest = (cols - 1 - c) as usize * 65;
            for v in 0..h {
                shape += fill[rest + (left - v) as usize] as u128;
            }
            left -= h;
            let bits = (p.x >> (c * s)) & ((1u128 << h) - 1);
            seq |= (bits as u64) << off;
            off += h;
        }
        let colours = self.ranker.choose(n, n.div_ceil(2)) as u128;
        let i = shape * colours + self.ranker.rank(&[seq]) as u128;
        u64::try_from(i).unwrap_or(u64::MAX)
    }

    /// The position at `index` of `tier` (an index past the tier's size gives some board of
    /// the tier's size, not an error: the solver never asks for one).
    fn position(&self, tier: Tier, index: u64) -> C4Pos {
        let (rows, cols, k, n) = tier_parts(tier);
        let fill = self.fill(rows);
        let nx = n.div_ceil(2);
        let colours = self.ranker.choose(n, nx).max(1);
        let (mut shape, colour) = (index / colours, index % colours);
        let mut seq = [0u64];
        self.ranker.unrank(&[nx], colour, &mut seq);
        let s = rows as u32 + 1;
        let (mut x, mut o) = (0u128, 0u128);
        let mut left = n;
        let mut off = 0;
        for c in 0..cols as u32 {
            let rest = (cols as u32 - 1 - c) as usize * 65;
            let mut h = 0u32;
            while h < rows as u32 && h < left {
                let ways = fill[rest + (left - h) as usize];
                if shape < ways {
                    break;
                }
                shape -= ways;
                h += 1;
            }
            let mask = (1u128 << h) - 1;
            let bits = seq[0].checked_shr(off).unwrap_or(0) as u128 & mask;
            x |= bits << (c * s);
            o |= (!bits & mask) << (c * s);
            off += h;
            left -= h;
        }
        C4Pos { rows, cols, k, x, o }
    }
}

/// Connect-k with gravity on every board of up to 64 cells.
#[derive(Clone)]
pub struct Connect4 {
    info: GameInfo,
    tables: Arc<Tables>,
}

impl Connect4 {
    pub fn new(mut info: GameInfo) -> Connect4 {
        info.kind = Kind::Partisan;
        Connect4 { info, tables: Arc::new(Tables::new()) }
    }

    fn empty(rows: u8, cols: u8, k: u8) -> C4Pos {
        C4Pos { rows, cols, k, x: 0, o: 0 }
    }

    fn index(&self, p: &C4Pos) -> u64 {
        self.tables.index(p)
    }

    /// The representative of `p` and its mirror image: the one with the lower index (the
    /// lower bitboards when the indices are equal or out of range).
    fn canon(&self, p: &C4Pos) -> (C4Pos, u64) {
        let m = p.mirror();
        let (a, b) = (self.index(p), self.index(&m));
        if (b, m.x, m.o) < (a, p.x, p.o) { (m, b) } else { (*p, a) }
    }
}

/// The size and k of a position's head: `RxC` or `RxCkK`.
fn parse_head(head: &str) -> GameResult<(u8, u8, u8)> {
    let bad = |why: String| GameError::BadPosition(why);
    let usage = || {
        bad(format!(
            "a position starts with its size and k, such as 4x5k4 (4 rows, 5 columns, four in a row), or 4x5 for k = 4 \
             (got {head:?})"
        ))
    };
    let (r, rest) = head.split_once('x').ok_or_else(usage)?;
    let (c, k) = match rest.split_once('k') {
        Some((c, k)) => (c, Some(k)),
        None => (rest, None),
    };
    let num = |s: &str| s.trim().parse::<u64>().map_err(|_| usage());
    let (rows, cols) = (num(r)?, num(c)?);
    if rows < 1 || cols < 1 || rows * cols > MAX_CELLS as u64 {
        return Err(bad(format!("the board must have between 1 and {MAX_CELLS} cells (got {rows}x{cols})")));
    }
    let k = match k {
        None => 4,
        Some(k) => num(k)?,
    };
    if !(1..=MAX_CELLS as u64).contains(&k) {
        return Err(bad(format!("k must be from 1 to {MAX_CELLS} (got {k})")));
    }
    Ok((rows as u8, cols as u8, k as u8))
}

impl Game for Connect4 {
    type Pos = C4Pos;
    type Move = u8;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<C4Pos>> {
        Ok(Some(Connect4::empty(4, 4, 3)))
    }

    fn parse(&self, text: &str) -> GameResult<C4Pos> {
        let t = text.trim().to_lowercase().replace('\n', "/");
        let (head, body) = t.split_once('/').unwrap_or((&t, ""));
        let (rows, cols, k) = parse_head(head)?;
        let mut p = Connect4::empty(rows, cols, k);
        let body: Vec<char> = body.chars().filter(|&c| c != '/').collect();
        if body.is_empty() {
            return Ok(p);
        }
        let cells = rows as usize * cols as usize;
        if body.len() != cells {
            return Err(GameError::BadPosition(format!("a {rows}x{cols} board has {cells} cells, got {}", body.len())));
        }
        let s = p.stride();
        for (i, &ch) in body.iter().enumerate() {
            let (r, c) = ((i / cols as usize) as u32, (i % cols as usize) as u32);
            let bit = 1u128 << (c * s + (rows as u32 - 1 - r));
            match ch {
                'x' => p.x |= bit,
                'o' => p.o |= bit,
                '.' => {}
                other => return Err(GameError::BadPosition(format!("{other} is not a cell: use x, o or ."))),
            }
        }
        let (xs, os) = (p.x.count_ones(), p.o.count_ones());
        if xs != os && xs != os + 1 {
            return Err(GameError::BadPosition(format!(
                "X moves first, so X has as many pieces as O or one more (x: {xs}, o: {os})"
            )));
        }
        // Gravity: no piece above an empty cell.
        for r in 0..rows as u32 - 1 {
            for c in 0..cols as u32 {
                if p.cell(r, c) != 0 && p.cell(r + 1, c) == 0 {
                    return Err(GameError::BadPosition(format!(
                        "the piece at row {}, column {} floats above an empty cell",
                        r + 1,
                        c + 1
                    )));
                }
            }
        }
        Ok(p)
    }

    fn format(&self, p: &C4Pos) -> GameResult<String> {
        let (rows, cols) = (p.rows as u32, p.cols as u32);
        let mut out = format!("{rows}x{cols}k{}", p.k);
        for r in 0..rows {
            out.push('/');
            for c in 0..cols {
                out.push(['.', 'x', 'o'][p.cell(r, c) as usize]);
            }
        }
        Ok(out)
    }

    fn moves(&self, p: &C4Pos) -> GameResult<Vec<u8>> {
        if p.primitive().is_some() {
            return Ok(Vec::new());
        }
        Ok(p.open_columns().map(|c| c as u8).collect())
    }

    fn play(&self, p: &C4Pos, mv: &u8) -> GameResult<C4Pos> {
        let c = *mv as u32;
        if c >= p.cols as u32 || p.height(c) >= p.rows as u32 {
            return Err(GameError::BadMove(format!("column {} is not a column with room here", c + 1)));
        }
        Ok(p.drop(c))
    }

    fn children(&self, p: &C4Pos) -> GameResult<Vec<C4Pos>> {
        if p.primitive().is_some() {
            return Ok(Vec::new());
        }
        Ok(p.open_columns().map(|c| p.drop(c)).collect())
    }

    fn move_name(&self, _p: &C4Pos, mv: &u8) -> GameResult<String> {
        Ok((*mv as u32 + 1).to_string())
    }

    fn primitive(&self, p: &C4Pos) -> GameResult<Option<Value>> {
        Ok(p.primitive())
    }

    fn canonical(&self, p: &C4Pos) -> GameResult<C4Pos> {
        Ok(self.canon(p).0)
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities {
            view: Some(self),
            hints: Some(self),
            parallel: Some(self),
            tiers: Some(self),
            ..Capabilities::none()
        }
    }
}

impl View<C4Pos, u8> for Connect4 {
    fn show(&self, p: &C4Pos) -> GameResult<Option<String>> {
        let mut out = String::new();
        for r in 0..p.rows as u32 {
            for c in 0..p.cols as u32 {
                out.push(['.', 'x', 'o'][p.cell(r, c) as usize]);
            }
            out.push('\n');
        }
        for c in 0..p.cols as u32 {
            out.push_str(&((c + 1) % 10).to_string());
        }
        Ok(Some(out))
    }
    fn board(&self, p: &C4Pos) -> GameResult<Option<Board>> {
        let (rows, cols) = (p.rows as usize, p.cols as usize);
        let mut cells = Vec::with_capacity(rows * cols);
        let mut clicks = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            for c in 0..cols {
                cells.push(['.', 'x', 'o'][p.cell(r as u32, c as u32) as usize].to_string());
                clicks.push(Some((c + 1).to_string()));
            }
        }
        Ok(Some(Board { rows, cols, cells, clicks }))
    }
    fn to_move(&self, p: &C4Pos) -> GameResult<Option<usize>> {
        Ok(Some(p.turn() as usize))
    }
}

impl Hints<C4Pos> for Connect4 {
    fn search_size(&self, p: &C4Pos) -> Option<f64> {
        // Every board of every tier from here on, each with a move a column.
        let total: f64 =
            (p.pieces()..=p.rows as u32 * p.cols as u32).map(|n| self.tables.size(p.rows, p.cols, n) as f64).sum();
        Some(total * p.cols as f64)
    }
}

impl Parallel<Connect4> for Connect4 {
    fn replicate(&self) -> Replica<'_, Self> {
        let me = self.clone();
        Replica {
            make: Arc::new(move || Ok(me.clone())),
            send: |p| Box::new(*p),
            receive: |w| *w.downcast::<C4Pos>().expect("a Connect-Four position"),
        }
    }
}

thread_local! {
    /// The last position unranked on this thread: the solver asks `canonical_index`,
    /// `primitive_at` and `children_at` of one index in a row, and unranking is the costly part.
    static LAST: std::cell::Cell<Option<(Tier, u64, C4Pos)>> = const { std::cell::Cell::new(None) };
}

impl Connect4 {
    /// [`Tables::position`], remembered for the next question about the same index.
    fn at(&self, tier: Tier, index: u64) -> C4Pos {
        LAST.with(|last| match last.get() {
            Some((t, i, p)) if t == tier && i == index => p,
            _ => {
                let p = self.tables.position(tier, index);
                last.set(Some((tier, index, p)));
                p
            }
        })
    }
}

impl TierSpace for Connect4 {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        let (rows, cols, k, n) = tier_parts(tier);
        if n >= rows as u32 * cols as u32 { Vec::new() } else { vec![tier_of(rows, cols, k, n + 1)] }
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        let (rows, cols, _, n) = tier_parts(tier);
        self.tables.size(rows, cols, n)
    }

    /// A move adds a piece: it always leaves the tier.
    fn moves_within(&self, _tier: Tier) -> bool {
        false
    }

    fn tier_name(&self, tier: Tier) -> String {
        let (rows, cols, k, n) = tier_parts(tier);
        format!("{rows}x{cols}k{k} {n} pieces")
    }

    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        let p = self.at(tier, index);
        index.min(self.index(&p.mirror()))
    }

    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        self.at(tier, index).primitive()
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        if p.primitive().is_some() {
            return;
        }
        let next = tier + 1;
        for c in p.open_columns() {
            out.push((next, self.canon(&p.drop(c)).1));
        }
    }

    fn has_parents(&self) -> bool {
        true
    }

    /// The boards one move before: the last mover's top piece taken off a column (the
    /// player to move did not move last, so their top pieces are no one's last move), each
    /// as its representative; a board where the game was over already (primitive) has no
    /// moves, so it is no parent. The mirror needs nothing more: the parents of a board's
    /// mirror image are the mirror images of its parents, the same representatives.
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        let n = p.pieces();
        if n == 0 {
            return;
        }
        let s = p.stride();
        for c in 0..p.cols as u32 {
            let h = p.height(c);
            if h == 0 {
                continue;
            }
            let bit = 1u128 << (c * s + h - 1);
            // X moved last when O is to move.
            let q = match p.turn() {
                1 if p.x & bit != 0 => C4Pos { x: p.x & !bit, ..p },
                0 if p.o & bit != 0 => C4Pos { o: p.o & !bit, ..p },
                _ => continue,
            };
            if q.primitive().is_none() {
                out.push((tier - 1, self.canon(&q).1));
            }
        }
    }
}

impl Tiers for Connect4 {
    type Pos = C4Pos;

    fn locate(&self, p: &C4Pos) -> (Tier, u64) {
        (tier_of(p.rows, p.cols, p.k, p.pieces()), self.index(p))
    }

    fn position(&self, tier: Tier, index: u64) -> C4Pos {
        self.tables.position(tier, index)
    }
}

/// A random small position (for `gamesman check`): a few random moves on a board small
/// enough for the script to solve (4×4 with k = 3 or 4, 3×5 or 5×3 with k = 3).
pub fn sample(rng: &mut fastrand::Rng) -> String {
    let g = Connect4::new(crate::game::GameInfo::native("connect4", "", Kind::Partisan));
    let (rows, cols, k) = [(4, 4, 3), (4, 4, 4), (3, 5, 3), (5, 3, 3)][rng.usize(0..4)];
    let steps = rng.usize(3..=rows as usize * cols as usize);
    let p = super::common::random_play(&g, Connect4::empty(rows, cols, k), steps, rng);
    g.format(&p).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Connect4 {
        Connect4::new(crate::game::GameInfo::native("connect4", "", Kind::Partisan))
    }

    /// Index and position are inverse on every tier of 4×4 and 3×5, and the tiers hold, by
    /// hand: 1 board with no piece, 4 with one (an X in any column), and with two pieces
    /// 10 shapes (4 columns with 2, 6 pairs of columns) × 2 colourings = 20.
    #[test]
    fn index_round_trip() {
        let g = g();
        assert_eq!(g.tier_size(tier_of(4, 4, 4, 0)), 1);
        assert_eq!(g.tier_size(tier_of(4, 4, 4, 1)), 4);
        assert_eq!(g.tier_size(tier_of(4, 4, 4, 2)), 20);
        for (rows, cols) in [(4u8, 4u8), (3, 5)] {
            for n in 0..=rows as u32 * cols as u32 {
                let t = tier_of(rows, cols, 4, n);
                for i in 0..g.tier_size(t) {
                    let p = g.position(t, i);
                    assert_eq!(p.pieces(), n);
                    assert_eq!(p.x.count_ones(), n.div_ceil(2));
                    // The text reads back to the same board (gravity and counts hold).
                    let back = g.parse(&g.format(&p).unwrap()).unwrap();
                    assert_eq!(back, p);
                    assert_eq!(g.locate(&p), (t, i), "{}", g.format(&p).unwrap());
                }
            }
        }
    }

    /// The number of boards that obey gravity with ⌈n/2⌉ X's and ⌊n/2⌋ O's, summed over n,
    /// counted by brute force over every filling of 3×3 (each column of height h has 2^h
    /// colourings).
    #[test]
    fn sizes_by_brute_force() {
        let g = g();
        let mut want = [0u64; 10];
        // Heights of the three columns, then colourings.
        for h0 in 0..=3u32 {
            for h1 in 0..=3u32 {
                for h2 in 0..=3u32 {
                    let n = h0 + h1 + h2;
                    for col in 0u32..1 << n {
                        if col.count_ones() == n.div_ceil(2) {
                            want[n as usize] += 1;
                        }
                    }
                }
            }
        }
        for n in 0..=9 {
            assert_eq!(g.tier_size(tier_of(3, 3, 3, n)), want[n as usize], "{n} pieces");
        }
    }

    #[test]
    fn lines_and_values() {
        let g = g();
        let v = |t: &str| g.primitive(&g.parse(t).unwrap()).unwrap();
        // X has four across the bottom; O to move has lost.
        assert_eq!(v("4x5k4/...../...../ooo../xxxx."), Some(Value::Lose));
        // Four up a column.
        assert_eq!(v("4x4k4/x.../xo../xo../xo.."), Some(Value::Lose));
        // Diagonals both ways.
        assert_eq!(v("4x4k4/...x/..xo/xxox/xooo"), Some(Value::Lose));
        assert_eq!(v("4x4k4/o.../xo../oxo./xxxo"), Some(Value::Lose));
        // No wrap from the top of one column to the bottom of the next.
        assert_eq!(v("4x4k4/x.../x.../xo../oxoo"), None);
        // A full board without a line: a tie.
        assert_eq!(v("4x4k4/xoxo/xoxo/oxox/oxox"), Some(Value::Tie));
        // Connect-3 on 4x4: three X across.
        assert_eq!(v("4x4k3/..../..../oo../xxx."), Some(Value::Lose));
        assert_eq!(v("4x4k5/..../..../oo../xxx."), None);
    }

    #[test]
    fn mirror_and_canonical() {
        let g = g();
        let p = g.parse("4x5k4/...../...../o..../xx...").unwrap();
        let m = g.parse("4x5k4/...../...../....o/...xx").unwrap();
        assert_eq!(p.mirror(), m);
        assert_eq!(g.canonical(&p).unwrap(), g.canonical(&m).unwrap());
        let (t, i) = g.locate(&p);
        let (_, j) = g.locate(&m);
        assert_eq!(g.canonical_index(t, i), i.min(j));
        assert_eq!(g.canonical_index(t, j), i.min(j));
    }

    #[test]
    fn texts() {
        let g = g();
        assert_eq!(g.format(&g.parse("4x5").unwrap()).unwrap(), "4x5k4/...../...../...../.....");
        let p = g.parse("4x4k3").unwrap();
        let p = g.play(&p, &1).unwrap();
        let p = g.play(&p, &1).unwrap();
        assert_eq!(g.format(&p).unwrap(), "4x4k3/..../..../.o../.x..");
        assert_eq!(g.moves(&p).unwrap(), vec![0, 1, 2, 3]);
        for bad in [
            "",
            "4x",
            "0x4k4",
            "9x9k4",
            "4x4k0",
            "4x4k65",
            "4x4k4/x",
            "4x4k4/xx../..../..../....",
            "4x4k4/..../..../x.../....",
        ] {
            assert!(matches!(g.parse(bad), Err(GameError::BadPosition(_))), "{bad}");
        }
        let full = g.parse("1x2k2/xo").unwrap();
        assert!(g.play(&full, &0).is_err());
        assert!(g.play(&full, &5).is_err());
    }
}
