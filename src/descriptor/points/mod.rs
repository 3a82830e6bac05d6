//! Games on points joined by lines (`rules: Points(...)`): a board of points and the straight
//! lines through them (a row, a grid with or without diagonals, the Morris boards, Kaooa's
//! star, or lines given one by one), pieces of one kind a side, placed from a hand and then
//! moved, stepping along a line, jumping over an opponent's piece (capturing it or not),
//! flying, flanking and turning lines of the opponent's pieces (Othello), removing a piece
//! after forming a mill, passing when stuck; ends by a line of K, by a unit square of one's
//! pieces, by the count of pieces, by pieces lost, or by having no move. See "Games on
//! points" in `docs/descriptors.md`.
//!
//! Points are joined where they follow each other on a line; a jump goes over the next point
//! of a line to the one after it.

mod boards;
pub(super) mod symmetry;

use crate::game::Value;
use crate::game::packed::PackedPlay;
use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};
pub use boards::BoardSpec;
use serde::Deserialize;

/// A kind of move, in a side's list (`moves: ([...], [...])`).
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum MoveKind {
    /// A new piece on any empty point (the supply never runs out).
    Place,
    /// A new piece on an empty point that flanks, along at least one line, a run of the
    /// opponent's pieces ending in one's own: the runs turn (Othello).
    Flank,
    /// A piece to the next point of a line, if it is empty.
    Step,
    /// A piece over the opponent's piece on the next point of a line to the empty point after.
    Jump,
    /// A `Jump` that captures the piece jumped over.
    Capture,
    /// A piece to the next point of a line that holds the opponent's piece, which is
    /// captured (chess-like, by replacement).
    Take,
    /// With at most this many pieces on the board, a piece to any empty point.
    Fly(u32),
    /// A move along a line kept to rows and columns (`Straight(Step)`), on a board that has them.
    Straight(Along),
    /// A move along a line kept to the diagonals (`Diagonal(Take)`: a pawn's capture).
    Diagonal(Along),
}

/// The kinds of move that go along a line, for `Straight(...)` and `Diagonal(...)`.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum Along {
    Step,
    Jump,
    Capture,
    Take,
}

/// Which lines a kind of move keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lines {
    All,
    Straight,
    Diagonal,
}

impl MoveKind {
    /// A move along a line: its kind, and the lines it keeps to.
    fn along(self) -> Option<(Along, Lines)> {
        match self {
            MoveKind::Step => Some((Along::Step, Lines::All)),
            MoveKind::Jump => Some((Along::Jump, Lines::All)),
            MoveKind::Capture => Some((Along::Capture, Lines::All)),
            MoveKind::Take => Some((Along::Take, Lines::All)),
            MoveKind::Straight(a) => Some((a, Lines::Straight)),
            MoveKind::Diagonal(a) => Some((a, Lines::Diagonal)),
            MoveKind::Place | MoveKind::Flank | MoveKind::Fly(_) => None,
        }
    }

    /// Whether the move takes an opponent's piece off the board.
    fn takes(self) -> bool {
        matches!(self.along(), Some((Along::Capture | Along::Take, _)))
    }
}

/// Which way a side's steps and jumps may go, on a board of rows and columns.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, Default)]
pub enum Towards {
    #[default]
    Any,
    Left,
    Right,
    Up,
    Down,
}

/// How the game ends, beyond "a player with no move loses".
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum PointsEnd {
    /// K of a player's pieces in a row on a line: that player has won.
    Line(usize),
    /// A player's pieces on the four corners of a unit square of the board's rows and
    /// columns (Teeko's 2×2 square): that player has won.
    Square,
    /// When neither player can move, more pieces on the board wins (equal: a tie).
    MostPieces,
    /// A player with fewer than K pieces, on the board and in hand, has lost.
    FewerThan(u32),
    /// A player who has lost K of the pieces from the hand has lost.
    Captured(u32),
    /// A player with a piece on the far edge its `towards` goes to (the first row for `Up`,
    /// the last for `Down`, the first or last column for `Left` or `Right`) has won.
    Reach,
}

/// What a descriptor says about a points game (the fields of `rules: Points(...)`).
pub struct PointsSpec {
    pub board: BoardSpec,
    pub marks: Option<String>,
    pub moves: (Vec<MoveKind>, Vec<MoveKind>),
    pub hand: (u32, u32),
    pub towards: (Towards, Towards),
    pub mill: Option<usize>,
    pub pass: bool,
    pub ends: Vec<PointsEnd>,
}

/// A position: each side's pieces as a mask of points, the side to move, the pieces in hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PPos {
    own: [u64; 2],
    side: u8,
    hand: [u8; 2],
}

/// What a move does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Pass,
    /// A piece from the hand, or from the supply.
    Place(u8),
    /// A placement that turns the flanked runs.
    Flank(u8),
    /// A piece from one point to another, capturing the piece at `take` if any.
    Move {
        from: u8,
        to: u8,
        take: Option<u8>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PMove {
    act: Act,
    /// The opponent's piece removed after a mill.
    remove: Option<u8>,
}

/// The rules of a points game, checked.
#[derive(Clone)]
pub struct PointsRules {
    n: usize,
    full: u64,
    marks: [char; 2],
    grid: Option<(usize, usize)>,
    coords: Option<Vec<(i32, i32)>>,
    /// From each point, along each line both ways, the points that follow in order.
    rays: Vec<Vec<Vec<u8>>>,
    moves: [Vec<MoveKind>; 2],
    towards: [Towards; 2],
    hand: [u8; 2],
    /// The masks of K points in a row on a line, for `Line(K)`, and for mills.
    line_masks: Vec<u64>,
    mill_masks: Vec<u64>,
    pass: bool,
    ends: Vec<PointsEnd>,
    /// Pieces leave the board (captures, mills): the text then says the pieces in hand.
    removes: bool,
    /// For `Reach`: each side's far edge, a mask of points (0 without `Reach`).
    goal: [u64; 2],
    /// The board's symmetries that keep the rules (`symmetry.rs`), the identity left out.
    syms: Vec<Vec<u8>>,
}

fn bit(p: u8) -> u64 {
    1u64 << p
}

fn points_of(mut m: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let p = m.trailing_zeros() as u8;
            m &= m - 1;
            p
        })
    })
}

