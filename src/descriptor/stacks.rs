//! Pieces of several sizes that stack and cover (`rules: Stacks(...)`, Gobblet Gobblers): a
//! board of points and lines as in a points game (`points/`'s `board:`), and each side's
//! pieces, `sizes[k]` of size k + 1 (size 1 the smallest). A move places a piece from the
//! hand on an empty point or over a smaller piece of either side, or moves one of one's own
//! top pieces to an empty point or over a smaller piece (which may uncover what it covered).
//! A line of `line` points whose top pieces are all one side's wins for that side; when the
//! player to move has such a line it wins, even if the opponent has one too (a move that
//! uncovers the opponent's line loses, even if it makes one of the mover's own). This is
//! GamesmanOne's `src/games/gobblet/gobblet_gobblers.c`. See "Stacks" in
//! `docs/descriptors.md`.
//!
//! A position: for each size and side, the mask of points where that side has its piece of
//! that size; the pieces in hand are those not on the board. Keys: the masks, size by size and
//! side by side, `n` bits each, then the side to move: `2 × sizes × n + 1` bits, at most 128.
//! Symmetry: the board's permutations that keep its lines (`points/symmetry.rs`); a
//! position's representative is its least image.

use super::points::BoardSpec;
use super::points::symmetry;
use crate::game::Value;
use crate::game::packed::PackedPlay;
use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};

/// The most sizes a game may have.
pub const MAX_SIZES: usize = 4;

/// A position: `own[k][s]`, the points where side `s` has its piece of size `k + 1`; the
/// side to move.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SPos {
    own: [[u64; 2]; MAX_SIZES],
    side: u8,
}

/// A move: a piece of size index `size` from the hand onto point `to`, or the top piece at
/// `from` onto `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SMove {
    Add { size: u8, to: u8 },
    Move { from: u8, to: u8 },
}

/// The rules of a stacking game, checked.
#[derive(Clone)]
pub struct StacksRules {
    n: usize,
    marks: [char; 2],
    grid: Option<(usize, usize)>,
    /// Pieces of each size a side has.
    sizes: Vec<u8>,
    /// The masks of `line` points in a row on one of the board's lines.
    line_masks: Vec<u64>,
    /// The permutations of the points that keep the lines and their masks (`points/symmetry.rs`),
    /// the identity left out.
    syms: Vec<symmetry::Symmetry>,
}

fn bit(p: usize) -> u64 {
    1u64 << p
}

/// The points of `mask`, lowest first.
fn points(mut mask: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let p = mask.trailing_zeros() as u8;
            mask &= mask - 1;
            p
        })
    })
}

