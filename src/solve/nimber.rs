//! Nimbers by testing a value at a time: the search of Lemoine and Viennot (*Nimbers are
//! inevitable*, Theoretical Computer Science 462, 2012), in the form Beling gave it
//! (Beling and Rogalski, *On pruning search trees of impartial games*, Artificial
//! Intelligence 283, 2020).
//!
//! The mex of a position's children needs every child's nimber. "Is the nimber of P equal to
//! k?" needs less: for each smaller value one child that has it (the search stops at the
//! first), and no child that has k. Asked for k = 0, 1, 2, … in turn, the first "yes" is the
//! nimber. The question about a child is the same question one level down, so most children
//! are never solved exactly; a child that is a sum of parts (the game's `split`) has all its
//! parts but the hardest solved exactly, and the question about the sum becomes one about
//! that part with k XORed by the others' nimbers (`P + Q` has nimber `k` iff `P` has
//! `k ⊕ nimber(Q)`). Equal parts cancel (`Q + Q` = 0).
//!
//! The table keeps, for each canonical part, its nimber where known, and otherwise the values
//! (below 64) some child of it was found to have: none of them is its nimber, and a question
//! already answered "no" is not expanded again. Children are tried easiest first: the fewest
//! moves, summed over their unsolved parts (squared, so that one large part counts more than
//! two small ones).
//!
//! The search is recursive. A game deeper than [`MAX_DEPTH`] moves (a heap of a thousand
//! tokens taken one at a time) stops it with [`Stop::Deep`], and the caller falls back to the
//! iterative solver ([`super::grundy`]).

use super::memo::{Memo, Stored};
use super::nimber_packed::PackedNimbers;
pub use super::nimber_stop::{MAX_DEPTH, Stop};
use crate::game::{Footprint, Game, GameError, GameResult, Value};
use crate::progress::Progress;
use hashbrown::HashSet;

/// What the table knows of a part: its nimber where found, and the values below 64 that
/// some child is known to have (so not the nimber; all of `0..v` present means at least `v`).
#[derive(Clone, Copy, Debug)]
struct Known {
    nimber: Option<u64>,
    present: u64,
}

impl Stored for Known {
    const BYTES: usize = 17;
    fn store(self, out: &mut [u8]) {
        out[0] = u8::from(self.nimber.is_some());
        self.nimber.unwrap_or(0).store(&mut out[1..9]);
        self.present.store(&mut out[9..17]);
    }
    fn load(b: &[u8]) -> Self {
        Known { nimber: (b[0] == 1).then(|| u64::load(&b[1..9])), present: u64::load(&b[9..17]) }
    }
}

/// The bit of value `v` in a mask of present values (none past 63).
fn bit(v: u64) -> u64 {
    if v < 64 { 1 << v } else { 0 }
}

type Res<T> = Result<T, Stop>;

/// A move's result as a sum: the XOR of the parts whose nimbers are known, and the others
/// (canonical), the hardest first.
struct Child<P> {
    known: u64,
    rest: Vec<P>,
    cost: u64,
}

/// The nimbers of one game's positions, found by the value-at-a-time search.
pub struct NimberSearch<G: Game> {
    game: std::rc::Rc<G>,
    /// The same search on keys, where the game packs the position asked about
    /// ([`Game::packed_sum`]; `nimber_packed.rs`): the space of the last such position.
    packed: Option<PackedNimbers<G::Pos>>,
    /// Positions the packed searches of earlier spaces expanded.
    packed_visited: u64,
    /// The endgame database the packed search asks first ([`super::part_db`]), as asked for
    /// (each space's search opens its own).
    endgame: Option<super::part_db::Endgame>,
    memo: Memo<G::Pos, Known>,
    on_path: HashSet<G::Pos>,
    depth: usize,
    path_bytes: usize,
    budget: usize,
    visited: u64,
    progress: Progress,
}

impl<G: Game> NimberSearch<G> {
    /// A search whose table and path keep to `budget` bytes (the table three quarters).
    pub fn new(game: std::rc::Rc<G>, budget: usize, progress: Progress) -> Self {
        NimberSearch {
            game,
            packed: None,
            packed_visited: 0,
            endgame: None,
            memo: Memo::new(budget / 4 * 3),
            on_path: HashSet::new(),
            depth: 0,
            path_bytes: 0,
            budget,
            visited: 0,
            progress,
        }
    }

