//! The full search of value and remoteness on 128-bit keys, for games that offer
//! [`PackedPlay`] (`Game::packed_play`; the board descriptors of pieces placed or dropped and
//! of dominoes): children, ends and canonical forms computed on keys, natively, and
//! remembered in a [`Memo`] of `u128` keys with 8-byte entries. No allocation per position:
//! the children of every position on the path share one buffer, and the Grundy values of
//! their children another.
//!
//! The search is [`super::value::ValueSolver`]'s depth-first search of an acyclic game,
//! GAMESMAN's values and remoteness (a win is one more than its quickest losing child, a loss
//! one more than its slowest child, a tie one more than its quickest tying child) and, where
//! asked, Grundy values (the mex of the children's, defined while every end is a loss). The
//! generic search stays the fallback: for games without keys, and for a game whose play turns
//! out to loop (a path longer than [`MAX_DEPTH`]), which the generic search solves by
//! retrograde analysis.

use super::Solution;
use super::memo::{Memo, Stored, value_code, value_of};
use crate::game::packed::PackedPlay;
use crate::game::{GameError, Value};
use crate::progress::Progress;

/// A path longer than this is taken for a loop (keys of at most 128 bits, one piece or
/// domino a move, end far sooner): the generic search takes over.
pub const MAX_DEPTH: usize = 1 << 16;

/// Why the search on keys stopped without an answer.
pub enum Stop {
    /// The path grew past [`MAX_DEPTH`].
    Loop,
    Error(GameError),
}

impl From<GameError> for Stop {
    fn from(e: GameError) -> Self {
        Stop::Error(e)
    }
}

/// A table entry in 8 bytes: the value's code (bits 0–1), whether there is a Grundy value
/// (bit 2), the remoteness (bits 3–31), the Grundy value (bits 32–63).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rec(u64);

const HAS_GRUNDY: u64 = 4;

impl Rec {
    fn new(value: Value, remoteness: u32, grundy: Option<u64>) -> Rec {
        let g = grundy.map_or(0, |g| (g.min(u64::from(u32::MAX)) << 32) | HAS_GRUNDY);
        Rec(u64::from(value_code(value)) | u64::from(remoteness.min((1 << 29) - 1)) << 3 | g)
    }
    fn value(self) -> Value {
        value_of(self.0 as u8)
    }
    fn remoteness(self) -> u32 {
        (self.0 as u32) >> 3
    }
    fn grundy(self) -> Option<u64> {
        (self.0 & HAS_GRUNDY != 0).then_some(self.0 >> 32)
    }
    fn answer(self) -> (Solution, Option<u64>) {
        (Solution { value: self.value(), remoteness: Some(self.remoteness()) }, self.grundy())
    }
}

impl Stored for Rec {
    const BYTES: usize = 8;
    fn store(self, out: &mut [u8]) {
        self.0.store(out)
    }
    fn load(b: &[u8]) -> Self {
        Rec(u64::load(b))
    }
}

/// A position on the path: its key, where its children start in the shared buffer, what
/// its children have shown so far.
struct Frame {
    key: u128,
    kids: usize,
    seen: usize,
    /// The smallest remoteness of a losing child and of a tying child (`u32::MAX`: none),
    /// the largest of a winning child.
    lose_min: u32,
    tie_min: u32,
    win_max: u32,
    /// Every child so far has a Grundy value.
    grundy: bool,
    /// `visited` when it was expanded: the difference at the end is its work.
    start: u64,
}

impl Frame {
    fn fold(&mut self, child: Rec, seen: &mut Vec<u64>) {
        let r = child.remoteness();
        match child.value() {
            Value::Lose => self.lose_min = self.lose_min.min(r),
            Value::Tie => self.tie_min = self.tie_min.min(r),
            _ => self.win_max = self.win_max.max(r),
        }
        if self.grundy {
            match child.grundy() {
                Some(g) => seen.push(g),
                None => self.grundy = false,
            }
        }
    }

    fn finish(&self, seen: &[u64]) -> Rec {
        let (value, r) = if self.lose_min != u32::MAX {
            (Value::Win, self.lose_min + 1)
        } else if self.tie_min != u32::MAX {
            (Value::Tie, self.tie_min + 1)
        } else {
            (Value::Lose, self.win_max + 1)
        };
        Rec::new(value, r, self.grundy.then(|| super::grundy::mex(seen)))
    }
}

/// A search over the keys of one packed space (see [`Game::packed_play`](crate::game::Game::packed_play)).
pub trait KeySearch {
    /// The game's positions.
    type Pos;
    /// The key of `pos`, where it is in this search's space.
    fn pack(&self, pos: &Self::Pos) -> Option<u128>;
    /// Positions expanded so far.
    fn visited(&self) -> u64;
    /// Table entries dropped to keep to the budget.
    fn evicted(&self) -> u64;
}

/// The search on keys of a solver that falls back to the game's own positions: the search
/// of the space of the last position that packed (a new one, with its own tables, when a
/// position is in another space), the counts of the earlier ones, and whether keys are off
/// (the game's play loops, or the solver was asked to search without them).
pub struct Keyed<S> {
    search: Option<S>,
    visited: u64,
    evicted: u64,
    off: bool,
}

impl<S> Default for Keyed<S> {
    fn default() -> Self {
        Keyed { search: None, visited: 0, evicted: 0, off: false }
    }
}