/// The masks of every `k` points in a row on one of `lines`.
fn windows(lines: &[Vec<usize>], k: usize) -> Vec<u64> {
    let mut out: Vec<u64> = lines
        .iter()
        .flat_map(|l| l.windows(k).map(|w| w.iter().fold(0u64, |m, &p| m | (1u64 << p))).collect::<Vec<_>>())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

impl PointsRules {
    /// The rules of `spec`, or the field at fault and why.
    pub fn new(spec: PointsSpec) -> Result<PointsRules, (&'static str, String)> {
        let layout = spec.board.layout().map_err(|e| ("board", e))?;
        let n = layout.points;
        let marks: Vec<char> = spec.marks.as_deref().unwrap_or("xo").chars().collect();
        if marks.len() != 2
            || marks[0].eq_ignore_ascii_case(&marks[1])
            || marks.iter().any(|c| !c.is_ascii_alphanumeric())
        {
            return Err((
                "marks",
                "`marks` is two different letters or digits, the first player's first: \"xo\"".into(),
            ));
        }
        let longest = layout.lines.iter().map(Vec::len).max().unwrap_or(0);
        let rays = symmetry::rays(n, &layout.lines);
        let (h0, h1) = spec.hand;
        if h0 > n as u32 || h1 > n as u32 || h0 + h1 > n as u32 {
            return Err((
                "hand",
                format!("{h0} and {h1} pieces in hand cannot all be placed on a board of {n} points"),
            ));
        }
        let towards = [spec.towards.0, spec.towards.1];
        if towards.iter().any(|&t| t != Towards::Any) && layout.coords.is_none() {
            return Err(("towards", "`towards` needs a board of rows and columns (Row, Grid or Morris)".into()));
        }
        let moves = [spec.moves.0, spec.moves.1];
        for (side, (list, h)) in moves.iter().zip([h0, h1]).enumerate() {
            if list.is_empty() && h == 0 {
                return Err((
                    "moves",
                    format!("the {} player has no piece in hand and no kind of move", ["first", "second"][side]),
                ));
            }
        }
        let mut line_masks = Vec::new();
        let kept = |m: &MoveKind| matches!(m.along(), Some((_, Lines::Straight | Lines::Diagonal)));
        if moves.iter().flatten().any(kept) && layout.coords.is_none() {
            return Err((
                "moves",
                "`Straight(...)` and `Diagonal(...)` need a board of rows and columns (Row, Grid or Morris)".into(),
            ));
        }
        let mut removes = moves.iter().flatten().any(|m| m.takes());
        let mut goal = [0u64; 2];
        for e in &spec.ends {
            match *e {
                PointsEnd::Line(k) => {
                    if k < 2 || k > longest {
                        return Err(("ends", format!("Line({k}): the board's longest line has {longest} points")));
                    }
                    line_masks.extend(windows(&layout.lines, k));
                }
                PointsEnd::Square => {
                    let Some((rows, cols)) = layout.grid.filter(|&(r, c)| r >= 2 && c >= 2) else {
                        return Err(("ends", "Square needs a board of at least 2 rows and 2 columns (Grid)".into()));
                    };
                    let at = |r: usize, c: usize| 1u64 << (r * cols + c);
                    for (r, c) in (0..rows - 1).flat_map(|r| (0..cols - 1).map(move |c| (r, c))) {
                        line_masks.push(at(r, c) | at(r, c + 1) | at(r + 1, c) | at(r + 1, c + 1));
                    }
                }
                PointsEnd::Captured(_) if h0 + h1 == 0 => {
                    return Err(("ends", "Captured counts the pieces lost from the hand, and `hand` is (0, 0)".into()));
                }
                PointsEnd::Reach => {
                    let coords = layout.coords.as_deref().unwrap_or(&[]);
                    for (s, g) in goal.iter_mut().enumerate() {
                        let key = |&(r, c): &(i32, i32)| match towards[s] {
                            Towards::Up => -r,
                            Towards::Down => r,
                            Towards::Left => -c,
                            Towards::Right => c,
                            Towards::Any => 0,
                        };
                        if towards[s] == Towards::Any || coords.is_empty() {
                            return Err((
                                "ends",
                                "Reach wins on the far edge a side goes towards: give both sides' `towards` \
                                 (Up, Down, Left or Right) on a board of rows and columns"
                                    .into(),
                            ));
                        }
                        let far = coords.iter().map(key).max().unwrap_or(0);
                        *g = coords.iter().enumerate().filter(|(_, rc)| key(rc) == far).fold(0, |m, (p, _)| m | 1 << p);
                    }
                }
                PointsEnd::MostPieces if !spec.pass => {
                    return Err((
                        "ends",
                        "MostPieces counts when neither player can move: it needs `pass: true`".into(),
                    ));
                }
                _ => {}
            }
        }
        let mill_masks = match spec.mill {
            None => Vec::new(),
            Some(k) if k < 2 || k > longest => {
                return Err(("mill", format!("mill: {k}: the board's longest line has {longest} points")));
            }
            Some(k) => {
                removes = true;
                windows(&layout.lines, k)
            }
        };
        let mut rules = PointsRules {
            n,
            full: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
            marks: [marks[0], marks[1]],
            grid: layout.grid,
            coords: layout.coords,
            rays,
            moves,
            towards,
            hand: [h0 as u8, h1 as u8],
            line_masks,
            mill_masks,
            pass: spec.pass,
            ends: spec.ends,
            removes,
            goal,
            syms: Vec::new(),
        };
        rules.syms = rules.symmetries();
        Ok(rules)
    }

    /// The permutations of the points that keep the lines, the masks the ends and mills look
    /// at, and the way each side may go (`towards`); the identity left out.
    fn symmetries(&self) -> Vec<Vec<u8>> {
        let sorted = |masks: &[u64], perm: &[u8]| {
            let mut m: Vec<u64> = masks.iter().map(|&x| symmetry::permute(perm, x)).collect();
            m.sort_unstable();
            m
        };
        let (mut lines, mut mills) = (self.line_masks.clone(), self.mill_masks.clone());
        lines.sort_unstable();
        mills.sort_unstable();
        let kept =
            self.moves.iter().flatten().any(|m| matches!(m.along(), Some((_, Lines::Straight | Lines::Diagonal))));
        let keeps = |perm: &[u8]| {
            sorted(&self.line_masks, perm) == lines
                && sorted(&self.mill_masks, perm) == mills
                && self.goal.iter().all(|&g| symmetry::permute(perm, g) == g)
                && (!kept
                    || (0..self.n).all(|a| {
                        self.rays[a]
                            .iter()
                            .flatten()
                            .all(|&b| self.diagonal(a as u8, b) == self.diagonal(perm[a], perm[b as usize]))
                    }))
                && (0..self.n).all(|a| {
                    self.rays[a]
                        .iter()
                        .flatten()
                        .all(|&b| (0..2).all(|s| self.goes(s, a as u8, b) == self.goes(s, perm[a], perm[b as usize])))
                })
        };
        let mut all = symmetry::automorphisms(&self.rays, keeps);
        all.remove(0);
        all
    }

    /// How many symmetries the rules keep (1: the identity alone).
    #[cfg(test)]
    pub fn symmetry_count(&self) -> usize {
        self.syms.len() + 1
    }

    /// The representative of `p`'s class under the symmetries: of its images, the one whose
    /// masks are least. The side and the hands are kept.
    pub fn canonical(&self, p: &PPos) -> PPos {
        let mut best = p.own;
        for perm in &self.syms {
            let image = [symmetry::permute(perm, p.own[0]), symmetry::permute(perm, p.own[1])];
            if image < best {
                best = image;
            }
        }
        PPos { own: best, ..p.clone() }
    }

    /// The start when the descriptor gives none: an empty board, the first player to move.
    pub fn empty_start(&self) -> String {
        self.format(&PPos { own: [0, 0], side: 0, hand: self.hand })
    }

    pub fn to_move(&self, p: &PPos) -> usize {
        p.side as usize
    }

    /// Pieces from the hand that are no longer on the board.
    fn lost(&self, p: &PPos, s: usize) -> u32 {
        (self.hand[s] as u32).saturating_sub(p.hand[s] as u32 + p.own[s].count_ones())
    }

    fn goes(&self, s: usize, from: u8, to: u8) -> bool {
        let Some(c) = &self.coords else { return true };
        let (a, b) = (c[from as usize], c[to as usize]);
        match self.towards[s] {
            Towards::Any => true,
            Towards::Left => b.1 < a.1,
            Towards::Right => b.1 > a.1,
            Towards::Up => b.0 < a.0,
            Towards::Down => b.0 > a.0,
        }
    }

    /// Whether the line from `a` to `b` is a diagonal (both row and column change).
    fn diagonal(&self, a: u8, b: u8) -> bool {
        let Some(c) = &self.coords else { return false };
        let (a, b) = (c[a as usize], c[b as usize]);
        a.0 != b.0 && a.1 != b.1
    }

    /// Whether a move from `a` along the line to `b` keeps to `lines`.
    fn keeps_to(&self, lines: Lines, a: u8, b: u8) -> bool {
        match lines {
            Lines::All => true,
            Lines::Straight => !self.diagonal(a, b),
            Lines::Diagonal => self.diagonal(a, b),
        }
    }

    /// The points `s` turns by placing on `t`.
    fn flips(&self, p: &PPos, s: usize, t: u8) -> u64 {
        let (mine, theirs) = (p.own[s], p.own[1 - s]);
        let mut out = 0;
        for ray in &self.rays[t as usize] {
            let mut run = 0;
            for &q in ray {
                if theirs & bit(q) != 0 {
                    run |= bit(q);
                } else {
                    if mine & bit(q) != 0 {
                        out |= run;
                    }
                    break;
                }
            }
        }
        out
    }

    /// The moves of side `s` at `p`, mills included, passes not.
    fn moves_of(&self, p: &PPos, s: usize) -> Vec<PMove> {
        let empty = !(p.own[0] | p.own[1]) & self.full;
        let mut base = Vec::new();
        if p.hand[s] > 0 {
            base.extend(points_of(empty).map(Act::Place));
        } else {
            let count = p.own[s].count_ones();
            let flying = self.moves[s].iter().any(|m| matches!(m, MoveKind::Fly(k) if count <= *k));
            for kind in &self.moves[s] {
                match kind {
                    MoveKind::Place => base.extend(points_of(empty).map(Act::Place)),
                    MoveKind::Flank => {
                        base.extend(points_of(empty).filter(|&t| self.flips(p, s, t) != 0).map(Act::Flank));
                    }
                    MoveKind::Fly(_) => {
                        if flying {
                            for from in points_of(p.own[s]) {
                                base.extend(points_of(empty).map(|to| Act::Move { from, to, take: None }));
                            }
                        }
                    }
                    _ => {
                        let Some((kind, lines)) = kind.along() else { continue };
                        if !(kind == Along::Step && flying) {
                            self.moves_along(p, s, kind, lines, &mut base);
                        }
                    }
                }
            }
        }
        let mut out = Vec::with_capacity(base.len());
        for act in base {
            let mv = PMove { act, remove: None };
            if self.mill_masks.is_empty() {
                out.push(mv);
                continue;
            }
            let after = self.apply(p, s, mv);
            let to = match act {
                Act::Place(t) | Act::Flank(t) | Act::Move { to: t, .. } => t,
                Act::Pass => continue,
            };
            let mine = after.own[s];
            if !self.mill_masks.iter().any(|&m| m & bit(to) != 0 && m & mine == m) {
                out.push(mv);
                continue;
            }
            // A mill: an opponent's piece goes, one in no mill of theirs if there is one.
            let theirs = after.own[1 - s];
            let in_mill = self.mill_masks.iter().filter(|&&m| m & theirs == m).fold(0, |a, &m| a | m);
            let free = if theirs & !in_mill != 0 { theirs & !in_mill } else { theirs };
            if free == 0 {
                out.push(mv);
            }
            out.extend(points_of(free).map(|r| PMove { act, remove: Some(r) }));
        }
        out
    }

    /// Side `s`'s moves of `kind` along the lines it keeps to, pushed on `out`.
    fn moves_along(&self, p: &PPos, s: usize, kind: Along, lines: Lines, out: &mut Vec<Act>) {
        let (empty, theirs) = (!(p.own[0] | p.own[1]) & self.full, p.own[1 - s]);
        for from in points_of(p.own[s]) {
            for ray in &self.rays[from as usize] {
                let (next, after) = (ray[0], ray.get(1).copied());
                if !self.keeps_to(lines, from, next) {
                    continue;
                }
                match kind {
                    Along::Step if empty & bit(next) != 0 && self.goes(s, from, next) => {
                        out.push(Act::Move { from, to: next, take: None });
                    }
                    Along::Take if theirs & bit(next) != 0 && self.goes(s, from, next) => {
                        out.push(Act::Move { from, to: next, take: Some(next) });
                    }
                    Along::Jump | Along::Capture => {
                        if let Some(to) = after
                            && theirs & bit(next) != 0
                            && empty & bit(to) != 0
                            && self.goes(s, from, to)
                        {
                            let take = (kind == Along::Capture).then_some(next);
                            out.push(Act::Move { from, to, take });
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `mv` by side `s`, the turn not yet passed.
    fn apply(&self, p: &PPos, s: usize, mv: PMove) -> PPos {
        let mut q = p.clone();
        match mv.act {
            Act::Pass => {}
            Act::Place(t) => {
                if q.hand[s] > 0 {
                    q.hand[s] -= 1;
                }
                q.own[s] |= bit(t);
            }
            Act::Flank(t) => {
                let f = self.flips(p, s, t);
                q.own[s] |= bit(t) | f;
                q.own[1 - s] &= !f;
            }
            Act::Move { from, to, take } => {
                q.own[s] = (q.own[s] & !bit(from)) | bit(to);
                if let Some(x) = take {
                    q.own[1 - s] &= !bit(x);
                }
            }
        }
        if let Some(r) = mv.remove {
            q.own[1 - s] &= !bit(r);
        }
        q
    }

    pub fn moves(&self, p: &PPos) -> Vec<PMove> {
        let s = p.side as usize;
        let out = self.moves_of(p, s);
        if out.is_empty() && self.pass && !self.moves_of(p, 1 - s).is_empty() {
            return vec![PMove { act: Act::Pass, remove: None }];
        }
        out
    }

    /// The position after `mv`, if it is one of the moves from `p`.
    pub fn play(&self, p: &PPos, mv: PMove) -> Option<PPos> {
        if !self.moves(p).contains(&mv) {
            return None;
        }
        Some(self.play_unchecked(p, mv))
    }

    pub fn play_unchecked(&self, p: &PPos, mv: PMove) -> PPos {
        let mut q = self.apply(p, p.side as usize, mv);
        q.side ^= 1;
        q
    }

    pub fn children(&self, p: &PPos) -> Vec<PPos> {
        self.moves(p).into_iter().map(|m| self.play_unchecked(p, m)).collect()
    }

    /// The value for the player to move if the game is over at `p`.
    pub fn primitive(&self, p: &PPos) -> Option<Value> {
        let (s, o) = (p.side as usize, 1 - p.side as usize);
        for e in &self.ends {
            match *e {
                PointsEnd::Captured(k) if self.lost(p, s) >= k => return Some(Value::Lose),
                PointsEnd::Captured(k) if self.lost(p, o) >= k => return Some(Value::Win),
                PointsEnd::FewerThan(k) if p.own[s].count_ones() + (p.hand[s] as u32) < k => {
                    return Some(Value::Lose);
                }
                PointsEnd::FewerThan(k) if p.own[o].count_ones() + (p.hand[o] as u32) < k => {
                    return Some(Value::Win);
                }
                _ => {}
            }
        }
        let line = |m: u64| self.line_masks.iter().any(|&w| (m & w) ^ w == 0);
        if line(p.own[o]) || p.own[o] & self.goal[o] != 0 {
            return Some(Value::Lose);
        }
        if line(p.own[s]) || p.own[s] & self.goal[s] != 0 {
            return Some(Value::Win);
        }
        if self.pass && self.moves_of(p, s).is_empty() && self.moves_of(p, o).is_empty() {
            if self.ends.contains(&PointsEnd::MostPieces) {
                let (a, b) = (p.own[s].count_ones(), p.own[o].count_ones());
                return Some(if a > b {
                    Value::Win
                } else if a < b {
                    Value::Lose
                } else {
                    Value::Tie
                });
            }
            return Some(Value::Lose);
        }
        None
    }

    /// Read a position: the points (rows may be separated by `/`), a space, the mark of the
    /// side to move, and, where pieces leave the board, the two hands ("..C.V..... V 3 0").
    pub fn parse(&self, text: &str) -> Result<PPos, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let example = self.empty_start();
        let (board, side) = match words.as_slice() {
            [b, s, ..] => (b, s),
            _ => return Err(format!("a position is the points, a space and the side to move, e.g. {example:?}")),
        };
        let mark = |c: char| self.marks.iter().position(|m| m.eq_ignore_ascii_case(&c));
        let cells: Vec<char> = board.chars().filter(|&c| c != '/').collect();
        if cells.len() != self.n {
            return Err(format!("the board has {} points, the text {} (e.g. {example:?})", self.n, cells.len()));
        }
        let mut own = [0u64; 2];
        for (i, &c) in cells.iter().enumerate() {
            match (c, mark(c)) {
                ('.', _) => {}
                (_, Some(s)) => own[s] |= 1 << i,
                _ => {
                    return Err(format!("{c:?} is not a point: {}, {} or . for empty", self.marks[0], self.marks[1]));
                }
            }
        }
        let side = match side.chars().collect::<Vec<_>>().as_slice() {
            [c] if mark(*c).is_some() => mark(*c).unwrap_or(0) as u8,
            _ => return Err(format!("the side to move is {} or {}, not {side:?}", self.marks[0], self.marks[1])),
        };
        let hand = match &words[2..] {
            [] if !self.removes || self.hand == [0, 0] => {
                let mut hand = [0u8; 2];
                for (s, h) in hand.iter_mut().enumerate() {
                    let on = own[s].count_ones() as u8;
                    if self.hand[s] > 0 {
                        *h = self.hand[s].checked_sub(on).ok_or_else(|| {
                            format!("{} has {on} pieces on the board, more than its {}", self.marks[s], self.hand[s])
                        })?;
                    }
                }
                hand
            }
            [a, b] if self.removes && self.hand != [0, 0] => {
                let mut hand = [0u8; 2];
                for (s, w) in [a, b].iter().enumerate() {
                    let h: u8 = w.parse().map_err(|_| format!("{w:?} is not a number of pieces in hand"))?;
                    if h > self.hand[s] || h as u32 + own[s].count_ones() > self.hand[s] as u32 {
                        return Err(format!(
                            "{} has {h} in hand and {} on the board, more than its {} pieces",
                            self.marks[s],
                            own[s].count_ones(),
                            self.hand[s]
                        ));
                    }
                    hand[s] = h;
                }
                hand
            }
            _ if self.removes && self.hand != [0, 0] => {
                return Err(format!("write the pieces in hand after the side to move, e.g. {example:?}"));
            }
            _ => return Err(format!("a position is the points and the side to move, e.g. {example:?}")),
        };
        Ok(PPos { own, side, hand })
    }

    fn cells(&self, p: &PPos, rows: &str) -> String {
        let mut out = String::new();
        for i in 0..self.n {
            if let Some((_, cols)) = self.grid
                && i > 0
                && i % cols == 0
            {
                out.push_str(rows);
            }
            let b = 1u64 << i;
            out.push(if p.own[0] & b != 0 {
                self.marks[0]
            } else if p.own[1] & b != 0 {
                self.marks[1]
            } else {
                '.'
            });
        }
        out
    }

    pub fn format(&self, p: &PPos) -> String {
        let mut out = format!("{} {}", self.cells(p, "/"), self.marks[p.side as usize]);
        if self.removes && self.hand != [0, 0] {
            out += &format!(" {} {}", p.hand[0], p.hand[1]);
        }
        out
    }

    pub fn show(&self, p: &PPos) -> String {
        let mut out = format!("{}\n{} to move", self.cells(p, "\n"), self.marks[p.side as usize]);
        if self.hand != [0, 0] {
            out += &format!("; in hand: {} {}, {} {}", self.marks[0], p.hand[0], self.marks[1], p.hand[1]);
        }
        out
    }

    /// A move's name: the point placed on, "from-to", "pass", with "xN" for a removal.
    pub fn move_name(&self, mv: PMove) -> String {
        let mut out = match mv.act {
            Act::Pass => "pass".to_string(),
            Act::Place(t) | Act::Flank(t) => t.to_string(),
            Act::Move { from, to, .. } => format!("{from}-{to}"),
        };
        if let Some(r) = mv.remove {
            out += &format!("x{r}");
        }
        out
    }
}

// --- Keys and tiers -------------------------------------------------------------------
// A points game's positions as integer keys (the searches of value and remoteness run on
// them) and by tier and index (the tier solver and the array database).
//
// A key: the first player's points in bits `0..n`, the second's in `n..2n`, the side to move
// in bit `2n`, the pieces in hand in the 7 bits from `2n + 1` and from `2n + 8` (boards of
// at most 56 points). A tier: the pieces of each side on the board and in hand; the index in
// a tier: the combinatorial rank of the two masks among the boards with those counts, times
// two, plus the side to move.

/// The most points a keyed board may have (two masks, the side and two hands in 128 bits).
pub const MAX_KEY_POINTS: usize = 56;
/// The most points a board numbered by tiers may have (an index below 2^64).
pub const MAX_TIER_POINTS: usize = 32;

/// The keys of a points game, over the game's own position type `P` (which wraps a `PPos`).
pub struct PointsKeys<P> {
    rules: PointsRules,
    n: u32,
    wrap: fn(PPos) -> P,
    unwrap: fn(&P) -> Option<&PPos>,
}

impl<P> PointsKeys<P> {
    /// `None` for a board of more than [`MAX_KEY_POINTS`] points.
    pub fn new(rules: &PointsRules, wrap: fn(PPos) -> P, unwrap: fn(&P) -> Option<&PPos>) -> Option<Self> {
        (rules.n <= MAX_KEY_POINTS).then(|| PointsKeys { rules: rules.clone(), n: rules.n as u32, wrap, unwrap })
    }

    pub fn key(&self, p: &PPos) -> u128 {
        let n = self.n;
        u128::from(p.own[0])
            | u128::from(p.own[1]) << n
            | u128::from(p.side & 1) << (2 * n)
            | u128::from(p.hand[0] & 127) << (2 * n + 1)
            | u128::from(p.hand[1] & 127) << (2 * n + 8)
    }

    pub fn position(&self, key: u128) -> PPos {
        let n = self.n;
        let mask = (1u128 << n) - 1;
        PPos {
            own: [(key & mask) as u64, ((key >> n) & mask) as u64],
            side: (key >> (2 * n)) as u8 & 1,
            hand: [(key >> (2 * n + 1)) as u8 & 127, (key >> (2 * n + 8)) as u8 & 127],
        }
    }
}

impl<P: 'static> PackedPlay<P> for PointsKeys<P> {
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
}

/// A tier's number from the counts: pieces on the board, then in hand, a byte each.
fn tier_of(c: [u32; 2], h: [u32; 2]) -> Tier {
    u64::from(c[0]) | u64::from(c[1]) << 8 | u64::from(h[0]) << 16 | u64::from(h[1]) << 24
}

fn counts(t: Tier) -> ([u32; 2], [u32; 2]) {
    let b = |i: u32| (t >> (8 * i)) as u32 & 255;
    ([b(0), b(1)], [b(2), b(3)])
}

/// A points game by tiers, over the game's own position type `P`.
pub struct PointsTiers<P> {
    rules: PointsRules,
    ranker: Ranker,
    /// Every move that keeps the counts can be undone (steps, jumps that take nothing,
    /// flights; no mills, passes or ways a side may not go): the tiers give parents.
    undo: bool,
    wrap: fn(PPos) -> P,
    unwrap: fn(&P) -> Option<&PPos>,
}

impl<P> PointsTiers<P> {
    /// The tiers of `rules`, or why it has none: a board of more than [`MAX_TIER_POINTS`]
    /// points, or pieces that both come from a supply (`Place` with an empty hand, `Flank`)
    /// and leave the board (captures, mills), whose counts could go round in a circle.
    pub fn new(rules: &PointsRules, wrap: fn(PPos) -> P, unwrap: fn(&P) -> Option<&PPos>) -> Result<Self, String> {
        if rules.n > MAX_TIER_POINTS {
            return Err(format!("a board of {} points has no tiers (at most {MAX_TIER_POINTS})", rules.n));
        }
        let supply = rules.moves.iter().flatten().any(|m| matches!(m, MoveKind::Place | MoveKind::Flank));
        if supply && rules.removes {
            return Err("pieces that come from a supply and leave the board have no tiers".into());
        }
        let plain = |m: &MoveKind| !matches!(m, MoveKind::Straight(_) | MoveKind::Diagonal(_));
        let undo = !rules.pass
            && rules.mill_masks.is_empty()
            && rules.towards.iter().all(|&t| t == Towards::Any)
            && rules.moves.iter().flatten().all(plain);
        Ok(PointsTiers { rules: rules.clone(), ranker: Ranker::new(rules.n as u32), undo, wrap, unwrap })
    }

    /// The tier and index of a position.
    pub fn place(&self, p: &PPos) -> (Tier, u64) {
        let c = [p.own[0].count_ones(), p.own[1].count_ones()];
        let tier = tier_of(c, [u32::from(p.hand[0]), u32::from(p.hand[1])]);
        (tier, self.ranker.rank(&p.own) * 2 + u64::from(p.side & 1))
    }

    /// The tier and index of the representative of `p`'s class.
    fn place_class(&self, p: &PPos) -> (Tier, u64) {
        if self.rules.syms.is_empty() { self.place(p) } else { self.place(&self.rules.canonical(p)) }
    }

    /// The position at `index` of `tier`.
    pub fn at(&self, tier: Tier, index: u64) -> PPos {
        let (c, h) = counts(tier);
        let mut own = [0u64; 2];
        self.ranker.unrank(&c, index / 2, &mut own);
        PPos { own, side: (index & 1) as u8, hand: [h[0] as u8, h[1] as u8] }
    }
}

impl<P> TierSpace for PointsTiers<P> {
    /// Side `s` to move: a piece from the hand (its hand down one, its board up one), else each
    /// kind of move it has (a step keeps the counts; a capture takes one of the opponent's; a
    /// placement from the supply adds one of its own; a flank turns some of the opponent's);
    /// a mill then removes one of the opponent's pieces. Either side may be to move.
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        let (c, h) = counts(tier);
        let n = self.rules.n as u32;
        let mill = !self.rules.mill_masks.is_empty();
        let mut out = Vec::new();
        for s in 0..2 {
            let o = 1 - s;
            // (own pieces added, opponent's taken) on the board, and whether from the hand.
            let mut deltas: Vec<(u32, u32, bool)> = Vec::new();
            if h[s] > 0 {
                deltas.push((1, 0, true));
            } else {
                for kind in &self.rules.moves[s] {
                    match kind {
                        MoveKind::Place => deltas.push((1, 0, false)),
                        MoveKind::Flank => deltas.extend((1..=c[o]).map(|f| (1 + f, f, false))),
                        k if k.takes() => deltas.push((0, 1, false)),
                        _ => {}
                    }
                }
                deltas.push((0, 0, false));
            }
            if mill {
                let more: Vec<_> = deltas.iter().map(|&(a, t, hand)| (a, t + 1, hand)).collect();
                deltas.extend(more);
            }
            for (add, take, hand) in deltas {
                if take > c[o] || c[0] + c[1] + add > n + take {
                    continue;
                }
                let (mut c2, mut h2) = (c, h);
                c2[s] += add;
                c2[o] -= take;
                if hand {
                    h2[s] -= 1;
                }
                let t = tier_of(c2, h2);
                if t != tier && !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        let (c, _) = counts(tier);
        self.ranker.count(&c).map_or(0, |k| k * 2)
    }

    fn tier_name(&self, tier: Tier) -> String {
        let (c, h) = counts(tier);
        let m = self.rules.marks;
        format!("{}{}-{}{}-hand{}-{}", c[0], m[0], c[1], m[1], h[0], h[1])
    }

    /// The index of the position's representative under the board's symmetries (which keep
    /// the counts, and so the tier).
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
        out.extend(self.rules.children(&p).iter().map(|c| self.place_class(c)));
    }

    fn has_parents(&self) -> bool {
        self.undo
    }

    /// The positions of the same tier one move before (the only ones the solver asks for):
    /// the side that moved last took one of its pieces back, along a step, a jump over one of
    /// the opponent's pieces, or a flight, to an empty point. A side with pieces in hand
    /// places, which leaves the tier, so then there are none.
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        let (r, m) = (&self.rules, 1 - p.side as usize);
        if p.hand[m] > 0 {
            return;
        }
        let empty = !(p.own[0] | p.own[1]) & r.full;
        let count = p.own[m].count_ones();
        let flying = r.moves[m].iter().any(|k| matches!(k, MoveKind::Fly(f) if count <= *f));
        let step = !flying && r.moves[m].contains(&MoveKind::Step);
        let jump = r.moves[m].contains(&MoveKind::Jump);
        for to in points_of(p.own[m]) {
            let mut from = 0u64;
            for ray in &r.rays[to as usize] {
                if step && empty & bit(ray[0]) != 0 {
                    from |= bit(ray[0]);
                }
                if jump && ray.len() >= 2 && p.own[1 - m] & bit(ray[0]) != 0 && empty & bit(ray[1]) != 0 {
                    from |= bit(ray[1]);
                }
            }
            if flying {
                from = empty;
            }
            for a in points_of(from) {
                let mut q = p.clone();
                q.own[m] ^= bit(to) | bit(a);
                q.side = m as u8;
                out.push(self.place_class(&q));
            }
        }
    }

    /// Only a step, a jump, a flight or a pass keeps the counts, and a side with pieces in
    /// hand only places: with both hands full no move stays in the tier.
    fn moves_within(&self, tier: Tier) -> bool {
        let (_, h) = counts(tier);
        let keeps = |s: usize| {
            h[s] == 0
                && (self.rules.pass
                    || self.rules.moves[s].iter().any(|m| {
                        matches!(m, MoveKind::Fly(_)) || matches!(m.along(), Some((Along::Step | Along::Jump, _)))
                    }))
        };
        keeps(0) || keeps(1)
    }
}

impl<P> Tiers for PointsTiers<P> {
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
mod key_tests {
    use super::*;

    fn morris(points: usize, pieces: u32) -> PointsRules {
        PointsRules::new(PointsSpec {
            board: BoardSpec::Morris(points),
            marks: None,
            moves: (vec![MoveKind::Step], vec![MoveKind::Step]),
            hand: (pieces, pieces),
            towards: (Towards::Any, Towards::Any),
            mill: (points > 3).then_some(3),
            pass: false,
            ends: if points > 3 { vec![PointsEnd::FewerThan(3)] } else { vec![PointsEnd::Line(3)] },
        })
        .unwrap()
    }

    /// Every index of every tier of a small board is a position that goes back to it, and
    /// every child of it lies in the tier itself or in one of the tier's child tiers.
    #[test]
    fn tiers_number_every_position_once() {
        let r = morris(3, 3);
        let t: PointsTiers<PPos> = PointsTiers::new(&r, |p| p, |p| Some(p)).unwrap();
        let k: PointsKeys<PPos> = PointsKeys::new(&r, |p| p, |p| Some(p)).unwrap();
        let mut seen = 0;
        for c0 in 0..=3 {
            for c1 in 0..=3 {
                for h0 in 0..=3 - c0 {
                    for h1 in 0..=3 - c1 {
                        let tier = tier_of([c0, c1], [h0, h1]);
                        let kids = t.child_tiers(tier);
                        let size = t.tier_size(tier);
                        // 9! / (c0! c1! (9 - c0 - c1)!) placements, each with either side to move.
                        let f = |n: u64| (1..=n).product::<u64>();
                        let (a, b) = (u64::from(c0), u64::from(c1));
                        assert_eq!(size, 2 * f(9) / (f(a) * f(b) * f(9 - a - b)));
                        for i in 0..size {
                            let p = t.at(tier, i);
                            assert_eq!(t.place(&p), (tier, i));
                            assert_eq!(k.position(k.key(&p)), p);
                            for ch in r.children(&p) {
                                let (ct, _) = t.place(&ch);
                                assert!(
                                    ct == tier || kids.contains(&ct),
                                    "{} -> {}",
                                    t.tier_name(tier),
                                    t.tier_name(ct)
                                );
                                if ct == tier {
                                    assert!(t.moves_within(tier));
                                }
                            }
                            seen += 1;
                        }
                    }
                }
            }
        }
        assert!(seen > 0);
    }

    /// Six Men's Morris: the tiers of mills and removals hold every child too.
    #[test]
    fn six_mens_children_lie_in_child_tiers() {
        let r = morris(6, 6);
        let t: PointsTiers<PPos> = PointsTiers::new(&r, |p| p, |p| Some(p)).unwrap();
        for (c, h) in [([3, 3], [3, 3]), ([5, 4], [1, 1]), ([6, 5], [0, 0]), ([3, 4], [0, 0]), ([2, 2], [4, 4])] {
            let tier = tier_of(c, h);
            let kids = t.child_tiers(tier);
            let size = t.tier_size(tier);
            for i in (0..size).step_by((size / 5000).max(1) as usize) {
                let p = t.at(tier, i);
                assert_eq!(t.place(&p), (tier, i));
                for ch in r.children(&p) {
                    let (ct, ci) = t.place(&ch);
                    assert!(ct == tier || kids.contains(&ct), "{} -> {}", t.tier_name(tier), t.tier_name(ct));
                    assert!(ci < t.tier_size(ct));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(board: BoardSpec, moves: Vec<MoveKind>, ends: Vec<PointsEnd>) -> PointsRules {
        let spec = PointsSpec {
            board,
            marks: None,
            moves: (moves.clone(), moves),
            hand: (0, 0),
            towards: (Towards::Any, Towards::Any),
            mill: None,
            pass: true,
            ends,
        };
        PointsRules::new(spec).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// Othello's flips by hand: on a row x o o . , x placing on point 3 turns 1 and 2.
    #[test]
    fn flank_turns_the_runs() {
        let r = rules(BoardSpec::Row(4), vec![MoveKind::Flank], vec![PointsEnd::MostPieces]);
        let p = r.parse("xoo. x").unwrap();
        let names: Vec<String> = r.moves(&p).into_iter().map(|m| r.move_name(m)).collect();
        assert_eq!(names, ["3"]);
        let q = r.children(&p).remove(0);
        assert_eq!(r.format(&q), "xxxx o");
        // Neither can move now: x has 4, o none.
        assert_eq!(r.primitive(&q), Some(Value::Lose));
    }

    /// The star's lines: point 0 is joined to 5 and 9, and jumps from 0 land on 6 and 8.
    #[test]
    fn star_lines() {
        let r = rules(BoardSpec::Star, vec![MoveKind::Step, MoveKind::Capture], vec![]);
        let p = r.parse("x....o...o x").unwrap();
        let mut names: Vec<String> = r.moves(&p).into_iter().map(|m| r.move_name(m)).collect();
        names.sort();
        assert_eq!(names, ["0-6", "0-8"]);
    }

    /// A mill removes a piece, one outside the opponent's mills while there is one.
    #[test]
    fn mill_removes_outside_mills() {
        let spec = PointsSpec {
            board: BoardSpec::Morris(3),
            marks: None,
            moves: (vec![MoveKind::Step], vec![MoveKind::Step]),
            hand: (4, 4),
            towards: (Towards::Any, Towards::Any),
            mill: Some(3),
            pass: false,
            ends: vec![],
        };
        let r = PointsRules::new(spec).unwrap();
        // x places its third man on 2, making the top row: o's men at 3, 4, 5 are a mill,
        // the one at 8 is not, so only 8 may go.
        let p = r.parse("xx.ooo..o x 2 0").unwrap();
        let names: Vec<String> = r.moves(&p).into_iter().map(|m| r.move_name(m)).collect();
        assert!(names.contains(&"2x8".to_string()), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with("2x3") || n.starts_with("2x4")), "{names:?}");
    }
}

#[cfg(test)]
mod symmetry_tests {
    use super::symmetry::permute;
    use super::*;

    fn rules(board: BoardSpec, towards: (Towards, Towards), ends: Vec<PointsEnd>, mill: Option<usize>) -> PointsRules {
        let hand = if mill.is_some() { (6, 6) } else { (0, 0) };
        let spec = PointsSpec {
            board,
            marks: None,
            moves: (vec![MoveKind::Step, MoveKind::Jump], vec![MoveKind::Step, MoveKind::Capture]),
            hand,
            towards,
            mill,
            pass: false,
            ends,
        };
        PointsRules::new(spec).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// The size of each board's group, counted by hand: a square's 8 (turns and mirrors), a
    /// rectangle's 4, a row's 2; the Morris boards of two and three squares 16 (the square's
    /// 8, each also with the inner and outer squares swapped); the star's 10 (5 turns, 5
    /// mirrors). A side that may only go right keeps no mirror of a row; a unit square
    /// (`Square`) is kept by the square's 8.
    #[test]
    fn groups_of_the_boards() {
        let any = (Towards::Any, Towards::Any);
        let grid = |rows, cols, diagonals| BoardSpec::Grid { rows, cols, diagonals };
        let cases = [
            (rules(grid(5, 5, true), any, vec![PointsEnd::Line(4), PointsEnd::Square], None), 8),
            (rules(grid(4, 4, false), any, vec![], None), 8),
            (rules(grid(3, 4, true), any, vec![], None), 4),
            (rules(BoardSpec::Row(8), any, vec![], None), 2),
            (rules(BoardSpec::Row(8), (Towards::Right, Towards::Left), vec![], None), 1),
            (rules(grid(4, 4, false), (Towards::Down, Towards::Up), vec![], None), 2),
            (rules(BoardSpec::Morris(3), any, vec![PointsEnd::Line(3)], None), 8),
            (rules(BoardSpec::Morris(6), any, vec![PointsEnd::FewerThan(3)], Some(3)), 16),
            (rules(BoardSpec::Morris(9), any, vec![PointsEnd::FewerThan(3)], Some(3)), 16),
            (rules(BoardSpec::Star, any, vec![], None), 10),
        ];
        for (i, (r, n)) in cases.iter().enumerate() {
            assert_eq!(r.symmetry_count(), *n, "case {i}");
        }
        // Points on no line may be exchanged every way: the search gives up, and keeps the
        // identity alone.
        let loose = rules(BoardSpec::Lines { points: 20, lines: vec![vec![0, 1]] }, any, vec![], None);
        assert_eq!(loose.symmetry_count(), 1);
    }

    /// Each symmetry commutes with the rules, checked on the rules themselves: at positions
    /// spread over each board, the image's moves lead to the images of the children, and the
    /// image ends as the position does.
    #[test]
    fn symmetries_commute_with_the_rules() {
        let any = (Towards::Any, Towards::Any);
        let boards = [
            rules(
                BoardSpec::Grid { rows: 5, cols: 5, diagonals: true },
                any,
                vec![PointsEnd::Line(4), PointsEnd::Square],
                None,
            ),
            rules(BoardSpec::Morris(9), any, vec![PointsEnd::FewerThan(3)], Some(3)),
            rules(BoardSpec::Star, any, vec![PointsEnd::FewerThan(4)], None),
            rules(BoardSpec::Grid { rows: 4, cols: 4, diagonals: false }, (Towards::Down, Towards::Up), vec![], None),
        ];
        for r in &boards {
            let mut seed = 12345u64;
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for _ in 0..300 {
                let (a, b) = (next() & r.full, next() & r.full);
                let p = PPos { own: [a & !b, b & !a & next()], side: (next() & 1) as u8, hand: [0, 0] };
                for perm in &r.syms {
                    let img = |q: &PPos| PPos { own: [permute(perm, q.own[0]), permute(perm, q.own[1])], ..q.clone() };
                    let mut want: Vec<_> = r.children(&p).iter().map(img).map(|q| (q.own, q.side)).collect();
                    let mut got: Vec<_> = r.children(&img(&p)).iter().map(|q| (q.own, q.side)).collect();
                    want.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(got, want);
                    assert_eq!(r.primitive(&img(&p)), r.primitive(&p));
                    assert_eq!(r.canonical(&img(&p)), r.canonical(&p));
                }
            }
        }
    }
}
