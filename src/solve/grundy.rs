//! Grundy values (nimbers) of impartial games under normal play.
//!
//! The Grundy value of a position is the mex (minimum excludant) of its children's values;
//! a position that `split`s into independent parts has the XOR of its parts' values
//! (Sprague–Grundy). Each part is memoized under its canonical form, so equal components
//! anywhere in the game are solved once. Iterative, like the value solver.

use super::memo::Memo;
use super::nimber::{NimberSearch, Stop};
use crate::game::{Footprint, Game, GameError, GameExt, GameResult, Value};
use crate::progress::Progress;
use hashbrown::HashSet;

enum Frame<P> {
    /// A sum of independent parts: XOR their values.
    Sum { parts: Vec<P>, acc: u64 },
    /// One indivisible position: mex of its children's values.
    Mex { pos: P, children: Vec<P>, seen: Vec<u64>, start: u64 },
}

enum Step<P> {
    Done(u64),
    Push(Frame<P>),
}

/// The smallest value not in `seen`. A mex is at most `seen.len()`, so no cap is needed.
pub fn mex(seen: &[u64]) -> u64 {
    let n = seen.len();
    let mut present = vec![false; n + 1];
    for &g in seen {
        if (g as usize) <= n {
            present[g as usize] = true;
        }
    }
    present.iter().position(|p| !p).unwrap_or(n) as u64
}

pub struct GrundySolver<G: Game> {
    game: std::rc::Rc<G>,
    memo: Memo<G::Pos, u64>,
    progress: Progress,
    visited: u64,
    budget: usize,
    /// The search by sets of values ([`super::nimber`]), tried first where it is on; dropped
    /// for this solver's life once a game proves too deep for it.
    lv: Option<NimberSearch<G>>,
    endgame: Option<super::part_db::Endgame>,
}

/// Bytes a frame holds: its positions (the parts of a sum, the children of a position, the
/// position twice: in the frame and in the set of positions on the path).
fn frame_bytes<P: Footprint>(f: &Frame<P>) -> usize {
    let one = |p: &P| p.heap_bytes() + std::mem::size_of::<P>();
    64 + match f {
        Frame::Sum { parts, .. } => parts.iter().map(one).sum::<usize>(),
        Frame::Mex { pos, children, .. } => 2 * one(pos) + children.iter().map(one).sum::<usize>(),
    }
}

impl<G: Game> GrundySolver<G> {
    pub fn new(game: std::rc::Rc<G>, budget: usize) -> Self {
        // The memo three quarters of the budget, the path from the root the rest.
        // On where the game splits (measured: Cram 5×6 2.7× faster, TacTix 4×4 as fast);
        // off where it does not (Chomp `666655` as a script 0.01 s → 0.31 s: large nimbers
        // tested one at a time, and a script's moves counted for every child's order).
        let lv = game.has_split().then(|| NimberSearch::new(game.clone(), budget, Progress::default()));
        GrundySolver {
            game,
            memo: Memo::new(budget / 4 * 3),
            visited: 0,
            progress: Progress::default(),
            budget,
            lv,
            endgame: None,
        }
    }

    /// Report progress to `progress` as positions are visited.
    pub fn with_progress(mut self, progress: Progress) -> Self {
        if self.lv.is_some() {
            self.lv = Some(
                NimberSearch::new(self.game.clone(), self.budget, progress.clone()).with_endgame(self.endgame.clone()),
            );
        }
        self.progress = progress;
        self
    }

    /// Ask the endgame database `endgame` describes first, on keys ([`super::part_db`]).
    pub fn with_endgame(mut self, endgame: Option<super::part_db::Endgame>) -> Self {
        self.endgame = endgame;
        self.lv = self.lv.take().map(|lv| lv.with_endgame(self.endgame.clone()));
        self
    }

    /// Use the search by sets of values first (`true`; the default for games that split) or
    /// the mex of every child only (`false`; the default for the others).
    pub fn with_value_search(mut self, on: bool) -> Self {
        self.lv = on.then(|| {
            NimberSearch::new(self.game.clone(), self.budget, self.progress.clone()).with_endgame(self.endgame.clone())
        });
        self
    }

    pub fn visited(&self) -> u64 {
        self.visited + self.lv.as_ref().map_or(0, |lv| lv.visited())
    }

    pub fn evicted(&self) -> u64 {
        self.memo.evicted() + self.lv.as_ref().map_or(0, |lv| lv.evicted())
    }

    /// Is the Grundy value of `pos` zero? The search by sets of values answers without
    /// solving the position's hardest part exactly; otherwise, the Grundy value.
    pub fn is_zero(&mut self, pos: &G::Pos) -> GameResult<bool> {
        if let Some(lv) = self.lv.as_mut() {
            match lv.is_zero(pos) {
                Ok(z) => return Ok(z),
                Err(Stop::Game(e)) => return Err(e),
                Err(Stop::Deep) => self.fall_back(),
            }
        }
        Ok(self.grundy(pos)? == 0)
    }

    /// The search by sets of values met a game too deep for it: the iterative mex from now on.
    fn fall_back(&mut self) {
        if let Some(lv) = self.lv.take() {
            self.visited += lv.visited();
        }
    }

