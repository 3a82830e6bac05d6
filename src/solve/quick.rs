//! The value alone (win, lose or tie), by a depth-first search that stops at the first
//! winning move, and the remoteness of a win or a loss by depth-bounded searches.
//!
//! A full solve must look at every move of every position to know the remoteness (a win is
//! 1 + the *smallest* remoteness of its losing children). The value needs less: a position
//! is won as soon as one move is found that leads to a loss, and its other moves need never
//! be looked at. In a game where most positions are won (Hex, Connect-Four), that is most of
//! the tree. Moves already known to lose for the opponent are tried first (a look in the
//! memo), before any new position is searched; then the rest fewest replies first (among
//! equals, in the order the game lists them), an ordering dropped when siblings keep having
//! as many replies.
//!
//! [`ValueFirst`] is written once over a [`Space`], with the children of every position on
//! the path in one buffer; [`QuickSolver`] runs it on a game's keys where the game packs its
//! positions, else on its own positions. The memo holds one value a position. A game that
//! turns out to be loopy (a position met again on its own search path) is left to the full
//! solver, which finds the draws.

use super::bounded::{Bounds, ORDERING_TRIAL, Ordering, exhausted, least_depth};
use super::memo::Memo;
use super::space::{GameSpace, KeySearch, KeySpace, Keyed, Path, Space, Stop};
use crate::game::{Game, GameExt, GameResult, Value};
use crate::progress::Progress;

/// A position on the value search's path: its key, where its children start in the shared
/// buffer, what its children have shown so far.
struct Frame<K> {
    key: K,
    kids: usize,
    tie: bool,
    draw: bool,
    start: u64,
    /// Bytes the frame holds (its position, twice, and its children), counted against the
    /// budget.
    bytes: usize,
}

/// Values (and, by bounded searches, remoteness) of the positions of one [`Space`].
pub struct ValueFirst<S: Space> {
    space: S,
    memo: Memo<S::Key, Value>,
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

    /// Pop the top frame: its value is `v`.
    fn pop(&mut self, v: Value) {
        let frame = self.stack.pop().expect("non-empty");
        self.path.leave(&frame.key, frame.bytes);
        self.memo.insert(frame.key, v, self.visited - frame.start);
    }

    /// The value of `key`'s position for the player to move; [`Stop::Loop`] where play loops.
    pub fn value(&mut self, key: &S::Key) -> Result<Value, Stop> {
        let root = self.space.canonical(key)?;
        if let Some(v) = self.memo.get(&root) {
            return Ok(v);
        }
        self.stack.clear();
        self.kids.clear();
        self.path.clear();
        if let Some(v) = self.open(root.clone())? {
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
                        self.pop(Value::Win);
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
                let v = exhausted(top.tie, top.draw);
                self.pop(v);
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
            if self.path.holds(&child) {
                return Err(Stop::Loop);
            }
            if let Some(v) = self.open(child.clone())? {
                self.memo.insert(child, v, 1);
                decided = Some(v);
            }
        }
    }

    /// Expand `key` (canonical): its value if the game is over there (or one of its moves is
    /// already known to win, or every one to lose), else `None` with its frame pushed and its
    /// canonical children on the buffer, the ones to search first last.
    fn open(&mut self, key: S::Key) -> Result<Option<Value>, Stop> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        if let Some(v) = self.space.primitive(&key)? {
            return Ok(Some(v));
        }
        let kids = self.kids.len();
        self.space.children(&key, &mut self.kids)?;
        if self.kids.len() == kids {
            return Ok(Some(self.space.stalemate()));
        }
        // Canonical, and those known won for the opponent left out (they decide nothing).
        let mut n = kids;
        for i in kids..self.kids.len() {
            let c = self.space.canonical(&self.kids[i])?;
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
        let bytes = self.path.enter(self.stack.len(), &key, &self.kids[kids..])?;
        self.order(kids)?;
        self.stack.push(Frame { key, kids, tie: false, draw: false, start: self.visited, bytes });
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
        if self.memo.get(key).is_some_and(|v| v != want) {
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
