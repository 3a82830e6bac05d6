//! The value alone (win, lose or tie), by a depth-first search that stops at the first
//! winning move.
//!
//! A full solve must look at every move of every position to know the remoteness (a win is
//! 1 + the *smallest* remoteness of its losing children). The value needs less: a position
//! is won as soon as one move is found that leads to a loss, and its other moves need never
//! be looked at. In a game where most positions are won (Hex, Connect-Four), that is most of
//! the tree. Moves already known to lose for the opponent are tried first (a look in the
//! memo), before any new position is searched.
//!
//! The memo holds one value a position. A game that turns out to be loopy (a position met
//! again on its own search path) is left to the full solver, which finds the draws.

use super::bounded::{Bounds, ORDERING_TRIAL, Ordering, exhausted, least_depth};
use super::memo::Memo;
use super::quick_packed::QuickKeys;
use super::value_packed::{Keyed, Stop};
use crate::game::{Game, GameError, GameResult, Value};
use crate::progress::Progress;
use hashbrown::HashSet;

struct Frame<P> {
    pos: P,
    children: Vec<P>,
    tie: bool,
    draw: bool,
    start: u64,
    /// What the frame held when pushed, counted against the budget.
    bytes: usize,
}

/// Values of one game's positions, found by searches that stop at the first winning move.
pub struct QuickSolver<G: Game> {
    game: std::rc::Rc<G>,
    memo: Memo<G::Pos, Value>,
    /// What the depth-bounded searches of [`QuickSolver::remoteness`] have shown, made at
    /// the first of them.
    bounds: Option<Memo<G::Pos, Bounds>>,
    budget: usize,
    visited: u64,
    progress: Progress,
    ordering: Ordering,
    /// The same searches on keys, where the game packs its positions (off after
    /// [`QuickSolver::without_keys`]).
    keys: Keyed<QuickKeys<G::Pos>>,
}

impl<G: Game> QuickSolver<G> {
    pub fn new(game: std::rc::Rc<G>, budget: usize, progress: Progress) -> Self {
        // The memo forgets half its entries when full; the path being searched is kept apart
        // from it, within a quarter of the budget.
        QuickSolver {
            game,
            memo: Memo::new(budget / 4 * 3),
            bounds: None,
            budget,
            visited: 0,
            progress,
            ordering: Ordering::Trial(0),
            keys: Keyed::default(),
        }
    }

    /// Search the game's own positions even where it packs them into keys (the fallback of
    /// [`Game::packed_play`], as a second implementation to test the first against).
    pub fn without_keys(mut self) -> Self {
        self.keys.turn_off();
        self
    }

    /// The key of `pos` where the game packs it (see [`Game::packed_play`]), with the search
    /// of its space ready (a new one, with its own tables, when `pos` is in another space).
    fn packed_key(&mut self, pos: &G::Pos) -> Option<u128> {
        let (game, budget, progress) = (&self.game, self.budget, &self.progress);
        self.keys.key(
            pos,
            || game.packed_play(pos),
            |space| QuickKeys::new(space, budget, game.stalemate(), progress.clone()),
        )
    }

    /// The search on keys stopped: an error is the answer; a loop hands the game over to
    /// the search over positions (which finds it) for good.
    fn keys_stopped<T>(&mut self, stop: Stop) -> GameResult<Option<T>> {
        match stop {
            Stop::Error(e) => Err(e),
            Stop::Loop => {
                self.keys.turn_off();
                Ok(None)
            }
        }
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.visited + self.keys.visited()
    }

    /// Memo entries dropped to keep to the memory budget.
    pub fn evicted(&self) -> u64 {
        self.memo.evicted() + self.keys.evicted()
    }

