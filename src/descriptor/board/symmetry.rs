//! The symmetries of boards whose pieces move (`MoveSym`): derived from the board and the
//! rules, and the image of a position under one.

use super::bits::{ACROSS_DOWN, TRIANGLE, transform};
use super::rules::{BPos, BoardRules, MoveSym};
use super::vocab::{BoardMove, BoardShape};

// --- Symmetry of boards whose pieces move --------------------------------------------------

/// The triangle's 6 transforms: coordinate `i` of the image is coordinate `TRI_PERMS[t][i]`
/// of the cell, where a cell (r, c) of a side-n triangle has the coordinates
/// (c, r - c, n - 1 - r), its distances to the three sides (the left side, the right slant
/// and the bottom row), which sum to n - 1. 0 is the identity; 1, 2, 3 swap two coordinates
/// (the three mirrors); 4 and 5 are the two turns.
const TRI_PERMS: [[usize; 3]; 6] = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2, 0], [2, 0, 1]];

/// The most pegs whose permutations are tried as Hanoi's symmetries (6! = 720); on more pegs,
/// only the permutations of the first six (a subgroup: fewer symmetries, never a wrong one).
const MAX_PEG_PERMS: usize = 6;

impl MoveSym {
    /// Where cell (r, c) of a rows × cols board (or triangle of side rows) goes.
    #[inline]
    fn cell(&self, rows: usize, cols: usize, r: usize, c: usize) -> (usize, usize) {
        match self {
            MoveSym::Square(t) => {
                let (mut a, mut b) = (r, c);
                if t & 1 != 0 {
                    a = rows - 1 - a;
                }
                if t & 2 != 0 {
                    b = cols - 1 - b;
                }
                if t & 4 != 0 {
                    (a, b) = (b, a);
                }
                (a, b)
            }
            MoveSym::Triangle(t) => {
                let x = [c, r - c, rows - 1 - r];
                let y = TRI_PERMS[*t as usize].map(|i| x[i]);
                (rows - 1 - y[2], y[0])
            }
            MoveSym::Pegs(to) => (to[r] as usize, c),
        }
    }

    /// Where a step of (dr, dc) goes (the linear part of [`MoveSym::cell`]).
    #[inline]
    fn delta(&self, (dr, dc): (i8, i8)) -> (i8, i8) {
        match self {
            MoveSym::Square(t) => {
                let (mut a, mut b) = (dr, dc);
                if t & 1 != 0 {
                    a = -a;
                }
                if t & 2 != 0 {
                    b = -b;
                }
                if t & 4 != 0 {
                    (a, b) = (b, a);
                }
                (a, b)
            }
            MoveSym::Triangle(t) => {
                let x = [dc, dr - dc, -dr];
                let y = TRI_PERMS[*t as usize].map(|i| x[i]);
                (-y[2], y[0])
            }
            MoveSym::Pegs(_) => (dr, dc),
        }
    }
}

/// Every permutation of `0..n`, the identity first.
fn permutations(n: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    for k in 0..n as u8 {
        out = out
            .into_iter()
            .flat_map(|p: Vec<u8>| {
                (0..=p.len()).rev().map(move |at| {
                    let mut q = p.clone();
                    q.insert(at, k);
                    q
                })
            })
            .collect();
    }
    out
}

/// Does `f` map the set `dirs` onto itself?
fn keeps_set(dirs: &[(i8, i8)], f: impl Fn((i8, i8)) -> (i8, i8)) -> bool {
    dirs.iter().all(|&d| dirs.contains(&f(d)))
}

