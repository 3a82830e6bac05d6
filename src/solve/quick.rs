//! The value alone (win, lose or tie), by a depth-first search that stops at the first
//! winning move, and the remoteness of a win or a loss by depth-bounded searches.
//!
//! A full solve must look at every move of every position to know the remoteness (a win is
//! 1 + the *smallest* remoteness of its losing children). The value needs less: a position
//! is won as soon as one move is found that leads to a loss, and its other moves need never
//! be looked at. In a game where most positions are won (Hex, Connect-Four), that is most of
//! the tree. The search asks yes-or-no questions (is this position worth a tie at least? a
//! win?), so a position is searched no further than its parent needs: a move found to tie
//! answers "is it lost?" without a look for a win beyond it. The memo keeps, for each
//! position, the bounds its searches have shown (`Known`). Moves whose answer the memo
//! already knows decide first, before any new position is searched; then the rest fewest
//! replies first (among equals, in the order the game lists them), an ordering dropped when
//! siblings keep having as many replies.
//!
//! [`ValueFirst`] is written once over a [`Space`], with the children of every position on
//! the path in one buffer; [`QuickSolver`] runs it on a game's keys where the game packs its
//! positions, else on its own positions. The memo holds one byte a position. A game that
//! turns out to be loopy (a position met again on its own search path) is left to the full
//! solver, which finds the draws.

use super::bounded::{Bounds, Known, LOSE, ORDERING_TRIAL, Ordering, TIE, WIN, least_depth};
use super::memo::Memo;
use super::space::{GameSpace, KeySearch, KeySpace, Keyed, Path, Space, Stop};
use crate::game::{Game, GameExt, GameResult, Value};
use crate::progress::Progress;

/// A position on the value search's path: its key, where its children start in the shared
/// buffer, the question asked of it, what was known of it and what its children have shown.
struct Frame<K> {
    key: K,
    kids: usize,
    /// Is the position worth at least this (a tie or a win) to the player to move?
    at_least: u8,
    /// What the memo knew of it when it was opened.
    known: Known,
    /// The most its moves searched so far are worth (each answered "no" to its question).
    best: u8,
    start: u64,
    /// Bytes the frame holds (its position, twice, and its children), counted against the
    /// budget.
    bytes: usize,
}

/// Values (and, by bounded searches, remoteness) of the positions of one [`Space`].
pub struct ValueFirst<S: Space> {
    space: S,
    memo: Memo<S::Key, Known>,
    /// What the depth-bounded searches of [`ValueFirst::remoteness`] have shown, made at the
    /// first of them.
    bounds: Option<Memo<S::Key, Bounds>>,
    budget: usize,
    visited: u64,
    progress: Progress,
    ordering: Ordering,
    /// The children of every position on the path, each frame's from its `kids` on (the
    /// ones to search first last).
    kids: Vec<S::Key>,
    /// Children with their move counts, while they are ordered.
    keyed: Vec<(usize, S::Key)>,
    stack: Vec<Frame<S::Key>>,
    path: Path<S>,
}

impl<P> KeySearch for ValueFirst<KeySpace<P>> {
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

impl<S: Space> ValueFirst<S> {
    /// A search of `space` whose tables keep to about `budget` bytes: the value memo three
    /// quarters, the bounds a quarter; the path is kept apart, within a quarter.
    pub fn new(space: S, budget: usize, progress: Progress) -> Self {
        ValueFirst {
            space,
            memo: Memo::new(budget / 4 * 3),
            bounds: None,
            budget,
            visited: 0,
            progress,
            ordering: Ordering::Trial(0),
            kids: Vec::new(),
            keyed: Vec::new(),
            stack: Vec::new(),
            path: Path::new(budget),
        }
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.visited
    }

    /// Memo entries dropped to keep to the budget.
    pub fn evicted(&self) -> u64 {
        self.memo.evicted()
    }

    /// Pop the top frame: `k` is what its search has shown.
    fn pop(&mut self, k: Known) {
        let frame = self.stack.pop().expect("non-empty");
        self.path.leave(&frame.key, frame.bytes);
        self.memo.insert(frame.key, k, self.visited - frame.start);
    }