    /// Ask the endgame database `endgame` describes (built or loaded when the first packed
    /// position comes) before searching a part.
    pub fn with_endgame(mut self, endgame: Option<super::part_db::Endgame>) -> Self {
        self.endgame = endgame;
        self
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.visited + self.packed_visited + self.packed.as_ref().map_or(0, |p| p.visited())
    }

    /// Table entries dropped to keep to the budget.
    pub fn evicted(&self) -> u64 {
        self.memo.evicted() + self.packed.as_ref().map_or(0, |p| p.evicted())
    }

    /// The key of `pos` where the game packs it (see [`Game::packed_sum`]), with the search
    /// of its space ready (a new one, with its own table, when `pos` is in another space).
    /// With `--endgame`, a position the game does not pack is refused: it has no endgame
    /// database.
    fn packed_key(&mut self, pos: &G::Pos) -> Res<Option<u64>> {
        if let Some(key) = self.packed.as_ref().and_then(|p| p.pack(pos)) {
            return Ok(Some(key));
        }
        let Some((key, space)) = self.game.packed_sum(pos).and_then(|s| Some((s.pack(pos)?, s))) else {
            if self.endgame.as_ref().is_some_and(|e| e.bound.is_some()) {
                return Err(Stop::Game(super::part_db::no_parts()));
            }
            return Ok(None);
        };
        if let Some(old) = self.packed.take() {
            self.packed_visited += old.visited();
        }
        // A new space: its own endgame database (the board is part of its name).
        let db = match &self.endgame {
            Some(e) => super::part_db::open(&*space, e, self.budget, &self.progress)?,
            None => None,
        };
        // The table's bytes come out of the search's budget.
        let budget = self.budget.saturating_sub(db.as_ref().map_or(0, |db| db.bytes()));
        self.packed = Some(PackedNimbers::new(space, budget, self.progress.clone()).with_endgame(db));
        Ok(Some(key))
    }

    /// The nimber of `pos` (a sum of its parts, where the game splits it).
    pub fn grundy(&mut self, pos: &G::Pos) -> Res<u64> {
        if let Some(key) = self.packed_key(pos)? {
            return self.packed.as_mut().expect("a packed search for the key").grundy(key);
        }
        self.reset_path();
        let parts = self.parts(pos)?;
        let mut g = 0;
        for p in &parts {
            g ^= self.nimber(p)?;
        }
        Ok(g)
    }

    /// Is the nimber of `pos` zero (a loss for the player to move)? Cheaper than
    /// [`NimberSearch::grundy`]: the hardest part is only tested, not solved.
    pub fn is_zero(&mut self, pos: &G::Pos) -> Res<bool> {
        if let Some(key) = self.packed_key(pos)? {
            return self.packed.as_mut().expect("a packed search for the key").is_zero(key);
        }
        self.reset_path();
        let parts = self.parts(pos)?;
        let mut child = self.child(parts)?;
        self.child_has(&mut child, 0)
    }

    fn reset_path(&mut self) {
        self.on_path.clear();
        self.depth = 0;
        self.path_bytes = 0;
    }

    /// The parts of `pos`, each canonical, pairs of equal parts left out (their sum is 0).
    /// A part that the game splits again (a `split` that is not final, or parts that grow)
    /// hands the game to the iterative solver, which splits every part and keeps to the
    /// budget ([`Stop::Deep`]).
    fn parts(&mut self, pos: &G::Pos) -> Res<Vec<G::Pos>> {
        let raw = if self.game.has_split() {
            match self.game.split(pos)? {
                Some(parts) => {
                    if parts.len() > 1 && parts.contains(pos) {
                        return Err(Stop::Game(GameError::Definition(format!(
                            "`parts` gave the position itself as one of its {} parts: each part must be smaller \
                             than the whole, or the sum never ends (return `()` when a position does not split)",
                            parts.len()
                        ))));
                    }
                    if parts.len() > 1 {
                        for p in &parts {
                            if self.game.split(p)?.is_some_and(|again| again.len() > 1) {
                                return Err(Stop::Deep);
                            }
                        }
                    }
                    parts
                }
                None => vec![pos.clone()],
            }
        } else {
            vec![pos.clone()]
        };
        let mut out: Vec<G::Pos> = Vec::with_capacity(raw.len());
        for p in &raw {
            let c = self.game.canonical(p)?;
            match out.iter().position(|q| *q == c) {
                Some(i) => {
                    out.swap_remove(i);
                }
                None => out.push(c),
            }
        }
        Ok(out)
    }