impl BoardRules {
    /// The symmetries the rules of a board whose pieces move keep on a rows × cols board,
    /// derived from the board and the rules (the identity first): of the transforms of the
    /// board's shape (the square's 8, or the 4 that keep a rectangle that is not square; the
    /// triangle's 6; every permutation of Hanoi's pegs), those that
    /// - map the board's cells onto themselves,
    /// - map each player's directions (`Step`) onto that same player's, the first (forward,
    ///   the way off the board with `off: true`) onto the first; the jumps' directions (`Jump`:
    ///   across and down, and the slant on a triangle) onto themselves; the slides' (`Slide`:
    ///   across and down) onto themselves (Hanoi's moves, from any peg to any other, are kept
    ///   by every permutation of the pegs),
    /// - and map the goal (`Goal`) onto itself (`Left(n)` and `Gone` count pieces, which no
    ///   transform changes).
    ///
    /// Empty for the other boards (their symmetries are [`BoardRules::symmetries`]).
    pub fn moving_symmetries(&self, rows: u8, cols: u8) -> std::borrow::Cow<'_, [MoveSym]> {
        if let Some((size, syms)) = &self.fixed_syms
            && *size == (rows, cols)
        {
            return std::borrow::Cow::Borrowed(syms);
        }
        std::borrow::Cow::Owned(self.derive_symmetries(rows, cols))
    }

    /// [`BoardRules::moving_symmetries`], derived afresh.
    pub(super) fn derive_symmetries(&self, rows: u8, cols: u8) -> Vec<MoveSym> {
        if !self.moving() {
            return Vec::new();
        }
        let (r, c) = (rows as usize, cols as usize);
        let candidates: Vec<MoveSym> = match (&self.moves, self.shape) {
            (BoardMove::Hanoi, _) => {
                let n = r.min(MAX_PEG_PERMS);
                permutations(n)
                    .into_iter()
                    .map(|mut p| {
                        p.extend(n as u8..rows);
                        MoveSym::Pegs(p)
                    })
                    .collect()
            }
            (_, BoardShape::Triangle) => (0..6).map(MoveSym::Triangle).collect(),
            _ => (0..8).map(MoveSym::Square).collect(),
        };
        candidates.into_iter().filter(|s| self.keeps(s, r, c)).collect()
    }

    /// Does the transform `s` keep the rules (see [`BoardRules::moving_symmetries`])?
    pub(super) fn keeps(&self, s: &MoveSym, rows: usize, cols: usize) -> bool {
        // The board onto itself: each cell's image a cell (the map is one to one).
        let probe = BPos { rows: rows as u8, cols: cols as u8, a: 0, b: 0, k: 0, turn: 0 };
        let onto = match self.moves {
            BoardMove::Hanoi => true,
            _ => (0..rows).all(|r| {
                (0..cols).filter(|&c| self.inside(&probe, r as i32, c as i32)).all(|c| {
                    let (a, b) = s.cell(rows, cols, r, c);
                    a < rows && b < cols && self.inside(&probe, a as i32, b as i32)
                })
            }),
        };
        if !onto {
            return false;
        }
        let moves = match &self.moves {
            BoardMove::Step { .. } => self
                .steps
                .iter()
                .all(|dirs| keeps_set(dirs, |d| s.delta(d)) && (!self.off || s.delta(dirs[0]) == dirs[0])),
            BoardMove::Jump if self.shape == BoardShape::Triangle => keeps_set(&TRIANGLE, |d| s.delta(d)),
            BoardMove::Jump | BoardMove::Slide => keeps_set(&ACROSS_DOWN, |d| s.delta(d)),
            _ => true,
        };
        moves && self.goal.is_none_or(|g| self.image(&g, s) == g)
    }

    /// The image of a position under `s`, one of its board's symmetries.
    #[inline]
    pub fn image(&self, p: &BPos, s: &MoveSym) -> BPos {
        let (rows, cols) = (p.rows as usize, p.cols as usize);
        let w = cols + 1;
        let bits = |x: u128| {
            if let (MoveSym::Square(t), false) = (s, matches!(self.moves, BoardMove::Hanoi)) {
                return transform(x, p.rows, p.cols, *t);
            }
            let mut out = 0u128;
            let mut rest = x;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let (a, b) = s.cell(rows, cols, i / w, i % w);
                out |= 1u128 << (a * w + b);
            }
            out
        };
        match self.moves {
            BoardMove::Slide => {
                let mut a = 0u128;
                for i in 0..rows * cols {
                    let (r, c) = s.cell(rows, cols, i / cols, i % cols);
                    a |= ((p.a >> (5 * i)) & 31) << (5 * (r * cols + c));
                }
                let blank = p.b as usize;
                let (r, c) = s.cell(rows, cols, blank / cols, blank % cols);
                BPos { a, b: (r * cols + c) as u128, ..*p }
            }
            _ => BPos { a: bits(p.a), b: bits(p.b), ..*p },
        }
    }

    /// A board whose pieces move: the least of the images of `p` under the symmetries its
    /// rules keep (`p` itself when they keep none but the identity).
    #[inline]
    pub(super) fn moving_canonical(&self, p: &BPos) -> BPos {
        let syms = self.moving_symmetries(p.rows, p.cols);
        syms.iter().skip(1).map(|s| self.image(p, s)).fold(*p, BPos::min)
    }
}