    /// The value of `key`'s position for the player to move; [`Stop::Loop`] where play loops.
    /// At most two searches, each a yes-or-no question: is it worth a tie at least (if not,
    /// it is lost), and then, unless that one already showed more, is it a win?
    pub fn value(&mut self, key: &S::Key) -> Result<Value, Stop> {
        let root = self.space.canonical(key)?;
        let mut known = self.memo.get(&root).unwrap_or(Known::NOTHING);
        loop {
            if let Some(v) = known.value() {
                return Ok(v);
            }
            let at_least = if known.lo == LOSE { TIE } else { WIN };
            known = known.meet(self.ask(root.clone(), at_least, known)?);
        }
    }

    /// Is `root`'s position (canonical; `known` is what the memo has of it) worth at least
    /// `at_least` to the player to move? The answer is in what this returns (also in the
    /// memo): its `lo` at least `at_least` for yes, its `hi` below it for no.
    ///
    /// The search asks each move the opposite question: a position is worth a tie or better
    /// if one of its moves leads to a position not won for the opponent, and a win if one
    /// leads to a position lost for them. It stops at the first such move; a position is
    /// never searched further than its parent needs (a move that ties answers "is it lost?"
    /// at once, without looking for a win beyond it). Where there are no ties, every answer
    /// is exact, and one search decides the value.
    fn ask(&mut self, root: S::Key, at_least: u8, known: Known) -> Result<Known, Stop> {
        self.stack.clear();
        self.kids.clear();
        self.path.clear();
        // What was shown of the position just searched, to pass up to its parent.
        let mut decided: Option<Known> = match self.open(root, at_least, known)? {
            Some(k) => return Ok(k),
            None => None,
        };
        loop {
            let top = self.stack.last_mut().expect("the stack holds the root until it is decided");
            let need = WIN + TIE - top.at_least;
            if let Some(c) = decided.take() {
                if c.hi < need {
                    // A move to a position worth less than `need` to the opponent: the
                    // answer is yes, whatever its other moves.
                    self.kids.truncate(top.kids);
                    let k = top.known.meet(Known { lo: WIN - c.hi, hi: WIN });
                    self.pop(k);
                    if self.stack.is_empty() {
                        return Ok(k);
                    }
                    decided = Some(k);
                    continue;
                }
                top.best = top.best.max(WIN - c.lo);
            }
            if self.kids.len() == top.kids {
                // Every move answered no: the position is worth no more than its best.
                let k = top.known.meet(Known { lo: LOSE, hi: top.best });
                self.pop(k);
                if self.stack.is_empty() {
                    return Ok(k);
                }
                decided = Some(k);
                continue;
            }
            let child = self.kids.pop().expect("a child");
            let ck = self.memo.get(&child);
            if let Some(c) = ck
                && (c.hi < need || c.lo >= need)
            {
                decided = Some(c);
                continue;
            }
            if self.path.holds(&child) {
                return Err(Stop::Loop);
            }
            decided = self.open(child, need, ck.unwrap_or(Known::NOTHING))?;
        }
    }