    /// The Grundy value of `pos`.
    pub fn grundy(&mut self, pos: &G::Pos) -> GameResult<u64> {
        if let Some(lv) = self.lv.as_mut() {
            match lv.grundy(pos) {
                Ok(g) => return Ok(g),
                Err(Stop::Game(e)) => return Err(e),
                Err(Stop::Deep) => self.fall_back(),
            }
        }
        let mut on_stack: HashSet<G::Pos> = HashSet::new();
        let mut stack: Vec<Frame<G::Pos>> = Vec::new();
        // Bytes of each frame on the stack, and their sum: the path must keep to its share.
        let mut sizes: (Vec<usize>, usize) = (Vec::new(), 0);
        let path_budget = self.budget / 4;
        let push = |stack: &mut Vec<Frame<G::Pos>>,
                    on_stack: &mut HashSet<G::Pos>,
                    sizes: &mut (Vec<usize>, usize),
                    f: Frame<G::Pos>| {
            let bytes = frame_bytes(&f);
            sizes.1 += bytes;
            if sizes.1 > path_budget {
                return Err(GameError::OutOfMemory(format!(
                    "the search went {} levels deep (positions and their parts), and what is on its path needs \
                     more than the memory budget (raise --max-memory)",
                    stack.len() + 1
                )));
            }
            sizes.0.push(bytes);
            Self::push(stack, on_stack, f);
            Ok(())
        };
        match self.begin(pos.clone(), &on_stack)? {
            Step::Done(g) => return Ok(g),
            Step::Push(f) => push(&mut stack, &mut on_stack, &mut sizes, f)?,
        }
        loop {
            let top = stack.last_mut().expect("the stack holds the root until it is solved");
            let next = match top {
                Frame::Sum { parts, .. } => parts.pop(),
                Frame::Mex { children, .. } => children.pop(),
            };
            match next {
                Some(p) => match self.begin(p, &on_stack)? {
                    Step::Done(g) => fold(top, g),
                    Step::Push(f) => push(&mut stack, &mut on_stack, &mut sizes, f)?,
                },
                None => {
                    sizes.1 -= sizes.0.pop().expect("a size for each frame");
                    let g = match stack.pop().expect("non-empty") {
                        Frame::Sum { acc, .. } => acc,
                        Frame::Mex { pos, seen, start, .. } => {
                            let g = mex(&seen);
                            on_stack.remove(&pos);
                            self.memo.insert(pos, g, self.visited - start);
                            g
                        }
                    };
                    match stack.last_mut() {
                        Some(parent) => fold(parent, g),
                        None => return Ok(g),
                    }
                }
            }
        }
    }

    fn push(stack: &mut Vec<Frame<G::Pos>>, on_stack: &mut HashSet<G::Pos>, f: Frame<G::Pos>) {
        if let Frame::Mex { pos, .. } = &f {
            on_stack.insert(pos.clone());
        }
        stack.push(f);
    }

    /// Start on `pos`: answer at once if possible, else return the frame to work on.
    fn begin(&mut self, pos: G::Pos, on_stack: &HashSet<G::Pos>) -> GameResult<Step<G::Pos>> {
        let mut pos = pos;
        if self.game.has_split()
            && let Some(mut parts) = self.game.split(&pos)?
        {
            self.progress.tick(self.visited, self.memo.bytes())?;
            if parts.len() > 1 && parts.contains(&pos) {
                return Err(GameError::Definition(format!(
                    "`parts` gave the position itself as one of its {} parts: each part must be smaller than \
                     the whole, or the sum never ends (return `()` when a position does not split)",
                    parts.len()
                )));
            }
            match parts.len() {
                0 => return Ok(Step::Done(0)),
                1 => pos = parts.pop().expect("one part"),
                _ => return Ok(Step::Push(Frame::Sum { parts, acc: 0 })),
            }
        }
        let c = self.game.canonical(&pos)?;
        if let Some(g) = self.memo.get(&c) {
            return Ok(Step::Done(g));
        }
        if on_stack.contains(&c) {
            return Err(GameError::Unsupported(
                "a position repeats (the game is loopy), so Grundy values are not defined".into(),
            ));
        }
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        match self.game.primitive(&c)? {
            Some(Value::Lose) => {
                self.memo.insert(c, 0, 1);
                return Ok(Step::Done(0));
            }
            Some(v) => {
                return Err(GameError::Unsupported(format!(
                    "a primitive {v} is not normal play, so Grundy values are not defined"
                )));
            }
            None => {}
        }
        let children = self.game.children(&c)?;
        if children.is_empty() {
            if self.game.stalemate() != Value::Lose {
                return Err(GameError::Unsupported(
                    "the game is not played under the normal-play rule, so Grundy values are not defined".into(),
                ));
            }
            self.memo.insert(c, 0, 1);
            return Ok(Step::Done(0));
        }
        let seen = Vec::with_capacity(children.len());
        Ok(Step::Push(Frame::Mex { pos: c, children, seen, start: self.visited }))
    }
}

fn fold<P>(frame: &mut Frame<P>, g: u64) {
    match frame {
        Frame::Sum { acc, .. } => *acc ^= g,
        Frame::Mex { seen, .. } => seen.push(g),
    }
}

#[cfg(test)]
mod tests {
    use super::mex;

    #[test]
    fn mex_examples_from_the_tactix_assignment() {
        assert_eq!(mex(&[0, 1, 2, 5, 9]), 3);
        assert_eq!(mex(&(1..=1000).collect::<Vec<_>>()), 0);
        assert_eq!(mex(&[0, 2, 4, 6, 8]), 1);
        assert_eq!(mex(&[]), 0);
        assert_eq!(mex(&[u64::MAX, 0]), 1);
    }
}
