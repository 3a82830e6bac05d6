//! Where a search's positions come from. Each search ([`super::value`], [`super::quick`]) is
//! written once over a [`Space`], and runs over either of two:
//!
//! - [`GameSpace`]: a game's own positions, through its [`Game`] methods (any game; play may
//!   loop, so the search keeps the positions on its path and stops at one met again there);
//! - [`KeySpace`]: 128-bit keys, for a game that packs its positions
//!   ([`GameExt::packed_play`]): children, ends, canonical forms and move counts computed on
//!   keys, natively, with no allocation per position. Play on keys is taken not to loop: a
//!   path longer than [`MAX_DEPTH`] stops the search, and its solver goes over to the game's
//!   own positions, where the loop is found.
//!
//! [`Keyed`] holds a solver's search on keys beside its search on positions: the key search
//! of the space of the last position that packed, and whether keys are off.

use crate::game::packed::PackedPlay;
use crate::game::{Footprint, Game, GameError, GameExt, GameResult, Value};
use hashbrown::HashSet;
use std::hash::Hash;
use std::rc::Rc;

/// A path on keys longer than this is taken for a loop (keys of at most 128 bits, one piece
/// or domino a move, end far sooner): the search over the game's own positions takes over.
pub const MAX_DEPTH: usize = 1 << 16;

/// The positions a search walks, and the moves between them.
pub trait Space {
    /// A position as the search holds it.
    type Key: Clone + Eq + Hash + Footprint;
    /// Play may loop: the search keeps the set of keys on its path, and a key met again there
    /// stops it ([`Stop::Loop`]). Otherwise a path longer than [`MAX_DEPTH`] stops it.
    const TRACKS_PATH: bool;
    /// The representative of the positions equal to `key` under the game's symmetries.
    fn canonical(&self, key: &Self::Key) -> GameResult<Self::Key>;
    /// The value for the player to move if the game is over at `key`.
    fn primitive(&self, key: &Self::Key) -> GameResult<Option<Value>>;
    /// The positions one move away (not made canonical), pushed on `out`.
    fn children(&self, key: &Self::Key, out: &mut Vec<Self::Key>) -> GameResult<()>;
    /// How many moves `key` has.
    fn move_count(&self, key: &Self::Key) -> GameResult<usize>;
    /// The value of a position with no moves that is not an end.
    fn stalemate(&self) -> Value;
    /// Bytes `key` holds, counted against the budget while it is on the search's path.
    #[inline]
    fn bytes(key: &Self::Key) -> usize {
        key.heap_bytes() + std::mem::size_of::<Self::Key>()
    }
}

/// A game's own positions.
pub struct GameSpace<G: Game> {
    game: Rc<G>,
    /// The memory budget a position's children are checked against before they are listed
    /// (see [`super::solution::check_fanout`]).
    budget: usize,
}

impl<G: Game> GameSpace<G> {
    pub fn new(game: Rc<G>, budget: usize) -> Self {
        GameSpace { game, budget }
    }
}

impl<G: Game> Space for GameSpace<G> {
    type Key = G::Pos;
    const TRACKS_PATH: bool = true;
    fn canonical(&self, key: &G::Pos) -> GameResult<G::Pos> {
        self.game.canonical(key)
    }
    fn primitive(&self, key: &G::Pos) -> GameResult<Option<Value>> {
        self.game.primitive(key)
    }
    fn children(&self, key: &G::Pos, out: &mut Vec<G::Pos>) -> GameResult<()> {
        super::solution::check_fanout(&*self.game, key, self.budget)?;
        out.extend(self.game.children(key)?);
        Ok(())
    }
    fn move_count(&self, key: &G::Pos) -> GameResult<usize> {
        self.game.move_count(key)
    }
    fn stalemate(&self) -> Value {
        self.game.stalemate()
    }
}