impl StacksRules {
    /// The rules, or the field at fault and why.
    pub fn new(
        board: BoardSpec,
        marks: Option<String>,
        sizes: Vec<u32>,
        line: usize,
    ) -> Result<StacksRules, (&'static str, String)> {
        let layout = board.layout().map_err(|e| ("board", e))?;
        let n = layout.points;
        let marks: Vec<char> = marks.as_deref().unwrap_or("xo").chars().collect();
        if marks.len() != 2
            || marks[0].eq_ignore_ascii_case(&marks[1])
            || marks.iter().any(|c| !c.is_ascii_alphabetic())
        {
            return Err(("marks", "`marks` is two different letters, the first player's first: \"xo\"".into()));
        }
        if sizes.is_empty() || sizes.len() > MAX_SIZES {
            return Err(("sizes", format!("`sizes` lists the pieces of each size, 1 to {MAX_SIZES} sizes")));
        }
        if let Some(&k) = sizes.iter().find(|&&k| k == 0 || k as usize > n) {
            return Err(("sizes", format!("{k} pieces of a size: each size has 1 to {n} (the board's points)")));
        }
        if 2 * sizes.len() * n + 1 > 128 {
            return Err((
                "sizes",
                format!(
                    "{} sizes on {n} points do not fit a position in 128 bits (2 × sizes × points + 1)",
                    sizes.len()
                ),
            ));
        }
        let longest = layout.lines.iter().map(Vec::len).max().unwrap_or(0);
        if line < 2 || line > longest {
            return Err(("line", format!("line: {line}: the board's longest line has {longest} points")));
        }
        let mut line_masks: Vec<u64> = layout
            .lines
            .iter()
            .flat_map(|l| l.windows(line).map(|w| w.iter().fold(0u64, |m, &p| m | bit(p))).collect::<Vec<_>>())
            .collect();
        line_masks.sort_unstable();
        line_masks.dedup();
        // Pieces go to any point: the symmetries need only keep the lines and their masks.
        let keeps = |perm: &[u8]| {
            let mut m: Vec<u64> = line_masks.iter().map(|&x| symmetry::permute(perm, x)).collect();
            m.sort_unstable();
            m == line_masks
        };
        let mut syms = symmetry::automorphisms(&symmetry::rays(n, &layout.lines), keeps);
        syms.remove(0);
        let syms = syms.into_iter().map(symmetry::Symmetry::new).collect();
        Ok(StacksRules {
            n,
            marks: [marks[0], marks[1]],
            grid: layout.grid,
            sizes: sizes.iter().map(|&k| k as u8).collect(),
            line_masks,
            syms,
        })
    }

    /// The representative of `p`'s class under the board's symmetries: of its images, the
    /// one whose masks are least.
    /// The players' marks, the first player's first.
    pub fn marks(&self) -> [char; 2] {
        self.marks
    }

    pub fn canonical(&self, p: &SPos) -> SPos {
        let mut best = p.own;
        for sym in &self.syms {
            let mut image = [[0u64; 2]; MAX_SIZES];
            for (k, own) in p.own.iter().enumerate().take(self.sizes.len()) {
                image[k] = [sym.apply(own[0]), sym.apply(own[1])];
            }
            if image < best {
                best = image;
            }
        }
        SPos { own: best, side: p.side }
    }

    /// The empty board, the first player to move.
    pub fn empty_start(&self) -> String {
        self.format(&SPos { own: [[0; 2]; MAX_SIZES], side: 0 })
    }

    pub fn to_move(&self, p: &SPos) -> usize {
        p.side as usize
    }

    /// Each side's points where its piece is on top, and for each size index k the points
    /// holding a piece of size index k or larger (where a piece of size index k may not go).
    fn masks(&self, p: &SPos) -> ([u64; 2], [u64; MAX_SIZES]) {
        let mut top = [0u64; 2];
        let mut at_least = [0u64; MAX_SIZES];
        let mut covered = 0u64;
        for k in (0..self.sizes.len()).rev() {
            top[0] |= p.own[k][0] & !covered;
            top[1] |= p.own[k][1] & !covered;
            covered |= p.own[k][0] | p.own[k][1];
            at_least[k] = covered;
        }
        (top, at_least)
    }

    /// The size index of the top piece at point `i` (which holds one).
    fn top_size(&self, p: &SPos, i: usize) -> usize {
        (0..self.sizes.len()).rev().find(|&k| (p.own[k][0] | p.own[k][1]) & bit(i) != 0).unwrap_or(0)
    }

    /// The board's points.
    fn full(&self) -> u64 {
        if self.n == 64 { u64::MAX } else { bit(self.n) - 1 }
    }

    /// The pieces of size index `k` that side `s` still holds.
    fn in_hand(&self, p: &SPos, k: usize, s: usize) -> u32 {
        u32::from(self.sizes[k]).saturating_sub(p.own[k][s].count_ones())
    }

    /// GamesmanOne's order: placements by size (smallest first) and point, then moves of the
    /// top pieces by point from and point to.
    pub fn moves(&self, p: &SPos) -> Vec<SMove> {
        let mut out = Vec::new();
        self.each_move(p, |m| out.push(m));
        out
    }

