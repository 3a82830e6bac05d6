//! The value-first search and its depth-bounded remoteness searches ([`super::quick`]) on
//! 128-bit keys, for games that offer [`PackedPlay`] (`Game::packed_play`): children, ends,
//! canonical forms and move counts computed on keys, natively, and remembered in [`Memo`]s
//! of `u128` keys. No allocation per position: the children of every position on the path
//! share one buffer.
//!
//! The searches are [`super::quick::QuickSolver`]'s, move for move: the value search tries
//! first the children already known lost for the opponent, then the rest fewest replies
//! first (among equals, in the order the game lists them: the board's centre first), and
//! drops the ordering when siblings keep having as many replies; the bounded searches skip
//! children whose value is known to be the wrong one and remember what each depth showed.
//! The search over the game's own positions stays the fallback: for games without keys, and
//! for a game whose play turns out to loop (a path longer than [`MAX_DEPTH`]), where it
//! finds the loop.

use super::bounded::{Bounds, ORDERING_TRIAL, Ordering, exhausted, least_depth};
use super::memo::Memo;
use super::value_packed::{KeySearch, MAX_DEPTH, Stop};
use crate::game::packed::PackedPlay;
use crate::game::{GameError, Value};
use crate::progress::Progress;

/// A position on the value search's path: its key, where its children start in the shared
/// buffer, what its children have shown so far.
struct Frame {
    key: u128,
    kids: usize,
    tie: bool,
    draw: bool,
    start: u64,
}

/// Values (and, by bounded searches, remoteness) of one packed space's positions.
pub struct QuickKeys<P> {
    space: Box<dyn PackedPlay<P>>,
    memo: Memo<u128, Value>,
    bounds: Option<Memo<u128, Bounds>>,
    stalemate: Value,
    budget: usize,
    visited: u64,
    progress: Progress,
    ordering: Ordering,
    /// The children of every position on the path, each frame's from its `kids` on (the
    /// ones to search first last).
    kids: Vec<u128>,
    /// Children with their move counts, while they are ordered.
    keyed: Vec<(u32, u128)>,
    stack: Vec<Frame>,
}

impl<P> KeySearch for QuickKeys<P> {
    type Pos = P;
    fn pack(&self, pos: &P) -> Option<u128> {
        self.space.pack(pos)
    }
    fn visited(&self) -> u64 {
        self.visited
    }
    fn evicted(&self) -> u64 {
        self.memo.evicted()
    }
}

impl<P> QuickKeys<P> {
    /// A search of `space` whose tables keep to about `budget` bytes (the value memo three
    /// quarters, the bounds a quarter, as [`super::quick::QuickSolver`]'s).
    pub fn new(space: Box<dyn PackedPlay<P>>, budget: usize, stalemate: Value, progress: Progress) -> Self {
        QuickKeys {
            space,
            memo: Memo::new(budget / 4 * 3),
            bounds: None,
            stalemate,
            budget,
            visited: 0,
            progress,
            ordering: Ordering::Trial(0),
            kids: Vec::new(),
            keyed: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The value of `key`'s position for the player to move.
    pub fn value(&mut self, key: u128) -> Result<Value, Stop> {
        let root = self.space.canonical(key);
        if let Some(v) = self.memo.get(&root) {
            return Ok(v);
        }
        self.stack.clear();
        self.kids.clear();
        if let Some(v) = self.open(root)? {
            self.memo.insert(root, v, 1);
            return Ok(v);
        }
        // The value of the position just decided, to pass up to its parent.
        let mut decided: Option<Value> = None;
        loop {
            if let Some(v) = decided.take() {
                let top = self.stack.last_mut().expect("a decided child has a parent on the stack");
                match v {
                    Value::Lose => {
                        // A move to a lost position: this one is won, whatever its other moves.
                        self.kids.truncate(top.kids);
                        let frame = self.stack.pop().expect("non-empty");
                        self.memo.insert(frame.key, Value::Win, self.visited - frame.start);
                        if self.stack.is_empty() {
                            return Ok(Value::Win);
                        }
                        decided = Some(Value::Win);
                        continue;
                    }
                    Value::Tie => top.tie = true,
                    Value::Draw => top.draw = true,
                    Value::Win => {}
                }
            }
            let top = self.stack.last().expect("the stack holds the root until it is decided");
            if self.kids.len() == top.kids {
                let frame = self.stack.pop().expect("non-empty");
                let v = exhausted(frame.tie, frame.draw);
                self.memo.insert(frame.key, v, self.visited - frame.start);
                if self.stack.is_empty() {
                    return Ok(v);
                }
                decided = Some(v);
                continue;
            }
            let child = self.kids.pop().expect("a child");
            if let Some(v) = self.memo.get(&child) {
                decided = Some(v);
                continue;
            }
            if let Some(v) = self.open(child)? {
                self.memo.insert(child, v, 1);
                decided = Some(v);
            }
        }
    }

    /// Expand `key` (canonical): its value if the game is over there (or one of its moves is
    /// already known to win, or every one to lose), else `None` with its frame pushed and its
    /// canonical children on the buffer, the ones to search first last.
    fn open(&mut self, key: u128) -> Result<Option<Value>, Stop> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        if let Some(v) = self.space.primitive(key) {
            return Ok(Some(v));
        }
        let kids = self.kids.len();
        self.space.children(key, &mut self.kids);
        if self.kids.len() == kids {
            return Ok(Some(self.stalemate));
        }
        // Canonical, and those known won for the opponent left out (they decide nothing).
        let mut n = kids;
        for i in kids..self.kids.len() {
            let c = self.space.canonical(self.kids[i]);
            match self.memo.get(&c) {
                Some(Value::Lose) => {
                    self.kids.truncate(kids);
                    return Ok(Some(Value::Win));
                }
                Some(Value::Win) => {}
                _ => {
                    self.kids[n] = c;
                    n += 1;
                }
            }
        }
        self.kids.truncate(n);
        if n == kids {
            // Every move leads to a position won for the opponent.
            return Ok(Some(Value::Lose));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Stop::Loop);
        }
        if self.kids.len() * 16 > self.budget / 4 {
            return Err(Stop::Error(GameError::OutOfMemory(format!(
                "the search went {} moves deep, and the positions on its path need more than the memory budget \
                 (raise --max-memory)",
                self.stack.len() + 1
            ))));
        }
        // Taken from the end: the fewest replies first, among equals in the order listed
        // (as `QuickSolver::open`).
        if self.ordering == Ordering::Off || n - kids < 2 {
            self.kids[kids..].reverse();
        } else {
            self.keyed.clear();
            for &c in &self.kids[kids..] {
                self.keyed.push((self.space.move_count(c), c));
            }
            if let Ordering::Trial(t) = self.ordering {
                let first = self.keyed[0].0;
                self.ordering = if self.keyed.iter().any(|k| k.0 != first) {
                    Ordering::On
                } else if t >= ORDERING_TRIAL {
                    Ordering::Off
                } else {
                    Ordering::Trial(t + 1)
                };
            }
            self.keyed.reverse();
            self.keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
            for (slot, k) in self.kids[kids..].iter_mut().zip(&self.keyed) {
                *slot = k.1;
            }
        }
        self.stack.push(Frame { key, kids, tie: false, draw: false, start: self.visited });
        Ok(None)
    }