/// The keys of one packed space of a game (see [`GameExt::packed_play`]).
pub struct KeySpace<P> {
    space: Box<dyn PackedPlay<P>>,
    stalemate: Value,
}

impl<P> KeySpace<P> {
    pub fn new(space: Box<dyn PackedPlay<P>>, stalemate: Value) -> Self {
        KeySpace { space, stalemate }
    }

    /// The key of `pos`, where it is in this space.
    pub fn pack(&self, pos: &P) -> Option<u128> {
        self.space.pack(pos)
    }
}

impl<P> Space for KeySpace<P> {
    type Key = u128;
    const TRACKS_PATH: bool = false;
    #[inline]
    fn canonical(&self, key: &u128) -> GameResult<u128> {
        Ok(self.space.canonical(*key))
    }
    #[inline]
    fn primitive(&self, key: &u128) -> GameResult<Option<Value>> {
        Ok(self.space.primitive(*key))
    }
    #[inline]
    fn children(&self, key: &u128, out: &mut Vec<u128>) -> GameResult<()> {
        self.space.children(*key, out);
        Ok(())
    }
    #[inline]
    fn move_count(&self, key: &u128) -> GameResult<usize> {
        Ok(self.space.move_count(*key) as usize)
    }
    #[inline]
    fn stalemate(&self) -> Value {
        self.stalemate
    }
}

/// Why a search stopped without an answer.
pub enum Stop {
    /// Play loops: a position met again on its own path, or a path on keys longer than
    /// [`MAX_DEPTH`].
    Loop,
    /// The full search has visited enough positions to be worth finishing on every core
    /// (only where its solver asks for it).
    Parallel,
    Error(GameError),
}

impl From<GameError> for Stop {
    fn from(e: GameError) -> Self {
        Stop::Error(e)
    }
}

/// The positions on a search's path from its root, counted against a quarter of its budget,
/// and (where the space [tracks it](Space::TRACKS_PATH)) the set of their keys.
pub struct Path<S: Space> {
    keys: HashSet<S::Key>,
    bytes: usize,
    limit: usize,
}

impl<S: Space> Path<S> {
    pub fn new(budget: usize) -> Self {
        Path { keys: HashSet::new(), bytes: 0, limit: budget / 4 }
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.bytes = 0;
    }

    /// Is `key` on the path (a loop)? Always no where the space does not track it.
    #[inline]
    pub fn holds(&self, key: &S::Key) -> bool {
        S::TRACKS_PATH && self.keys.contains(key)
    }

    /// Step onto `key`, with its children `kids`, below `depth` positions: the bytes its
    /// frame holds (the key twice, in the frame and in the set, and its children), to give
    /// back to [`Path::leave`]. A path on keys longer than [`MAX_DEPTH`] is a loop; a path past
    /// the budget is refused.
    pub fn enter(&mut self, depth: usize, key: &S::Key, kids: &[S::Key]) -> Result<usize, Stop> {
        let bytes = 2 * S::bytes(key) + kids.iter().map(S::bytes).sum::<usize>() + 64;
        if depth > 0 {
            if !S::TRACKS_PATH && depth >= MAX_DEPTH {
                return Err(Stop::Loop);
            }
            if self.bytes + bytes > self.limit {
                return Err(Stop::Error(GameError::OutOfMemory(format!(
                    "the search went {} moves deep, and the positions on its path need more than the memory \
                     budget (raise --max-memory; or the game may never end: a path of new positions with no \
                     end to it takes any budget)",
                    depth + 1
                ))));
            }
        }
        self.bytes += bytes;
        if S::TRACKS_PATH {
            self.keys.insert(key.clone());
        }
        Ok(bytes)
    }

    /// Step off `key`, whose frame held `bytes`.
    pub fn leave(&mut self, key: &S::Key, bytes: usize) {
        self.bytes -= bytes;
        if S::TRACKS_PATH {
            self.keys.remove(key);
        }
    }
}

/// A search over the keys of one packed space.
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