    /// [`StacksRules::moves`], one at a time.
    fn each_move(&self, p: &SPos, mut f: impl FnMut(SMove)) {
        let s = p.side as usize;
        let (top, at_least) = self.masks(p);
        let full = self.full();
        for (k, &taken) in at_least.iter().enumerate().take(self.sizes.len()) {
            if self.in_hand(p, k, s) > 0 {
                for to in points(full & !taken) {
                    f(SMove::Add { size: k as u8, to });
                }
            }
        }
        for from in points(top[s]) {
            let k = self.top_size(p, from as usize);
            for to in points(full & !at_least[k]) {
                f(SMove::Move { from, to });
            }
        }
    }

    /// `mv` from `p`, trusted to be one of its moves.
    pub fn play_unchecked(&self, p: &SPos, mv: SMove) -> SPos {
        let s = p.side as usize;
        let mut q = p.clone();
        match mv {
            SMove::Add { size, to } => q.own[size as usize][s] |= bit(to as usize),
            SMove::Move { from, to } => {
                if let Some(k) = (0..self.sizes.len()).rev().find(|&k| q.own[k][s] & bit(from as usize) != 0) {
                    q.own[k][s] = (q.own[k][s] & !bit(from as usize)) | bit(to as usize);
                }
            }
        }
        q.side ^= 1;
        q
    }

    /// The position after `mv`, if it is one of the moves from `p`.
    pub fn play(&self, p: &SPos, mv: SMove) -> Option<SPos> {
        self.moves(p).contains(&mv).then(|| self.play_unchecked(p, mv))
    }

    pub fn children(&self, p: &SPos) -> Vec<SPos> {
        let mut out = Vec::new();
        self.each_move(p, |m| out.push(self.play_unchecked(p, m)));
        out
    }

    /// The position after each move from `p`, one at a time.
    fn each_child(&self, p: &SPos, mut f: impl FnMut(SPos)) {
        self.each_move(p, |m| f(self.play_unchecked(p, m)));
    }

    /// A line of the mover's top pieces wins; else one of the opponent's loses.
    pub fn primitive(&self, p: &SPos) -> Option<Value> {
        let (top, _) = self.masks(p);
        let line = |m: u64| self.line_masks.iter().any(|&w| (m & w) ^ w == 0);
        let s = p.side as usize;
        if line(top[s]) {
            Some(Value::Win)
        } else if line(top[1 - s]) {
            Some(Value::Lose)
        } else {
            None
        }
    }

