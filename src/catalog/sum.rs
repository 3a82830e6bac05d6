//! Disjunctive sums of positions of different impartial games (`chomp:4432 + nim:3,5`).
//!
//! Each term is a [`Session`] of its own game, answered by its own engine (a native module, a
//! descriptor, a script). Under normal play the Sprague–Grundy theorem gives everything: the
//! sum's Grundy value is the XOR of the terms', and a winning move is a move in one term to a
//! position whose Grundy value makes the XOR zero. Under misère play the values do not
//! combine, so the sum is a game of its own ([`SumGame`]), searched whole.

use super::session::Session;
use crate::game::{Footprint, Game, GameError, GameInfo, GameResult, Kind, Value};
use crate::solve::MoveInfo;
use std::cell::{RefCell, RefMut};
use std::rc::Rc;

/// A game's session, shared by every term of that game in a sum.
pub type Shared = Rc<RefCell<Box<dyn Session>>>;

/// A term of a sum: a game's session and its position.
pub struct Term {
    pub shared: Shared,
    pub position: String,
}

impl Term {
    /// The session of the term's game (shared with the sum's other terms of the same game:
    /// borrow it for one call at a time).
    pub fn session(&self) -> RefMut<'_, Box<dyn Session>> {
        self.shared.borrow_mut()
    }

    /// "chomp 4432": the term for people (rows joined by `/`).
    pub fn label(&self) -> String {
        format!("{} {}", self.session().info().name, self.position.trim_end().replace('\n', "/"))
    }
}

/// What a sum is under normal play.
pub struct SumReport {
    /// Each term's Grundy value.
    pub grundy: Vec<u64>,
    /// The XOR of them.
    pub total: u64,
    /// (term index, the move, the position it leads to, its Grundy value).
    pub winning_moves: Vec<(usize, MoveInfo)>,
}

/// The normal-play answer from the terms' Grundy values; the winning moves too where
/// `moves` asks for them.
pub fn solve_sum(terms: &mut [Term], moves: bool) -> GameResult<SumReport> {
    let mut grundy = Vec::with_capacity(terms.len());
    for t in terms.iter_mut() {
        match t.session().grundy(&t.position)? {
            Some(g) => grundy.push(g),
            None => {
                return Err(GameError::Unsupported(format!(
                    "{} {}: no Grundy value here, so the sum cannot be added up",
                    t.session().info().name,
                    t.position
                )));
            }
        }
    }
    let total = grundy.iter().fold(0, |a, g| a ^ g);
    let mut winning_moves = Vec::new();
    if total != 0 && moves {
        for (i, t) in terms.iter_mut().enumerate() {
            let target = total ^ grundy[i];
            if target >= grundy[i] {
                continue;
            }
            for m in t.session().grundy_moves(&t.position)? {
                if m.grundy == Some(target) {
                    winning_moves.push((i, m));
                }
            }
        }
    }
    Ok(SumReport { grundy, total, winning_moves })
}

/// A sum as one game (for misère play): a position is every term's position text, a move is
/// a move in one of them.
pub struct SumGame {
    terms: RefCell<Vec<Term>>,
    info: GameInfo,
    /// For each term, the index of the first term of the same game (terms of one game share
    /// one session): the terms a canonical form may reorder among themselves.
    groups: Vec<usize>,
}

/// A sum's position: each term's position text, in order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SumPos(pub Vec<String>);

impl Footprint for SumPos {
    /// What the allocator hands out, not what was asked: a one-byte `String` takes a 32-byte
    /// block, and a sum of 1000 `nim:1` holds a thousand of them a position.
    fn heap_bytes(&self) -> usize {
        let block = |n: usize| if n == 0 { 0 } else { (n + 8).next_multiple_of(16).max(32) };
        block(self.0.capacity() * std::mem::size_of::<String>())
            + self.0.iter().map(|s| block(s.capacity())).sum::<usize>()
    }
}