    /// Expand `key` (canonical; `known` is what the memo has of it), asked whether it is
    /// worth `at_least`: what is shown of it (and put in the memo) if that is settled at once
    /// (the game is over there, or its moves' positions in the memo answer it), else `None`
    /// with its frame pushed and its canonical children on the buffer, the ones to search
    /// first last.
    fn open(&mut self, key: S::Key, at_least: u8, known: Known) -> Result<Option<Known>, Stop> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        let kids = self.kids.len();
        let over = match self.space.primitive(&key)? {
            Some(v) => Some(v),
            None => {
                self.space.children(&key, &mut self.kids)?;
                (self.kids.len() == kids).then(|| self.space.stalemate())
            }
        };
        if let Some(v) = over {
            // A draw is not in the order of this search; the full solver decides it.
            let k = Known::exact(v).ok_or(Stop::Loop)?.meet(known);
            self.memo.insert(key, k, 1);
            return Ok(Some(k));
        }
        // Canonical, and those whose answer the memo knows left out: the lowest a move's
        // position is known to be worth to the opponent (the answer yes where below `need`),
        // the most those that answer no leave this one worth.
        let need = WIN + TIE - at_least;
        let (mut n, mut lowest, mut best) = (kids, WIN, LOSE);
        for i in kids..self.kids.len() {
            let c = self.space.canonical(&self.kids[i])?;
            match self.memo.get(&c) {
                Some(ck) if ck.hi < need => {
                    lowest = lowest.min(ck.hi);
                    if lowest == LOSE {
                        break;
                    }
                }
                Some(ck) if ck.lo >= need => best = best.max(WIN - ck.lo),
                _ => {
                    self.kids[n] = c;
                    n += 1;
                }
            }
        }
        if lowest < need {
            self.kids.truncate(kids);
            let k = known.meet(Known { lo: WIN - lowest, hi: WIN });
            self.memo.insert(key, k, 1);
            return Ok(Some(k));
        }
        self.kids.truncate(n);
        if n == kids {
            let k = known.meet(Known { lo: LOSE, hi: best });
            self.memo.insert(key, k, 1);
            return Ok(Some(k));
        }
        let bytes = self.path.enter(self.stack.len(), &key, &self.kids[kids..])?;
        self.order(kids)?;
        self.stack.push(Frame { key, kids, at_least, known, best, start: self.visited, bytes });
        Ok(None)
    }

    /// Order the children on the buffer from `kids` on, to be taken from the end. The fewest
    /// replies first: a position whose opponent has few moves is more often lost for them,
    /// and smaller to search (the mobility heuristic of game-tree search); among equals, in
    /// the order the game lists them. A game whose siblings have had the same number of
    /// replies in every one of the first positions (Hex: every empty cell) is not ordered
    /// further: it would pay the counting for nothing.
    fn order(&mut self, kids: usize) -> GameResult<()> {
        if self.ordering == Ordering::Off || self.kids.len() - kids < 2 {
            self.kids[kids..].reverse();
            return Ok(());
        }
        self.keyed.clear();
        for c in &self.kids[kids..] {
            self.keyed.push((self.space.move_count(c)?, c.clone()));
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
        for (slot, k) in self.kids[kids..].iter_mut().zip(self.keyed.drain(..)) {
            *slot = k.1;
        }
        Ok(())
    }

    /// The remoteness of `key`'s position, whose value is `value` (a win or a loss), by
    /// depth-bounded searches of growing depth: a position is won within d moves when one of
    /// its moves leads to a position lost within d - 1, and lost within d when it is over and
    /// lost, or every move leads to a position won within d - 1 (GAMESMAN's remoteness: the
    /// first d that holds is it). A search stops at the first move that settles it, skips
    /// children whose value is known from the value search to be the wrong one, and
    /// remembers what each depth showed. It sees far fewer positions than the full search
    /// where the game is short next to its width (Hex). `None` past `REMOTENESS_CAP`.
    pub fn remoteness(&mut self, key: &S::Key, value: Value) -> Result<Option<u32>, Stop> {
        let root = self.space.canonical(key)?;
        Ok(self.bounded(|this, bounds| least_depth(|d| this.within(bounds, &root, value, d)))?)
    }

    /// `ask` with the table of what the depth-bounded searches have shown (made at the first
    /// of them), the children's buffer empty.
    fn bounded<T>(&mut self, ask: impl FnOnce(&mut Self, &mut Memo<S::Key, Bounds>) -> T) -> T {
        let mut bounds = self.bounds.take().unwrap_or_else(|| Memo::new(self.budget / 4));
        self.kids.clear();
        let answer = ask(self, &mut bounds);
        self.bounds = Some(bounds);
        answer
    }

    /// The value and remoteness of `key`'s position where it is won or lost, by the
    /// depth-bounded searches alone: for d = 0, 1, … is it won within d moves, else lost
    /// within d? The first that holds is its value, and d its remoteness. Each search is
    /// bounded by its depth, not by the path, so this holds where play loops: a win within d
    /// is one the opponent cannot escape by going round. `None` past `REMOTENESS_CAP` (a tie
    /// or a draw never ends it; the time limit does).
    pub fn prove(&mut self, key: &S::Key) -> Result<Option<(Value, u32)>, Stop> {
        let root = self.space.canonical(key)?;
        let mut value = Value::Win;
        let found = self.bounded(|this, bounds| {
            least_depth(|d| {
                for want in [Value::Win, Value::Lose] {
                    if this.within(bounds, &root, want, d)? {
                        value = want;
                        return Ok::<bool, crate::game::GameError>(true);
                    }
                }
                Ok(false)
            })
        });
        Ok(found?.map(|d| (value, d)))
    }

    /// Is `key`'s position lost within `d` moves? The depth-bounded search of
    /// [`ValueFirst::prove`], with what it has shown so far.
    pub fn lost_within(&mut self, key: &S::Key, d: u32) -> Result<bool, Stop> {
        let c = self.space.canonical(key)?;
        Ok(self.bounded(|this, bounds| this.within(bounds, &c, Value::Lose, d))?)
    }

    /// Is `key`'s position (canonical) `want` (a win or a loss for the player to move)
    /// within `d` moves?
    fn within(&mut self, bounds: &mut Memo<S::Key, Bounds>, key: &S::Key, want: Value, d: u32) -> GameResult<bool> {
        let b = bounds.get(key).unwrap_or(Bounds::NONE);
        if let Some(known) = b.decided(want, d) {
            return Ok(known);
        }
        if self.memo.get(key).is_some_and(|k| k.excludes(want)) {
            let mut b = b;
            b.record(want, u32::MAX, false);
            bounds.insert(key.clone(), b, 1);
            return Ok(false);
        }
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes() + bounds.bytes())?;
        let start = self.visited;
        let raw = self.kids.len();
        let end = match self.space.primitive(key)? {
            Some(v) => Some(v),
            None => {
                self.space.children(key, &mut self.kids)?;
                (self.kids.len() == raw).then(|| self.space.stalemate())
            }
        };
        let answer = match end {
            // An end, or no move, is what it is at once (remoteness 0), at any depth.
            Some(v) => Ok((v == want, if v == want { 0 } else { u32::MAX })),
            None if d == 0 => Ok((false, 0)),
            None => self.within_children(bounds, raw, want, d),
        };
        self.kids.truncate(raw);
        let (within, depth) = answer?;
        // The entry may have moved on below (a transposition): read it again.
        let mut b = bounds.get(key).unwrap_or(Bounds::NONE);
        b.record(want, depth, within);
        bounds.insert(key.clone(), b, self.visited - start + 1);
        Ok(within)
    }