    /// Read a position: each point's stack from the bottom up, a piece written as its side's
    /// mark and its size (1 the smallest), "." for an empty point; points separated by ","
    /// and rows by "/"; a space and the mark of the side to move: "x3,.,./.,o1x2,./.,.,. o".
    pub fn parse(&self, text: &str) -> Result<SPos, String> {
        let example = self.empty_start();
        let words: Vec<&str> = text.split_whitespace().collect();
        let [board, side] = words.as_slice() else {
            return Err(format!("a position is the points, a space and the side to move, e.g. {example:?}"));
        };
        let mark = |c: char| self.marks.iter().position(|m| m.eq_ignore_ascii_case(&c));
        let cells: Vec<&str> = board.split([',', '/']).collect();
        if cells.len() != self.n {
            return Err(format!(
                "the board has {} points, the text {} (points separated by \",\", rows by \"/\", e.g. {example:?})",
                self.n,
                cells.len()
            ));
        }
        let mut own = [[0u64; 2]; MAX_SIZES];
        for (i, cell) in cells.iter().enumerate() {
            if *cell == "." {
                continue;
            }
            let chars: Vec<char> = cell.chars().collect();
            if chars.is_empty() || !chars.len().is_multiple_of(2) {
                return Err(format!(
                    "point {i}: {cell:?} is not a stack: \".\" or pieces bottom to top, each a mark and a size (\"{}1{}3\")",
                    self.marks[0], self.marks[1]
                ));
            }
            let mut below = 0usize;
            for pair in chars.chunks(2) {
                let s = mark(pair[0]).ok_or_else(|| {
                    format!("point {i}: {:?} is not a side: {} or {}", pair[0], self.marks[0], self.marks[1])
                })?;
                let k = pair[1]
                    .to_digit(10)
                    .map(|d| d as usize)
                    .filter(|&d| d >= 1 && d <= self.sizes.len())
                    .ok_or_else(|| format!("point {i}: {:?} is not a size: 1 to {}", pair[1], self.sizes.len()))?;
                if k <= below {
                    return Err(format!("point {i}: {cell:?}: a piece covers only smaller ones, bottom to top"));
                }
                below = k;
                own[k - 1][s] |= bit(i);
            }
        }
        for (k, &have) in self.sizes.iter().enumerate() {
            for (s, m) in self.marks.iter().enumerate() {
                let on = own[k][s].count_ones();
                if on > u32::from(have) {
                    return Err(format!("{m} has {on} pieces of size {} on the board, more than its {have}", k + 1));
                }
            }
        }
        let side = match side.chars().collect::<Vec<_>>().as_slice() {
            [c] if mark(*c).is_some() => mark(*c).unwrap_or(0) as u8,
            _ => return Err(format!("the side to move is {} or {}, not {side:?}", self.marks[0], self.marks[1])),
        };
        Ok(SPos { own, side })
    }

    fn stack(&self, p: &SPos, i: usize) -> String {
        let mut out = String::new();
        for k in 0..self.sizes.len() {
            for s in 0..2 {
                if p.own[k][s] & bit(i) != 0 {
                    out.push(self.marks[s]);
                    out += &(k + 1).to_string();
                }
            }
        }
        if out.is_empty() { ".".into() } else { out }
    }

    fn cells(&self, p: &SPos, cell: &str, rows: &str, width: usize) -> String {
        let mut out = String::new();
        for i in 0..self.n {
            if i > 0 {
                let row_end = self.grid.is_some_and(|(_, cols)| i % cols == 0);
                out += if row_end { rows } else { cell };
            }
            out += &format!("{:<width$}", self.stack(p, i));
        }
        out
    }

    pub fn format(&self, p: &SPos) -> String {
        format!("{} {}", self.cells(p, ",", "/", 0), self.marks[p.side as usize])
    }

    pub fn show(&self, p: &SPos) -> String {
        let width = 2 * self.sizes.len().min(3);
        let mut out = format!("{}\n{} to move; in hand:", self.cells(p, " ", "\n", width), self.marks[p.side as usize]);
        for (s, m) in self.marks.iter().enumerate() {
            let hand: Vec<String> = (0..self.sizes.len()).map(|k| self.in_hand(p, k, s).to_string()).collect();
            out += &format!(" {m} {}", hand.join("/"));
        }
        out
    }

    /// A move's name: "S@T" places a piece of size S on point T; "F-T" moves the top piece.
    pub fn move_name(&self, mv: SMove) -> String {
        match mv {
            SMove::Add { size, to } => format!("{}@{to}", size + 1),
            SMove::Move { from, to } => format!("{from}-{to}"),
        }
    }
}

/// The keys of a stacking game, over the game's own position type `P` (which wraps an `SPos`).
pub struct StacksKeys<P> {
    rules: StacksRules,
    wrap: fn(SPos) -> P,
    unwrap: fn(&P) -> Option<&SPos>,
}

impl<P> StacksKeys<P> {
    pub fn new(rules: &StacksRules, wrap: fn(SPos) -> P, unwrap: fn(&P) -> Option<&SPos>) -> Self {
        StacksKeys { rules: rules.clone(), wrap, unwrap }
    }