impl SumGame {
    pub fn new(terms: Vec<Term>) -> Self {
        let name = terms.iter().map(|t| t.session().info().name.clone()).collect::<Vec<_>>().join(" + ");
        let info = GameInfo {
            name,
            description: "a disjunctive sum".into(),
            kind: Kind::Impartial,
            native: None,
            move_verb: None,
            solved_message: None,
            players: None,
        };
        let mut firsts: Vec<(Shared, usize)> = Vec::new();
        let mut groups = Vec::with_capacity(terms.len());
        for (i, t) in terms.iter().enumerate() {
            match firsts.iter().find(|(s, _)| Rc::ptr_eq(s, &t.shared)) {
                Some(&(_, g)) => groups.push(g),
                None => {
                    firsts.push((t.shared.clone(), i));
                    groups.push(i);
                }
            }
        }
        SumGame { terms: RefCell::new(terms), info, groups }
    }

    pub fn root(&self) -> SumPos {
        SumPos(self.terms.borrow().iter().map(|t| t.position.clone()).collect())
    }
}

impl Game for SumGame {
    type Pos = SumPos;
    /// (term, position it leads to, the move's name there)
    type Move = (usize, String, String);

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn parse(&self, text: &str) -> GameResult<SumPos> {
        let parts: Vec<&str> = text.split(" + ").collect();
        let terms = self.terms.borrow();
        if parts.len() != terms.len() {
            return Err(GameError::BadPosition(format!("a position of this sum has {} parts", terms.len())));
        }
        Ok(SumPos(parts.iter().zip(terms.iter()).map(|(p, t)| t.session().normalize(p)).collect::<GameResult<_>>()?))
    }

    fn format(&self, pos: &SumPos) -> GameResult<String> {
        Ok(pos.0.join(" + "))
    }

    fn moves(&self, pos: &SumPos) -> GameResult<Vec<Self::Move>> {
        let terms = self.terms.borrow();
        let mut out = Vec::new();
        for (i, (t, p)) in terms.iter().zip(&pos.0).enumerate() {
            for (name, child) in t.session().children(p)? {
                out.push((i, child, name));
            }
        }
        Ok(out)
    }

    fn play(&self, pos: &SumPos, mv: &Self::Move) -> GameResult<SumPos> {
        let mut next = pos.clone();
        *next.0.get_mut(mv.0).ok_or_else(|| GameError::BadMove("no such component".into()))? = mv.1.clone();
        Ok(next)
    }

    fn move_name(&self, _pos: &SumPos, mv: &Self::Move) -> GameResult<String> {
        Ok(format!("{}:{}", mv.0 + 1, mv.2))
    }

    /// Terms of one game in sorted order: a sum does not depend on the order of its terms, so
    /// `nim:1 + nim:2` and `nim:2 + nim:1` are one position to the solver (a misère sum of
    /// 1000 `nim:1` has 1001 positions, not 2^1000).
    fn canonical(&self, pos: &SumPos) -> GameResult<SumPos> {
        let groups = &self.groups;
        let mut out = pos.clone();
        let mut seen = std::collections::HashSet::new();
        for &g in groups {
            if !seen.insert(g) {
                continue;
            }
            let at: Vec<usize> = (0..groups.len()).filter(|&i| groups[i] == g).collect();
            let mut texts: Vec<String> = at.iter().map(|&i| pos.0[i].clone()).collect();
            texts.sort_unstable();
            for (i, t) in at.into_iter().zip(texts) {
                out.0[i] = t;
            }
        }
        Ok(out)
    }

    /// Every position one move away, once for each distinct term: two terms of the same game
    /// at the same position give the same positions up to order, so only the first is
    /// played (the moves of all of them are listed by `moves`).
    fn children(&self, pos: &SumPos) -> GameResult<Vec<SumPos>> {
        let groups = &self.groups;
        let terms = self.terms.borrow();
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (i, p) in pos.0.iter().enumerate() {
            if !seen.insert((groups[i], p.as_str())) {
                continue;
            }
            for (_, child) in terms[i].session().children(p)? {
                let mut next = pos.clone();
                next.0[i] = child;
                out.push(next);
            }
        }
        Ok(out)
    }

    /// A sum ends when no term has a move (a stalemate): never a primitive position.
    fn primitive(&self, _pos: &SumPos) -> GameResult<Option<Value>> {
        Ok(None)
    }
}
