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
    syms: Vec<Vec<u8>>,
}

fn bit(p: usize) -> u64 {
    1u64 << p
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
        for perm in &self.syms {
            let mut image = [[0u64; 2]; MAX_SIZES];
            for (k, own) in p.own.iter().enumerate().take(self.sizes.len()) {
                image[k] = [symmetry::permute(perm, own[0]), symmetry::permute(perm, own[1])];
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

    /// Each point's top piece: (size index, side), or `None` when it is empty.
    fn tops(&self, p: &SPos) -> Vec<Option<(usize, usize)>> {
        (0..self.n)
            .map(|i| {
                (0..self.sizes.len()).rev().find_map(|k| (0..2).find(|&s| p.own[k][s] & bit(i) != 0).map(|s| (k, s)))
            })
            .collect()
    }

    /// The pieces of size index `k` that side `s` still holds.
    fn in_hand(&self, p: &SPos, k: usize, s: usize) -> u32 {
        u32::from(self.sizes[k]).saturating_sub(p.own[k][s].count_ones())
    }

    /// GamesmanOne's order: placements by size (smallest first) and point, then moves of the
    /// top pieces by point from and point to.
    pub fn moves(&self, p: &SPos) -> Vec<SMove> {
        let s = p.side as usize;
        let tops = self.tops(p);
        // The height of a point: 0 empty, else 1 + the size index of its top piece.
        let height: Vec<usize> = tops.iter().map(|t| t.map_or(0, |(k, _)| k + 1)).collect();
        // The points a piece of size index `k` may go to.
        let open = |k: usize| height.iter().enumerate().filter(move |&(_, &h)| h <= k).map(|(to, _)| to as u8);
        let mut out = Vec::new();
        for k in 0..self.sizes.len() {
            if self.in_hand(p, k, s) > 0 {
                out.extend(open(k).map(|to| SMove::Add { size: k as u8, to }));
            }
        }
        for (from, t) in tops.iter().enumerate() {
            if let Some((k, o)) = *t
                && o == s
            {
                out.extend(open(k).map(|to| SMove::Move { from: from as u8, to }));
            }
        }
        out
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
        self.moves(p).into_iter().map(|m| self.play_unchecked(p, m)).collect()
    }

    /// A line of the mover's top pieces wins; else one of the opponent's loses.
    pub fn primitive(&self, p: &SPos) -> Option<Value> {
        let mut top = [0u64; 2];
        for (i, t) in self.tops(p).into_iter().enumerate() {
            if let Some((_, s)) = t {
                top[s] |= bit(i);
            }
        }
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
            for perm in &r.syms {
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
}