    pub fn key(&self, p: &SPos) -> u128 {
        let n = self.rules.n;
        let mut key = 0u128;
        let mut at = 0;
        for own in &p.own[..self.rules.sizes.len()] {
            for &m in own {
                key |= u128::from(m) << at;
                at += n;
            }
        }
        key | u128::from(p.side & 1) << at
    }

    pub fn position(&self, key: u128) -> SPos {
        let n = self.rules.n;
        let mask = (1u128 << n) - 1;
        let mut own = [[0u64; 2]; MAX_SIZES];
        let mut at = 0;
        for o in own.iter_mut().take(self.rules.sizes.len()) {
            for m in o.iter_mut() {
                *m = ((key >> at) & mask) as u64;
                at += n;
            }
        }
        SPos { own, side: (key >> at) as u8 & 1 }
    }
}

impl<P: 'static> PackedPlay<P> for StacksKeys<P> {
    fn pack(&self, pos: &P) -> Option<u128> {
        (self.unwrap)(pos).map(|p| self.key(p))
    }
    fn unpack(&self, key: u128) -> P {
        (self.wrap)(self.position(key))
    }
    /// The key of the position's representative under the board's symmetries.
    fn canonical(&self, key: u128) -> u128 {
        if self.rules.syms.is_empty() {
            return key;
        }
        self.key(&self.rules.canonical(&self.position(key)))
    }
    fn children(&self, key: u128, out: &mut Vec<u128>) {
        let p = self.position(key);
        out.extend(self.rules.children(&p).iter().map(|c| self.key(c)));
    }
    fn primitive(&self, key: u128) -> Option<Value> {
        self.rules.primitive(&self.position(key))
    }
    /// A key is the position's masks, side and hands; the children are the rules' own.
    fn exact(&self) -> bool {
        true
    }
}

/// A stacking game by tiers, over the game's own position type `P`. Pieces never leave the
/// board, so the **tier** is how many pieces of each size each side has placed (a byte each,
/// size by size, the first side's first): a placement goes up one tier, a move of a top
/// piece stays in it. The **index**: size by size (the smallest the most significant digit),
/// the rank of the two sides' points of that size ([`Ranker`]: the first side's points, then
/// the second's among the rest; no point holds two pieces of one size), then the side to
/// move as the lowest bit. Every index is a position. The tiers give parents: a move of a
/// top piece is undone by moving it back to a point whose top is smaller (or empty).
pub struct StacksTiers<P> {
    rules: StacksRules,
    ranker: Ranker,
    wrap: fn(SPos) -> P,
    unwrap: fn(&P) -> Option<&SPos>,
}

/// The count of side `s`'s placed pieces of size index `k` in `tier`.
fn placed(tier: Tier, k: usize, s: usize) -> u32 {
    (tier >> (8 * (2 * k + s))) as u32 & 255
}

impl<P> StacksTiers<P> {
    /// The tiers of `rules`, or `None` where a tier's indices would pass 2^64 (a board of
    /// many points and sizes): that game plays and searches without tiers.
    pub fn new(rules: &StacksRules, wrap: fn(SPos) -> P, unwrap: fn(&P) -> Option<&SPos>) -> Option<Self> {
        let ranker = Ranker::new(rules.n as u32);
        let n = rules.n as u32;
        let mut most = 2u64;
        for &k in &rules.sizes {
            let k = u32::from(k);
            let widest = (0..=k)
                .flat_map(|a| (0..=k).map(move |b| (a, b)))
                .filter(|&(a, b)| a + b <= n)
                .map(|(a, b)| ranker.count(&[a, b]))
                .try_fold(0u64, |m, c| c.map(|c| m.max(c)))?;
            most = most.checked_mul(widest)?;
        }
        Some(StacksTiers { rules: rules.clone(), ranker, wrap, unwrap })
    }