    /// The remoteness of `key`'s position, whose value is `value` (a win or a loss), by
    /// depth-bounded searches of growing depth (as `QuickSolver::remoteness`); `None` past
    /// `REMOTENESS_CAP`.
    pub fn remoteness(&mut self, key: u128, value: Value) -> Result<Option<u32>, Stop> {
        let root = self.space.canonical(key);
        let mut bounds = self.bounds.take().unwrap_or_else(|| Memo::new(self.budget / 4));
        self.kids.clear();
        let found = least_depth(|d| self.within(&mut bounds, root, value, d));
        self.bounds = Some(bounds);
        found
    }

    /// Is `key`'s position (canonical) `want` (a win or a loss for the player to move)
    /// within `d` moves?
    fn within(&mut self, bounds: &mut Memo<u128, Bounds>, key: u128, want: Value, d: u32) -> Result<bool, Stop> {
        let b = bounds.get(&key).unwrap_or(Bounds::NONE);
        if let Some(known) = b.decided(want, d) {
            return Ok(known);
        }
        if self.memo.get(&key).is_some_and(|v| v != want) {
            let mut b = b;
            b.record(want, u32::MAX, false);
            bounds.insert(key, b, 1);
            return Ok(false);
        }
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes() + bounds.bytes())?;
        let start = self.visited;
        let raw = self.kids.len();
        let end = match self.space.primitive(key) {
            Some(v) => Some(v),
            None => {
                self.space.children(key, &mut self.kids);
                (self.kids.len() == raw).then_some(self.stalemate)
            }
        };
        let (within, depth) = match end {
            // An end, or no move, is what it is at once (remoteness 0), at any depth.
            Some(v) => (v == want, if v == want { 0 } else { u32::MAX }),
            None if d == 0 => (false, 0),
            None => self.within_children(bounds, raw, want, d)?,
        };
        self.kids.truncate(raw);
        // The entry may have moved on below (a transposition): read it again.
        let mut b = bounds.get(&key).unwrap_or(Bounds::NONE);
        b.record(want, depth, within);
        bounds.insert(key, b, self.visited - start + 1);
        Ok(within)
    }

    /// [`QuickKeys::within`] of a position with moves, at a depth of 1 or more, its children
    /// on the buffer from `raw` on: those known to be the wrong one left out (a win looks for a lost child) or
    /// settling it (a loss needs every child won), those known right tried first (a win) or
    /// last (a loss).
    fn within_children(
        &mut self,
        bounds: &mut Memo<u128, Bounds>,
        raw: usize,
        want: Value,
        d: u32,
    ) -> Result<(bool, u32), Stop> {
        let listed = self.kids.len();
        let need = if want == Value::Win { Value::Lose } else { Value::Win };
        // The children to try, appended after the raw ones in the order to try them: first
        // those known `need` (a win) or not known (a loss), then the others.
        let mut hopeless = false;
        for pass in 0..2 {
            for i in raw..listed {
                let c = self.space.canonical(self.kids[i]);
                let known = match self.memo.get(&c) {
                    Some(v) if v == need => true,
                    Some(_) if want == Value::Lose => {
                        hopeless = true;
                        break;
                    }
                    Some(_) => continue,
                    None => false,
                };
                if (known == (pass == 0)) == (want == Value::Win) {
                    self.kids.push(c);
                }
            }
            if hopeless {
                break;
            }
        }
        let answer = if hopeless || (want == Value::Win && self.kids.len() == listed) {
            (false, u32::MAX)
        } else {
            let win = want == Value::Win;
            let mut settled = !win;
            let mut i = listed;
            while i < self.kids.len() {
                let c = self.kids[i];
                if self.within(bounds, c, need, d - 1)? == win {
                    settled = win;
                    break;
                }
                i += 1;
            }
            (settled, d)
        };
        Ok(answer)
    }
}