    /// A child from its parts: the known nimbers folded in, the rest ordered hardest first.
    fn child(&mut self, parts: Vec<G::Pos>) -> GameResult<Child<G::Pos>> {
        let mut known = 0;
        let mut rest = Vec::with_capacity(parts.len());
        for p in parts {
            match self.memo.get(&p).and_then(|k| k.nimber) {
                Some(v) => known ^= v,
                _ => {
                    let n = self.game.move_count(&p)? as u64;
                    rest.push((n * n, p));
                }
            }
        }
        if rest.len() > 1 {
            rest.sort_by_key(|r| std::cmp::Reverse(r.0));
        }
        let cost = rest.iter().map(|r| r.0).sum();
        Ok(Child { known, rest: rest.into_iter().map(|r| r.1).collect(), cost })
    }

    /// Step onto `pos` (canonical, one part): count it, check the time, the depth, the
    /// path's memory, and that it is not already on the path (a loopy game).
    fn enter(&mut self, pos: &G::Pos, bytes: usize) -> Res<()> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        if self.depth >= MAX_DEPTH {
            return Err(Stop::Deep);
        }
        if !self.on_path.insert(pos.clone()) {
            return Err(Stop::Game(GameError::Unsupported(
                "a position repeats (the game is loopy), so Grundy values are not defined".into(),
            )));
        }
        self.depth += 1;
        self.path_bytes += bytes;
        if self.path_bytes > self.budget / 4 {
            return Err(Stop::Game(GameError::OutOfMemory(format!(
                "the search went {} levels deep, and what is on its path needs more than the memory budget \
                 (raise --max-memory)",
                self.depth
            ))));
        }
        Ok(())
    }

    fn leave(&mut self, pos: &G::Pos, bytes: usize) {
        self.on_path.remove(pos);
        self.depth -= 1;
        self.path_bytes -= bytes;
    }

    /// The children of `pos` as sums, easiest first, and the nimbers of the children already
    /// known whole; `None` for a position with no moves (nimber 0).
    #[allow(clippy::type_complexity)]
    fn expand(&mut self, pos: &G::Pos) -> Res<Option<(Vec<Child<G::Pos>>, Vec<u64>)>> {
        match self.game.primitive(pos)? {
            Some(Value::Lose) => return Ok(None),
            Some(v) => {
                return Err(Stop::Game(GameError::Unsupported(format!(
                    "a primitive {v} is not normal play, so Grundy values are not defined"
                ))));
            }
            None => {}
        }
        super::solution::check_fanout(&*self.game, pos, self.budget)?;
        let children = self.game.children(pos)?;
        if children.is_empty() {
            if self.game.stalemate() != Value::Lose {
                return Err(Stop::Game(GameError::Unsupported(
                    "the game is not played under the normal-play rule, so Grundy values are not defined".into(),
                )));
            }
            return Ok(None);
        }
        let mut kids = Vec::with_capacity(children.len());
        let mut whole = Vec::new();
        for c in &children {
            let parts = self.parts(c)?;
            let child = self.child(parts)?;
            if child.rest.is_empty() {
                whole.push(child.known);
            } else {
                kids.push(child);
            }
        }
        kids.sort_by_key(|k| k.cost);
        Ok(Some((kids, whole)))
    }

    fn frame_bytes(pos: &G::Pos, kids: &[Child<G::Pos>]) -> usize {
        let one = |p: &G::Pos| p.heap_bytes() + std::mem::size_of::<G::Pos>();
        64 + 2 * one(pos) + kids.iter().map(|k| 48 + k.rest.iter().map(one).sum::<usize>()).sum::<usize>()
    }

    /// Does the sum `child` have nimber `k`? Solves all its parts but the hardest.
    fn child_has(&mut self, child: &mut Child<G::Pos>, k: u64) -> Res<bool> {
        while child.rest.len() > 1 {
            let part = child.rest.pop().expect("more than one part");
            child.known ^= self.nimber(&part)?;
        }
        match child.rest.first() {
            None => Ok(child.known == k),
            Some(p) => {
                let p = p.clone();
                self.has_nimber(&p, k ^ child.known)
            }
        }
    }

    /// The first child (in order) that has nimber `k`, if any.
    fn find(&mut self, kids: &mut [Child<G::Pos>], k: u64) -> Res<Option<usize>> {
        for (i, c) in kids.iter_mut().enumerate() {
            if self.child_has(c, k)? {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    fn store(&mut self, pos: &G::Pos, nimber: Option<u64>, present: u64, start: u64) {
        self.memo.insert(pos.clone(), Known { nimber, present }, self.visited - start);
    }

    /// Does `pos` (canonical, one part) have nimber `k`?
    fn has_nimber(&mut self, pos: &G::Pos, k: u64) -> Res<bool> {
        let mut present = 0;
        if let Some(known) = self.memo.get(pos) {
            if let Some(v) = known.nimber {
                return Ok(v == k);
            }
            if known.present & bit(k) != 0 {
                return Ok(false);
            }
            present = known.present;
        }
        // A nimber is at most the number of moves.
        if k > 0 && (self.game.move_count(pos)? as u64) < k {
            return Ok(false);
        }
        let start = self.visited;
        let Some((mut kids, whole)) = self.expand(pos)? else {
            self.visited += 1;
            self.store(pos, Some(0), 0, start);
            return Ok(k == 0);
        };
        for &v in &whole {
            present |= bit(v);
        }
        if whole.contains(&k) {
            // Remembered, so that the same question is not expanded again.
            self.visited += 1;
            self.store(pos, None, present, start);
            return Ok(false);
        }
        let bytes = Self::frame_bytes(pos, &kids);
        self.enter(pos, bytes)?;
        let answer = self.test(pos, k, present, &mut kids, &whole, start);
        self.leave(pos, bytes);
        answer
    }

    fn test(
        &mut self,
        pos: &G::Pos,
        k: u64,
        mut present: u64,
        kids: &mut Vec<Child<G::Pos>>,
        whole: &[u64],
        start: u64,
    ) -> Res<bool> {
        for smaller in 0..k {
            if present & bit(smaller) != 0 || whole.contains(&smaller) {
                continue;
            }
            match self.find(kids, smaller)? {
                Some(i) => {
                    kids.remove(i);
                    present |= bit(smaller);
                }
                None => {
                    // No child has `smaller`, every smaller value has one: the nimber.
                    self.store(pos, Some(smaller), present, start);
                    return Ok(false);
                }
            }
        }
        if self.find(kids, k)?.is_some() {
            self.store(pos, None, present | bit(k), start);
            return Ok(false);
        }
        self.store(pos, Some(k), present, start);
        Ok(true)
    }

    /// The nimber of `pos` (canonical, one part).
    fn nimber(&mut self, pos: &G::Pos) -> Res<u64> {
        let mut present = 0;
        if let Some(known) = self.memo.get(pos) {
            if let Some(v) = known.nimber {
                return Ok(v);
            }
            present = known.present;
        }
        let start = self.visited;
        let Some((mut kids, whole)) = self.expand(pos)? else {
            self.visited += 1;
            self.store(pos, Some(0), 0, start);
            return Ok(0);
        };
        let bytes = Self::frame_bytes(pos, &kids);
        self.enter(pos, bytes)?;
        let answer = self.mex(pos, present, &mut kids, &whole, start);
        self.leave(pos, bytes);
        answer
    }

    fn mex(
        &mut self,
        pos: &G::Pos,
        mut present: u64,
        kids: &mut Vec<Child<G::Pos>>,
        whole: &[u64],
        start: u64,
    ) -> Res<u64> {
        let mut k = 0;
        loop {
            if present & bit(k) == 0 && !whole.contains(&k) {
                match self.find(kids, k)? {
                    Some(i) => {
                        kids.remove(i);
                        present |= bit(k);
                    }
                    None => {
                        self.store(pos, Some(k), present, start);
                        return Ok(k);
                    }
                }
            }
            k += 1;
        }
    }
}