    /// The tier and index of a position.
    pub fn place(&self, p: &SPos) -> (Tier, u64) {
        let mut tier = 0;
        let mut index = 0u64;
        for (k, own) in p.own.iter().enumerate().take(self.rules.sizes.len()) {
            tier |= u64::from(own[0].count_ones()) << (16 * k) | u64::from(own[1].count_ones()) << (16 * k + 8);
            index = index * self.radix(own[0].count_ones(), own[1].count_ones()) + self.ranker.rank(own);
        }
        (tier, index * 2 + u64::from(p.side & 1))
    }

    /// The arrangements of `a` and `b` pieces of one size (0 where they do not fit; `new`
    /// saw that every one fits 64 bits).
    fn radix(&self, a: u32, b: u32) -> u64 {
        self.ranker.count(&[a, b]).unwrap_or(0)
    }

    /// The tier and index of the representative of `p`'s class.
    fn place_class(&self, p: &SPos) -> (Tier, u64) {
        if self.rules.syms.is_empty() { self.place(p) } else { self.place(&self.rules.canonical(p)) }
    }

    /// The position at `index` of `tier`.
    pub fn at(&self, tier: Tier, index: u64) -> SPos {
        let mut own = [[0u64; 2]; MAX_SIZES];
        let mut rest = index / 2;
        for k in (0..self.rules.sizes.len()).rev() {
            let c = [placed(tier, k, 0), placed(tier, k, 1)];
            let radix = self.radix(c[0], c[1]);
            self.ranker.unrank(&c, rest % radix, &mut own[k]);
            rest /= radix;
        }
        SPos { own, side: (index & 1) as u8 }
    }
}

impl<P> TierSpace for StacksTiers<P> {
    /// One more piece of one size placed by either side (the tier does not say whose turn it
    /// is).
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        let mut out = Vec::new();
        for (k, &most) in self.rules.sizes.iter().enumerate() {
            let room = placed(tier, k, 0) + placed(tier, k, 1) < self.rules.n as u32;
            for s in 0..2 {
                if room && placed(tier, k, s) < u32::from(most) {
                    out.push(tier + (1 << (8 * (2 * k + s))));
                }
            }
        }
        out
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        (0..self.rules.sizes.len())
            .map(|k| self.radix(placed(tier, k, 0), placed(tier, k, 1)))
            .try_fold(2u64, |a, r| a.checked_mul(r))
            .unwrap_or(u64::MAX)
    }

    /// The pieces placed, size by size: `x1o0-x2o1` (1 small piece of the first side, none
    /// of the second, 2 medium and 1).
    fn tier_name(&self, tier: Tier) -> String {
        let m = self.rules.marks;
        (0..self.rules.sizes.len())
            .map(|k| format!("{}{}{}{}", m[0], placed(tier, k, 0), m[1], placed(tier, k, 1)))
            .collect::<Vec<_>>()
            .join("-")
    }

    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        if self.rules.syms.is_empty() {
            return index;
        }
        self.place(&self.rules.canonical(&self.at(tier, index))).1
    }

    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        self.rules.primitive(&self.at(tier, index))
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        self.rules.each_child(&p, |c| out.push(self.place_class(&c)));
    }

    fn has_parents(&self) -> bool {
        true
    }

    /// The positions of the same tier one move before (the only ones the solver asks for):
    /// the side that moved last took one of its top pieces back to a point whose top is
    /// smaller, or empty, in a position that had not ended.
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        let r = &self.rules;
        let m = 1 - p.side as usize;
        let (top, at_least) = r.masks(&p);
        for to in points(top[m]) {
            let k = r.top_size(&p, to as usize);
            for from in points(r.full() & !at_least[k]) {
                let mut q = p.clone();
                q.own[k][m] ^= bit(to as usize) | bit(from as usize);
                q.side = m as u8;
                if r.primitive(&q).is_none() {
                    out.push(self.place_class(&q));
                }
            }
        }
    }

    /// Once a piece is on the board, its owner may move it (when it is on top).
    fn moves_within(&self, tier: Tier) -> bool {
        tier != 0
    }
}