    /// The value of `pos` for the player to move, or `None` when the game is loopy (the
    /// full solver must decide it).
    pub fn value(&mut self, pos: &G::Pos) -> GameResult<Option<Value>> {
        if let Some(key) = self.packed_key(pos) {
            match self.keys.search().value(key) {
                Ok(v) => return Ok(Some(v)),
                Err(stop) => self.keys_stopped::<()>(stop).map(|_| ())?,
            }
        }
        let root = self.game.canonical(pos)?;
        if let Some(v) = self.memo.get(&root) {
            return Ok(Some(v));
        }
        let mut stack: Vec<Frame<G::Pos>> = Vec::new();
        let mut on_stack: HashSet<G::Pos> = HashSet::new();
        let mut stack_bytes = 0usize;
        // The value of the position just decided, to pass up to its parent.
        let mut decided = match self.open(&root)? {
            Ok(v) => {
                self.memo.insert(root, v, 1);
                return Ok(Some(v));
            }
            Err(children) => {
                on_stack.insert(root.clone());
                let bytes = frame_bytes(&root, &children);
                stack_bytes += bytes;
                stack.push(Frame { pos: root, children, tie: false, draw: false, start: self.visited, bytes });
                None
            }
        };
        loop {
            if let Some(v) = decided.take() {
                let top = stack.last_mut().expect("a decided child has a parent on the stack");
                match v {
                    // A move to a lost position: this one is won, whatever its other moves.
                    Value::Lose => top.children.clear(),
                    Value::Tie => top.tie = true,
                    Value::Draw => top.draw = true,
                    Value::Win => {}
                }
                if v == Value::Lose {
                    let frame = stack.pop().expect("non-empty");
                    on_stack.remove(&frame.pos);
                    stack_bytes -= frame.bytes;
                    self.memo.insert(frame.pos, Value::Win, self.visited - frame.start);
                    if stack.is_empty() {
                        return Ok(Some(Value::Win));
                    }
                    decided = Some(Value::Win);
                    continue;
                }
            }
            let top = stack.last_mut().expect("the stack holds the root until it is decided");
            let Some(child) = top.children.pop() else {
                let frame = stack.pop().expect("non-empty");
                on_stack.remove(&frame.pos);
                stack_bytes -= frame.bytes;
                let v = exhausted(frame.tie, frame.draw);
                self.memo.insert(frame.pos, v, self.visited - frame.start);
                if stack.is_empty() {
                    return Ok(Some(v));
                }
                decided = Some(v);
                continue;
            };
            if let Some(v) = self.memo.get(&child) {
                decided = Some(v);
                continue;
            }
            if on_stack.contains(&child) {
                return Ok(None);
            }
            match self.open(&child)? {
                Ok(v) => {
                    self.memo.insert(child, v, 1);
                    decided = Some(v);
                }
                Err(children) => {
                    let bytes = frame_bytes(&child, &children);
                    let frame =
                        Frame { pos: child.clone(), children, tie: false, draw: false, start: self.visited, bytes };
                    stack_bytes += bytes;
                    if stack_bytes > self.budget / 4 {
                        return Err(GameError::OutOfMemory(format!(
                            "the search went {} moves deep, and the positions on its path need more than the \
                             memory budget (raise --max-memory)",
                            stack.len() + 1
                        )));
                    }
                    on_stack.insert(child);
                    stack.push(frame);
                }
            }
        }
    }

    /// A position's value if the game is over there (or one of its moves is already known to
    /// win), else its children (canonical), the ones to search first last.
    fn open(&mut self, pos: &G::Pos) -> GameResult<Result<Value, Vec<G::Pos>>> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        if let Some(v) = self.game.primitive(pos)? {
            return Ok(Ok(v));
        }
        super::check_fanout(&*self.game, pos, self.budget)?;
        let children = self.game.children(pos)?;
        if children.is_empty() {
            return Ok(Ok(self.game.stalemate()));
        }
        let mut canon = Vec::with_capacity(children.len());
        for c in &children {
            let c = self.game.canonical(c)?;
            match self.memo.get(&c) {
                Some(Value::Lose) => return Ok(Ok(Value::Win)),
                // A move to a position known won for the opponent decides nothing here: it is
                // not looked up again.
                Some(Value::Win) => {}
                _ => canon.push(c),
            }
        }
        if canon.is_empty() {
            // Every move leads to a position won for the opponent.
            return Ok(Ok(Value::Lose));
        }
        // Children are taken from the end. The fewest replies first: a position whose
        // opponent has few moves is more often lost for them, and smaller to search (the
        // mobility heuristic of game-tree search); among equals, in the order the game lists
        // them.
        // A game whose siblings have had the same number of replies in every one of the
        // first positions (Hex: every empty cell) is not ordered further: it would pay the
        // counting for nothing.
        if self.ordering == Ordering::Off || canon.len() < 2 {
            canon.reverse();
            return Ok(Err(canon));
        }
        let mut keyed = Vec::with_capacity(canon.len());
        for c in canon {
            keyed.push((self.game.move_count(&c)?, c));
        }
        if let Ordering::Trial(n) = self.ordering {
            self.ordering = if keyed.iter().any(|k| k.0 != keyed[0].0) {
                Ordering::On
            } else if n >= ORDERING_TRIAL {
                Ordering::Off
            } else {
                Ordering::Trial(n + 1)
            };
        }
        keyed.reverse();
        keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
        Ok(Err(keyed.into_iter().map(|k| k.1).collect()))
    }
}