impl<S: KeySearch> Keyed<S> {
    /// The key of `pos` where its game packs it (`space` asks the game), the search of its
    /// space ready (`start` makes a new one).
    pub fn key(
        &mut self,
        pos: &S::Pos,
        space: impl FnOnce() -> Option<Box<dyn PackedPlay<S::Pos>>>,
        start: impl FnOnce(Box<dyn PackedPlay<S::Pos>>) -> S,
    ) -> Option<u128> {
        if self.off {
            return None;
        }
        if let Some(key) = self.search.as_ref().and_then(|s| s.pack(pos)) {
            return Some(key);
        }
        let space = space()?;
        let key = space.pack(pos)?;
        self.retire();
        self.search = Some(start(space));
        Some(key)
    }

    /// The search of the last key [`Keyed::key`] gave.
    pub fn search(&mut self) -> &mut S {
        self.search.as_mut().expect("a search for the key")
    }

    /// No keys from now on: the search over positions answers.
    pub fn turn_off(&mut self) {
        self.retire();
        self.off = true;
    }

    fn retire(&mut self) {
        if let Some(old) = self.search.take() {
            self.visited += old.visited();
            self.evicted += old.evicted();
        }
    }

    /// Positions expanded by every search on keys so far.
    pub fn visited(&self) -> u64 {
        self.visited + self.search.as_ref().map_or(0, |s| s.visited())
    }

    /// Table entries dropped by every search on keys so far.
    pub fn evicted(&self) -> u64 {
        self.evicted + self.search.as_ref().map_or(0, |s| s.evicted())
    }
}

/// The values and remoteness of one packed space's positions.
pub struct PackedValues<P> {
    space: Box<dyn PackedPlay<P>>,
    memo: Memo<u128, Rec>,
    /// The value of a position with no moves that is not an end.
    stalemate: Value,
    with_grundy: bool,
    visited: u64,
    progress: Progress,
    /// The children of every position on the path, each frame's from its `kids` on.
    kids: Vec<u128>,
    /// The Grundy values of the children solved so far, each frame's from its `seen` on.
    seen: Vec<u64>,
    stack: Vec<Frame>,
}

impl<P> KeySearch for PackedValues<P> {
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

impl<P> PackedValues<P> {
    /// A search of `space` whose table keeps to about `budget` bytes; `with_grundy` computes
    /// Grundy values too (an impartial game under normal play), `stalemate` is the game's.
    pub fn new(
        space: Box<dyn PackedPlay<P>>,
        budget: usize,
        with_grundy: bool,
        stalemate: Value,
        progress: Progress,
    ) -> Self {
        PackedValues {
            space,
            memo: Memo::new(budget),
            stalemate,
            with_grundy,
            visited: 0,
            progress,
            kids: Vec::new(),
            seen: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// Is the position of `key` solved already (a look in the table)?
    pub fn knows(&self, key: u128) -> bool {
        self.memo.get(&self.space.canonical(key)).is_some()
    }

    fn leaf(&self, value: Value) -> Rec {
        Rec::new(value, 0, (self.with_grundy && value == Value::Lose).then_some(0))
    }

    /// Expand `key` (canonical): its record if it is an end, else `None` with its frame
    /// pushed and its canonical children on the buffer.
    fn expand(&mut self, key: u128) -> Result<Option<Rec>, Stop> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        if let Some(v) = self.space.primitive(key) {
            return Ok(Some(self.leaf(v)));
        }
        let kids = self.kids.len();
        self.space.children(key, &mut self.kids);
        if self.kids.len() == kids {
            return Ok(Some(self.leaf(self.stalemate)));
        }
        for k in &mut self.kids[kids..] {
            *k = self.space.canonical(*k);
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Stop::Loop);
        }
        self.stack.push(Frame {
            key,
            kids,
            seen: self.seen.len(),
            lose_min: u32::MAX,
            tie_min: u32::MAX,
            win_max: 0,
            grundy: self.with_grundy,
            start: self.visited,
        });
        Ok(None)
    }

    /// The solution of `key`'s position, and its Grundy value where it is computed and
    /// defined.
    pub fn solve(&mut self, key: u128) -> Result<(Solution, Option<u64>), Stop> {
        let root = self.space.canonical(key);
        if let Some(r) = self.memo.get(&root) {
            return Ok(r.answer());
        }
        self.stack.clear();
        self.kids.clear();
        self.seen.clear();
        if let Some(r) = self.expand(root)? {
            self.memo.insert(root, r, 1);
            return Ok(r.answer());
        }
        loop {
            let top = self.stack.last_mut().expect("the stack holds the root until it is solved");
            if self.kids.len() > top.kids {
                let child = self.kids.pop().expect("a child");
                if let Some(r) = self.memo.get(&child) {
                    top.fold(r, &mut self.seen);
                    continue;
                }
                if let Some(r) = self.expand(child)? {
                    self.memo.insert(child, r, 1);
                    let top = self.stack.last_mut().expect("the parent");
                    top.fold(r, &mut self.seen);
                }
            } else {
                let frame = self.stack.pop().expect("non-empty");
                let r = frame.finish(&self.seen[frame.seen..]);
                self.seen.truncate(frame.seen);
                self.memo.insert(frame.key, r, self.visited - frame.start + 1);
                match self.stack.last_mut() {
                    Some(parent) => parent.fold(r, &mut self.seen),
                    None => return Ok(r.answer()),
                }
            }
        }
    }
}