impl<P> Tiers for StacksTiers<P> {
    type Pos = P;
    /// The tier and index of a position of this game (tier 0, index 0 for any other).
    fn locate(&self, pos: &P) -> (Tier, u64) {
        (self.unwrap)(pos).map_or((0, 0), |p| self.place(p))
    }
    fn position(&self, tier: Tier, index: u64) -> P {
        (self.wrap)(self.at(tier, index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gobblers() -> StacksRules {
        StacksRules::new(BoardSpec::Grid { rows: 3, cols: 3, diagonals: true }, None, vec![2, 2, 2], 3).unwrap()
    }

    /// The start: 3 sizes × 9 points to place on, nothing to move: 27 moves.
    #[test]
    fn start_has_27_placements() {
        let r = gobblers();
        let p = r.parse(&r.empty_start()).unwrap();
        assert_eq!(r.moves(&p).len(), 27);
        assert_eq!(r.empty_start(), ".,.,./.,.,./.,.,. x");
    }

    /// By hand: x's medium piece on the centre covers o's small one; o may place only a large
    /// piece there, and x's medium piece may move to the 8 other (empty) points, uncovering o1.
    #[test]
    fn covering_and_uncovering() {
        let r = gobblers();
        let p = r.parse(".,.,./.,o1x2,./.,.,. o").unwrap();
        let names: Vec<String> = r.moves(&p).into_iter().map(|m| r.move_name(m)).collect();
        assert!(names.contains(&"3@4".to_string()) && !names.contains(&"2@4".to_string()), "{names:?}");
        // o has one small piece in hand: 8 points; two medium: 8; two large: 9.
        assert_eq!(names.len(), 8 + 8 + 9, "{names:?}");
        let q = r.parse(".,.,./.,o1x2,./.,.,. x").unwrap();
        assert_eq!(r.moves(&q).len(), 8 + 8 + 9 + 8);
        let kid = r.play(&q, SMove::Move { from: 4, to: 0 }).unwrap();
        assert_eq!(r.format(&kid), "x2,.,./.,o1,./.,.,. o");
    }

    /// Uncovering the opponent's line loses even when it makes one's own: the mover's line
    /// wins first.
    #[test]
    fn the_movers_line_counts_first() {
        let r = gobblers();
        let both = r.parse("x1,x1,x3/o2,o2,o3/.,.,. o").unwrap();
        assert_eq!(r.primitive(&both), Some(Value::Win));
        let lost = r.parse("x1,x1,x3/o2,o2,o3/.,.,. x").unwrap();
        assert_eq!(r.primitive(&lost), Some(Value::Win));
        let covered = r.parse("x1,x2,x1o3/.,.,./.,.,. o").unwrap();
        assert_eq!(r.primitive(&covered), None);
    }

    #[test]
    fn bad_text_is_refused() {
        let r = gobblers();
        for (text, needle) in [
            (".,.,. x", "9 points"),
            (".,.,./.,q1,./.,.,. x", "not a side"),
            (".,.,./.,x4,./.,.,. x", "not a size"),
            (".,.,./.,x3o1,./.,.,. x", "only smaller"),
            (".,.,./.,x,./.,.,. x", "not a stack"),
            ("x1,x1,x1/.,.,./.,.,. x", "more than its 2"),
            (".,.,./.,.,./.,.,. z", "side to move"),
            (".,.,./.,.,./.,.,.", "side to move"),
        ] {
            let e = r.parse(text).unwrap_err();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn symmetries_commute_with_the_rules() {
        // The 3×3 board with its diagonals keeps the square's 8 symmetries.
        let r = gobblers();
        assert_eq!(r.syms.len() + 1, 8);
        let mut next = symmetry::xorshift(99);
        for _ in 0..300 {
            // A random position: each size's points shared out between the sides at random.
            let mut own = [[0u64; 2]; MAX_SIZES];
            for (k, o) in own.iter_mut().enumerate().take(3) {
                let (a, b) = (next() & 0x1ff, next() & 0x1ff);
                let cap = |m: u64| {
                    let mut m = m;
                    while m.count_ones() > u32::from(r.sizes[k]) {
                        m &= m - 1;
                    }
                    m
                };
                *o = [cap(a & !b), cap(b & !a)];
            }
            let p = SPos { own, side: (next() & 1) as u8 };
            for sym in &r.syms {
                let perm = &sym.perm;
                let img = |q: &SPos| {
                    let mut own = q.own;
                    for o in own.iter_mut() {
                        *o = [symmetry::permute(perm, o[0]), symmetry::permute(perm, o[1])];
                    }
                    SPos { own, side: q.side }
                };
                let mut want: Vec<_> = r.children(&p).iter().map(|c| img(c).own).collect();
                let mut got: Vec<_> = r.children(&img(&p)).iter().map(|c| c.own).collect();
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want);
                assert_eq!(r.primitive(&img(&p)), r.primitive(&p));
                assert_eq!(r.canonical(&img(&p)), r.canonical(&p));
            }
        }
    }

    #[test]
    fn keys_round_trip() {
        let r = gobblers();
        let k = StacksKeys::new(&r, |p| p, |p| Some(p));
        let p = r.parse("x1o3,.,o1/x2,.,x3/.,o2,x1 o").unwrap();
        assert_eq!(k.position(k.key(&p)), p);
    }

    /// On two small pieces and one large a side (every tier, every index): an index is a
    /// position that goes back to it; every child lies in the tier or a child tier; and each
    /// representative's parents in its tier are exactly the representatives of the tier
    /// whose children include it (the moves inverted, not the unmoves checked against
    /// themselves).
    #[test]
    fn tiers_number_every_position_and_give_the_inverted_moves_as_parents() {
        use std::collections::{BTreeSet, HashMap};
        let r = StacksRules::new(BoardSpec::Grid { rows: 3, cols: 3, diagonals: true }, None, vec![2, 1], 3).unwrap();
        let t: StacksTiers<SPos> = StacksTiers::new(&r, |p| p, |p| Some(p)).unwrap();
        let order = crate::game::tier::tier_order(&t, 0);
        assert_eq!(order.len(), 3 * 3 * 2 * 2);
        let mut want: HashMap<(Tier, u64), BTreeSet<u64>> = HashMap::new();
        let mut kids = Vec::new();
        let mut indices = 0;
        for &tier in &order {
            let below = t.child_tiers(tier);
            indices += t.tier_size(tier);
            for i in 0..t.tier_size(tier) {
                assert_eq!(t.place(&t.at(tier, i)), (tier, i));
                if t.canonical_index(tier, i) != i || t.primitive_at(tier, i).is_some() {
                    continue;
                }
                kids.clear();
                t.children_at(tier, i, &mut kids);
                for &(c, j) in &kids {
                    assert!(c == tier || below.contains(&c), "{} → {}", t.tier_name(tier), t.tier_name(c));
                    assert_eq!(t.canonical_index(c, j), j);
                    if c == tier {
                        want.entry((tier, j)).or_default().insert(i);
                    }
                }
            }
        }
        // Pieces of size 1: (a, b) ways C(9, a) C(9 − a, b), a, b ≤ 2: 1,423; of size 2: 91.
        assert_eq!(indices, 1_423 * 91 * 2);
        let mut up = Vec::new();
        for &tier in &order {
            for i in (0..t.tier_size(tier)).filter(|&i| t.canonical_index(tier, i) == i) {
                up.clear();
                t.parents_at(tier, i, &mut up);
                assert!(up.iter().all(|&(c, _)| c == tier));
                let got: BTreeSet<u64> = up.iter().map(|&(_, q)| q).collect();
                assert_eq!(got, want.remove(&(tier, i)).unwrap_or_default(), "{}", r.format(&t.at(tier, i)));
            }
        }
    }
}