    /// [`ValueFirst::within`] of a position with moves, at a depth of 1 or more, its children
    /// on the buffer from `raw` on: those known to be the wrong one left out (a win looks for
    /// a lost child) or settling it (a loss needs every child won), those known right tried
    /// first (a win) or last (a loss).
    fn within_children(
        &mut self,
        bounds: &mut Memo<S::Key, Bounds>,
        raw: usize,
        want: Value,
        d: u32,
    ) -> GameResult<(bool, u32)> {
        let listed = self.kids.len();
        let need = if want == Value::Win { Value::Lose } else { Value::Win };
        // The children to try, appended after the raw ones in the order to try them: first
        // those known `need` (a win) or not known (a loss), then the others.
        let mut hopeless = false;
        for pass in 0..2 {
            for i in raw..listed {
                let c = self.space.canonical(&self.kids[i])?;
                let k = self.memo.get(&c).unwrap_or(Known::NOTHING);
                let known = if k.is(need) {
                    true
                } else if !k.excludes(need) {
                    false
                } else if want == Value::Lose {
                    hopeless = true;
                    break;
                } else {
                    continue;
                };
                if (known == (pass == 0)) == (want == Value::Win) {
                    self.kids.push(c);
                }
            }
            if hopeless {
                break;
            }
        }
        if hopeless || (want == Value::Win && self.kids.len() == listed) {
            return Ok((false, u32::MAX));
        }
        let win = want == Value::Win;
        let mut i = listed;
        while i < self.kids.len() {
            let c = self.kids[i].clone();
            if self.within(bounds, &c, need, d - 1)? == win {
                return Ok((win, d));
            }
            i += 1;
        }
        Ok((!win, d))
    }
}

