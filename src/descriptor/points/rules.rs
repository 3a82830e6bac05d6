//! The rules of a points game: its kinds of move and ends, the checked rules, positions,
//! moves and their text (see the module's note, [`super`]).

use super::boards::BoardSpec;
use super::symmetry;
use crate::game::Value;
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
    /// A `Capture`, then as many more by the same piece as the player likes (the fox's and
    /// checkers' multiple jump). The pieces jumped leave the board when the move ends: none
    /// is jumped twice, nor landed on.
    Chain,
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
    Chain,
    Take,
}

/// Which lines a kind of move keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lines {
    All,
    Straight,
    Diagonal,
}

impl MoveKind {
    /// A move along a line: its kind, and the lines it keeps to.
    pub(super) fn along(self) -> Option<(Along, Lines)> {
        match self {
            MoveKind::Step => Some((Along::Step, Lines::All)),
            MoveKind::Jump => Some((Along::Jump, Lines::All)),
            MoveKind::Capture => Some((Along::Capture, Lines::All)),
            MoveKind::Chain => Some((Along::Chain, Lines::All)),
            MoveKind::Take => Some((Along::Take, Lines::All)),
            MoveKind::Straight(a) => Some((a, Lines::Straight)),
            MoveKind::Diagonal(a) => Some((a, Lines::Diagonal)),
            MoveKind::Place | MoveKind::Flank | MoveKind::Fly(_) => None,
        }
    }

    /// Whether the move takes an opponent's piece off the board.
    pub(super) fn takes(self) -> bool {
        matches!(self.along(), Some((Along::Capture | Along::Chain | Along::Take, _)))
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
    /// Any way but left: right, or across (up or down).
    NotLeft,
    /// Any way but right.
    NotRight,
    /// Any way but up: down, or across (Fox and Geese's geese).
    NotUp,
    /// Any way but down.
    NotDown,
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
    /// A rank for each point: moves to lower ranks are listed (and searched) first.
    pub order: Option<Vec<u8>>,
}

/// A position: each side's pieces as a mask of points, the side to move, the pieces in hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PPos {
    pub(super) own: [u64; 2],
    pub(super) side: u8,
    pub(super) hand: [u8; 2],
}

/// What a move does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Pass,
    /// A piece from the hand, or from the supply.
    Place(u8),
    /// A placement that turns the flanked runs.
    Flank(u8),
    /// A piece from one point to another, capturing the pieces on the points of `take`.
    Move {
        from: u8,
        to: u8,
        take: u64,
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
    pub(super) n: usize,
    pub(super) full: u64,
    pub(super) marks: [char; 2],
    /// The rows the text is written in: points in each, and the indent when drawn.
    rows: Vec<(usize, usize)>,
    pub(super) coords: Option<Vec<(i32, i32)>>,
    /// From each point, along each line both ways, the points that follow in order.
    pub(super) rays: Vec<Vec<Vec<u8>>>,
    /// Each point's neighbours: the first point of each of its rays.
    near: Vec<u64>,
    pub(super) moves: [Vec<MoveKind>; 2],
    pub(super) towards: [Towards; 2],
    pub(super) hand: [u8; 2],
    /// The masks of K points in a row on a line, for `Line(K)`, and for mills.
    pub(super) line_masks: Vec<u64>,
    pub(super) mill_masks: Vec<u64>,
    pub(super) pass: bool,
    pub(super) ends: Vec<PointsEnd>,
    /// Pieces leave the board (captures, mills): the text then says the pieces in hand.
    pub(super) removes: bool,
    /// For `Reach`: each side's far edge, a mask of points (0 without `Reach`).
    pub(super) goal: [u64; 2],
    /// The board's symmetries that keep the rules (`symmetry.rs`), the identity left out.
    pub(super) syms: Vec<symmetry::Symmetry>,
    /// Each point's rank in the order moves are listed (`order`): lower first, equal ranks
    /// in the points' order. Empty: the points' order.
    rank: Vec<u8>,
    /// The lowest rank, where there are ranks.
    best_rank: Option<u8>,
}

pub(super) fn bit(p: u8) -> u64 {
    1u64 << p
}