impl<G: Game> QuickSolver<G> {
    /// The remoteness of `pos`, whose value is `value`, by depth-bounded searches of growing
    /// depth: a position is won within d moves when one of its moves leads to a position lost
    /// within d - 1, and lost within d when it is over and lost, or every move leads to a
    /// position won within d - 1 (GAMESMAN's remoteness: the first d that holds is it). A
    /// search stops at the first move that settles it, skips children whose value is known
    /// from the value search to be the wrong one, and remembers what each depth showed. It
    /// sees far fewer positions than the full search where the game is short next to its
    /// width (Hex). `None` for a tie or a draw (their remoteness needs the full search) and
    /// past 400 moves (`REMOTENESS_CAP`).
    pub fn remoteness(&mut self, pos: &G::Pos, value: Value) -> GameResult<Option<u32>> {
        if !matches!(value, Value::Win | Value::Lose) {
            return Ok(None);
        }
        if let Some(key) = self.packed_key(pos) {
            match self.keys.search().remoteness(key, value) {
                Ok(r) => return Ok(r),
                Err(stop) => self.keys_stopped::<()>(stop).map(|_| ())?,
            }
        }
        let root = self.game.canonical(pos)?;
        let mut bounds = self.bounds.take().unwrap_or_else(|| Memo::new(self.budget / 4));
        let found = least_depth(|d| self.within(&mut bounds, &root, value, d));
        self.bounds = Some(bounds);
        found
    }

    /// Is `pos` (canonical) `want` (a win or a loss for the player to move) within `d` moves?
    fn within(&mut self, bounds: &mut Memo<G::Pos, Bounds>, pos: &G::Pos, want: Value, d: u32) -> GameResult<bool> {
        let b = bounds.get(pos).unwrap_or(Bounds::NONE);
        if let Some(known) = b.decided(want, d) {
            return Ok(known);
        }
        if self.memo.get(pos).is_some_and(|v| v != want) {
            let mut b = b;
            b.record(want, u32::MAX, false);
            bounds.insert(pos.clone(), b, 1);
            return Ok(false);
        }
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes() + bounds.bytes())?;
        let start = self.visited;
        let children = match self.game.primitive(pos)? {
            Some(v) => Err(v),
            None => {
                super::check_fanout(&*self.game, pos, self.budget)?;
                let children = self.game.children(pos)?;
                if children.is_empty() { Err(self.game.stalemate()) } else { Ok(children) }
            }
        };
        let (within, depth) = match children {
            // An end, or no move, is what it is at once (remoteness 0), at any depth.
            Err(v) => (v == want, if v == want { 0 } else { u32::MAX }),
            Ok(_) if d == 0 => (false, 0),
            Ok(children) => {
                // Children whose value is known to be the wrong one for this question are
                // left out (a win looks for a lost child) or settle it (a loss needs every
                // child won); those known right are tried first (a win), or last (a loss).
                let need = if want == Value::Win { Value::Lose } else { Value::Win };
                let mut known = Vec::new();
                let mut unknown = Vec::new();
                let mut hopeless = false;
                for c in &children {
                    let c = self.game.canonical(c)?;
                    match self.memo.get(&c) {
                        Some(v) if v == need => known.push(c),
                        Some(_) if want == Value::Lose => {
                            hopeless = true;
                            break;
                        }
                        Some(_) => {}
                        None => unknown.push(c),
                    }
                }
                if hopeless || (want == Value::Win && known.is_empty() && unknown.is_empty()) {
                    (false, u32::MAX)
                } else if want == Value::Win {
                    let mut any = false;
                    for c in known.iter().chain(&unknown) {
                        if self.within(bounds, c, need, d - 1)? {
                            any = true;
                            break;
                        }
                    }
                    (any, d)
                } else {
                    let mut all = true;
                    for c in unknown.iter().chain(&known) {
                        if !self.within(bounds, c, need, d - 1)? {
                            all = false;
                            break;
                        }
                    }
                    (all, d)
                }
            }
        };
        // The entry may have moved on below (a transposition): read it again.
        let mut b = bounds.get(pos).unwrap_or(Bounds::NONE);
        b.record(want, depth, within);
        bounds.insert(pos.clone(), b, self.visited - start + 1);
        Ok(within)
    }
}

/// Bytes a frame for `pos` with `children` holds (the position twice: the frame and the set
/// of positions on the path).
fn frame_bytes<P: crate::game::Footprint>(pos: &P, children: &[P]) -> usize {
    let one = |p: &P| p.heap_bytes() + std::mem::size_of::<P>();
    2 * one(pos) + children.iter().map(one).sum::<usize>() + 64
}