/// `$ask` of `$pos` on the search of the game's keys where it packs, else on the search of
/// its positions (`$search` the search, `$at` the key or the position); `$looped` where
/// play loops on positions. Play that loops on keys after all turns the keys off: the search
/// on positions finds it, for good.
macro_rules! on_either {
    ($self:ident, $pos:expr, $looped:expr, |$search:ident, $at:ident| $ask:expr) => {{
        if let Some(key) = $self.packed_key($pos) {
            let ($search, $at) = ($self.keys.search(), &key);
            match $ask {
                Ok(r) => return Ok(r),
                Err(Stop::Error(e)) => return Err(e),
                Err(Stop::Loop | Stop::Parallel) => $self.keys.turn_off(),
            }
        }
        let ($search, $at) = (&mut $self.search, $pos);
        match $ask {
            Ok(r) => Ok(r),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Loop | Stop::Parallel) => Ok($looped),
        }
    }};
}

/// Values of one game's positions, found by searches that stop at the first winning move:
/// on its keys where it packs its positions, else on its own positions.
pub struct QuickSolver<G: Game> {
    game: std::rc::Rc<G>,
    search: ValueFirst<GameSpace<G>>,
    budget: usize,
    progress: Progress,
    /// The same searches on keys, where the game packs its positions (off after
    /// [`QuickSolver::without_keys`]).
    keys: Keyed<ValueFirst<KeySpace<G::Pos>>>,
}

impl<G: Game> QuickSolver<G> {
    pub fn new(game: std::rc::Rc<G>, budget: usize, progress: Progress) -> Self {
        let space = GameSpace::new(game.clone(), budget);
        QuickSolver {
            game,
            search: ValueFirst::new(space, budget, progress.clone()),
            budget,
            progress,
            keys: Keyed::default(),
        }
    }

    /// Search the game's own positions even where it packs them into keys (the fallback of
    /// [`GameExt::packed_play`], as a second implementation to test the first against).
    pub fn without_keys(mut self) -> Self {
        self.keys.turn_off();
        self
    }

    /// The key of `pos` where the game packs it (see [`GameExt::packed_play`]), with the search
    /// of its space ready (a new one, with its own tables, when `pos` is in another space).
    fn packed_key(&mut self, pos: &G::Pos) -> Option<u128> {
        let (game, budget, progress) = (&self.game, self.budget, &self.progress);
        self.keys.key(
            pos,
            || game.packed_play(pos),
            |space| ValueFirst::new(KeySpace::new(space, game.stalemate()), budget, progress.clone()),
        )
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.search.visited() + self.keys.visited()
    }

    /// Memo entries dropped to keep to the memory budget.
    pub fn evicted(&self) -> u64 {
        self.search.evicted() + self.keys.evicted()
    }

    /// The value of `pos` for the player to move, or `None` when the game is loopy (the
    /// full solver must decide it).
    pub fn value(&mut self, pos: &G::Pos) -> GameResult<Option<Value>> {
        on_either!(self, pos, None, |search, at| search.value(at).map(Some))
    }

    /// The value and remoteness of `pos` where it is won or lost, by depth-bounded searches
    /// alone (see [`ValueFirst::prove`]): what answers a loopy game too big for the full
    /// solver. `None` past 400 moves.
    pub fn prove(&mut self, pos: &G::Pos) -> GameResult<Option<(Value, u32)>> {
        on_either!(self, pos, None, |search, at| search.prove(at))
    }

    /// Is `pos` lost within `d` moves (see [`ValueFirst::lost_within`])? The moves that win
    /// soonest from a position [`QuickSolver::prove`] found won.
    pub fn lost_within(&mut self, pos: &G::Pos, d: u32) -> GameResult<bool> {
        on_either!(self, pos, false, |search, at| search.lost_within(at, d))
    }

    /// The remoteness of `pos`, whose value is `value`, by depth-bounded searches of growing
    /// depth (see [`ValueFirst::remoteness`]). `None` for a tie or a draw (their remoteness
    /// needs the full search) and past 400 moves (`REMOTENESS_CAP`).
    pub fn remoteness(&mut self, pos: &G::Pos, value: Value) -> GameResult<Option<u32>> {
        if !matches!(value, Value::Win | Value::Lose) {
            return Ok(None);
        }
        on_either!(self, pos, None, |search, at| search.remoteness(at, value))
    }
}