pub(super) fn points_of(mut m: u64) -> impl Iterator<Item = u8> {
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
            return Err(("towards", "`towards` needs a board of rows and columns (Row, Grid, Cross or Morris)".into()));
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
                "`Straight(...)` and `Diagonal(...)` need a board of rows and columns (Row, Grid, Cross or Morris)"
                    .into(),
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
                            Towards::Up | Towards::NotDown => -r,
                            Towards::Down | Towards::NotUp => r,
                            Towards::Left | Towards::NotRight => -c,
                            Towards::Right | Towards::NotLeft => c,
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
        let rank = match spec.order {
            Some(r) if r.len() != n => {
                return Err((
                    "order",
                    format!(
                        "`order` gives a rank to {} points; the board has {n}, listed as the position's text lists them",
                        r.len()
                    ),
                ));
            }
            Some(r) => r,
            None => Vec::new(),
        };
        let mut rules = PointsRules {
            n,
            full: if n == 64 { u64::MAX } else { (1u64 << n) - 1 },
            marks: [marks[0], marks[1]],
            rows: layout.rows,
            coords: layout.coords,
            near: rays.iter().map(|r| r.iter().fold(0, |m, ray| m | bit(ray[0]))).collect(),
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
            best_rank: rank.iter().min().copied(),
            rank,
        };
        rules.syms = rules.symmetries().into_iter().map(symmetry::Symmetry::new).collect();
        Ok(rules)
    }

    /// The permutations of the points that keep the lines, the masks the ends and mills look
    /// at, the diagonals and the way each side may go (`towards`); the identity left out.
    fn symmetries(&self) -> Vec<Vec<u8>> {
        let sorted = |masks: &[u64], perm: &[u8]| {
            let mut m: Vec<u64> = masks.iter().map(|&x| symmetry::permute(perm, x)).collect();
            m.sort_unstable();
            m
        };
        let (mut lines, mut mills) = (self.line_masks.clone(), self.mill_masks.clone());
        lines.sort_unstable();
        mills.sort_unstable();
        // Each step along a line keeps whether it runs along a diagonal (for `Straight` and
        // `Diagonal`) and whether each side may take it (`towards`).
        let same_way = |perm: &[u8], a: usize, b: u8| {
            let (x, y) = (perm[a], perm[b as usize]);
            self.diagonal(a as u8, b) == self.diagonal(x, y)
                && (0..2).all(|s| self.goes(s, a as u8, b) == self.goes(s, x, y))
        };
        let keeps = |perm: &[u8]| {
            sorted(&self.line_masks, perm) == lines
                && sorted(&self.mill_masks, perm) == mills
                && self.goal.iter().all(|&g| symmetry::permute(perm, g) == g)
                && (0..self.n).all(|a| self.rays[a].iter().flatten().all(|&b| same_way(perm, a, b)))
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
        for sym in &self.syms {
            let image = [sym.apply(p.own[0]), sym.apply(p.own[1])];
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

    /// Whether side `s` may move a piece from `from` to `to` (its `towards`).
    pub(super) fn goes(&self, s: usize, from: u8, to: u8) -> bool {
        let Some(c) = &self.coords else { return true };
        let (a, b) = (c[from as usize], c[to as usize]);
        match self.towards[s] {
            Towards::Any => true,
            Towards::Left => b.1 < a.1,
            Towards::Right => b.1 > a.1,
            Towards::Up => b.0 < a.0,
            Towards::Down => b.0 > a.0,
            Towards::NotLeft => b.1 >= a.1,
            Towards::NotRight => b.1 <= a.1,
            Towards::NotUp => b.0 >= a.0,
            Towards::NotDown => b.0 <= a.0,
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
    #[inline]
    fn flips(&self, p: &PPos, s: usize, t: u8) -> u64 {
        let (mine, theirs) = (p.own[s], p.own[1 - s]);
        let mut out = 0;
        // No line from `t` starts with the other's piece: nothing to turn.
        if self.near[t as usize] & theirs == 0 {
            return 0;
        }
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

    /// Whether side `s` has a move at `p` (passes not counted): where it only flanks, the
    /// first point it may flank on answers, without listing the rest.
    fn has_moves(&self, p: &PPos, s: usize) -> bool {
        if p.hand[s] == 0 && self.moves[s].iter().all(|m| *m == MoveKind::Flank) {
            let empty = !(p.own[0] | p.own[1]) & self.full;
            return points_of(empty).any(|t| self.flips(p, s, t) != 0);
        }
        !self.moves_of(p, s).is_empty()
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
                                base.extend(points_of(empty).map(|to| Act::Move { from, to, take: 0 }));
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
            // A chain's single jumps are a `Capture`'s too (or another chain's): one move each.
            if self.moves[s].iter().filter(|m| matches!(m.along(), Some((Along::Capture | Along::Chain, _)))).count()
                > 1
            {
                let mut seen = Vec::with_capacity(base.len());
                base.retain(|a| {
                    let new = !seen.contains(a);
                    seen.push(*a);
                    new
                });
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
                        out.push(Act::Move { from, to: next, take: 0 });
                    }
                    Along::Take if theirs & bit(next) != 0 && self.goes(s, from, next) => {
                        out.push(Act::Move { from, to: next, take: bit(next) });
                    }
                    Along::Jump | Along::Capture => {
                        if let Some(to) = after
                            && theirs & bit(next) != 0
                            && empty & bit(to) != 0
                            && self.goes(s, from, to)
                        {
                            let take = if kind == Along::Jump { 0 } else { bit(next) };
                            out.push(Act::Move { from, to, take });
                        }
                    }
                    _ => {}
                }
            }
            if kind == Along::Chain {
                let start = out.len();
                self.chain(p, s, lines, from, from, 0, start, out);
            }
        }
    }

    /// The chains of captures of side `s`'s piece that left `from` and stands at `at`, having
    /// jumped the pieces of `taken`: each jump on is a move, pushed on `out` once (from
    /// `start` on: two orders of the same jumps are one move).
    #[allow(clippy::too_many_arguments)]
    fn chain(&self, p: &PPos, s: usize, lines: Lines, from: u8, at: u8, taken: u64, start: usize, out: &mut Vec<Act>) {
        for (over, to) in self.jumps_on(p, s, lines, from, at, taken) {
            let mv = Act::Move { from, to, take: taken | bit(over) };
            if !out[start..].contains(&mv) {
                out.push(mv);
                self.chain(p, s, lines, from, to, taken | bit(over), start, out);
            }
        }
    }

    /// The jumps a chain of side `s`'s piece, which left `from`, stands at `at` and has
    /// jumped the pieces of `taken`, may go on with along `lines`: (the piece jumped, the
    /// point landed on). The jumped pieces stay until the move ends; the point left is empty.
    fn jumps_on(
        &self,
        p: &PPos,
        s: usize,
        lines: Lines,
        from: u8,
        at: u8,
        taken: u64,
    ) -> impl Iterator<Item = (u8, u8)> + '_ {
        let empty = (!(p.own[0] | p.own[1]) & self.full) | bit(from);
        let theirs = p.own[1 - s] & !taken;
        self.rays[at as usize].iter().filter_map(move |ray| {
            let (over, to) = (ray[0], *ray.get(1)?);
            (theirs & bit(over) != 0 && empty & bit(to) != 0 && self.keeps_to(lines, at, over) && self.goes(s, at, to))
                .then_some((over, to))
        })
    }

    /// The points a chain of captures along `lines` that stands at `at`, having jumped
    /// `taken`, lands on to end at `to` having jumped `take` (the first found, in the order of
    /// the board's lines), pushed on `path`: what names the move. False: no such chain
    /// (another of the side's chains made it).
    #[allow(clippy::too_many_arguments)]
    fn chain_path(
        &self,
        p: &PPos,
        lines: Lines,
        from: u8,
        at: u8,
        taken: u64,
        to: u8,
        take: u64,
        path: &mut Vec<u8>,
    ) -> bool {
        if taken == take && at == to {
            return true;
        }
        for (over, land) in self.jumps_on(p, p.side as usize, lines, from, at, taken) {
            if take & bit(over) == 0 {
                continue;
            }
            path.push(land);
            if self.chain_path(p, lines, from, land, taken | bit(over), to, take, path) {
                return true;
            }
            path.pop();
        }
        false
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
                q.own[1 - s] &= !take;
            }
        }
        if let Some(r) = mv.remove {
            q.own[1 - s] &= !bit(r);
        }
        q
    }

    /// The moves of the player to move, in the order of `order` where there is one.
    pub fn moves(&self, p: &PPos) -> Vec<PMove> {
        let mut out = self.moves_unordered(p);
        if !self.rank.is_empty() {
            out.sort_by_key(|mv| self.rank_of(mv));
        }
        out
    }

    /// The moves of the player to move (a pass where it has none and the other has one), in
    /// the points' order.
    fn moves_unordered(&self, p: &PPos) -> Vec<PMove> {
        let s = p.side as usize;
        let out = self.moves_of(p, s);
        if out.is_empty() && self.pass && self.has_moves(p, 1 - s) {
            return vec![PMove { act: Act::Pass, remove: None }];
        }
        out
    }

    /// The rank (`order`) of the point a move goes to; a pass last.
    fn rank_of(&self, mv: &PMove) -> u8 {
        match mv.act {
            Act::Place(t) | Act::Flank(t) | Act::Move { to: t, .. } => self.rank[usize::from(t)],
            Act::Pass => u8::MAX,
        }
    }

    /// What the value search orders positions by ([`crate::game::PackedPlay::move_count`]):
    /// the moves of the player to move, counted without making or sorting them, a move to a
    /// point of the lowest rank of `order` counted twice. The search tries first the moves
    /// that leave the opponent fewest replies, and fewest onto the best points.
    pub fn move_weight(&self, p: &PPos) -> u32 {
        let moves = self.moves_unordered(p);
        let on_best = match self.best_rank {
            Some(best) => moves.iter().filter(|mv| self.rank_of(mv) == best).count(),
            None => 0,
        };
        (moves.len() + on_best) as u32
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
        if self.pass && !self.has_moves(p, s) && !self.has_moves(p, o) {
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

    /// The points as text, `rows` between the board's rows; drawn (`indent`), each row
    /// indented as the board has it.
    fn cells(&self, p: &PPos, rows: &str, indent: bool) -> String {
        let cell = |i: usize| {
            let b = 1u64 << i;
            if p.own[0] & b != 0 {
                self.marks[0]
            } else if p.own[1] & b != 0 {
                self.marks[1]
            } else {
                '.'
            }
        };
        let mut out = String::with_capacity(2 * self.n);
        // A board without rows is one run of points.
        let whole = [(self.n, 0)];
        let mut at = 0;
        for (r, &(len, pad)) in if self.rows.is_empty() { &whole[..] } else { &self.rows[..] }.iter().enumerate() {
            if r > 0 {
                out.push_str(rows);
            }
            if indent {
                out.extend(std::iter::repeat_n(' ', pad));
            }
            out.extend((at..at + len).map(cell));
            at += len;
        }
        out
    }

    /// The players' marks, the first player's first.
    pub fn marks(&self) -> [char; 2] {
        self.marks
    }

    pub fn format(&self, p: &PPos) -> String {
        let mut out = format!("{} {}", self.cells(p, "/", false), self.marks[p.side as usize]);
        if self.removes && self.hand != [0, 0] {
            out += &format!(" {} {}", p.hand[0], p.hand[1]);
        }
        out
    }

    pub fn show(&self, p: &PPos) -> String {
        let mut out = format!("{}\n{} to move", self.cells(p, "\n", true), self.marks[p.side as usize]);
        if self.hand != [0, 0] {
            out += &format!("; in hand: {} {}, {} {}", self.marks[0], p.hand[0], self.marks[1], p.hand[1]);
        }
        out
    }

    /// A move's name at `p`: the point placed on, "from-to" ("from-a-b-to" for a chain of
    /// captures, each point landed on), "pass", with "xN" for a removal.
    pub fn move_name(&self, p: &PPos, mv: PMove) -> String {
        let mut out = match mv.act {
            Act::Pass => "pass".to_string(),
            Act::Place(t) | Act::Flank(t) => t.to_string(),
            Act::Move { from, to, take } if take.count_ones() > 1 => {
                // The path of the first of the side's chains that makes this move.
                let mut path = Vec::new();
                let found = self.moves[p.side as usize].iter().any(|m| match m.along() {
                    Some((Along::Chain, lines)) => {
                        path.clear();
                        self.chain_path(p, lines, from, from, 0, to, take, &mut path)
                    }
                    _ => false,
                });
                if !found {
                    path = vec![to];
                }
                let mut out = from.to_string();
                for at in path {
                    out += &format!("-{at}");
                }
                out
            }
            Act::Move { from, to, .. } => format!("{from}-{to}"),
        };
        if let Some(r) = mv.remove {
            out += &format!("x{r}");
        }
        out
    }
}
