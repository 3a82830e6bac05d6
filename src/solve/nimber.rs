//! Nimbers by asking whether a position's nimber lies in a set of values, written once over
//! a [`SumSpace`]: a game's own positions (split into parts by its `split`), or 64-bit keys
//! for a game that packs its positions ([`GameExt::packed_sum`]; Cram as a board descriptor:
//! parts, children and symmetries computed on keys, natively, with no allocation per
//! position, and an endgame database of part nimbers asked first, [`super::part_db`]).
//!
//! The search is Beling and Rogalski's (*On pruning search trees of impartial games*,
//! Artificial Intelligence 283, 2020), in our own words:
//!
//! - **"Is the nimber of P in the set W?"** P has n moves, so its nimber is one of
//!   C = {0, …, n}. Each child takes one value out of C: its own nimber where that is in C,
//!   otherwise the largest of C. The mex of P stays in C throughout: with m children left
//!   and m + 1 values in C, the largest can be the mex only if each of the m children has
//!   one of the m others, so a child that has none of them rules the largest out. A child is
//!   therefore asked only "is your nimber in C without its largest (and at most max W)?", and
//!   the search stops as soon as C and W have nothing in common (the answer is no). When
//!   every child has been asked, C holds one value: the nimber if at most max W (values
//!   above max W were never asked about, but they only ever stood in for one another).
//!   Children whose nimber is already in the table are taken first, as they are generated,
//!   so a question is often settled before any child is searched.
//! - **The exact nimber** (of a position asked about, and of every part of a child but its
//!   hardest) is asked a value at a time: for k = 0, 1, 2, … "is some child's nimber k?",
//!   each child asked with the set {k} (aspiration sets of one value); the first k no child
//!   has is the nimber.
//! - A child that is a sum asks about its hardest part with the set XORed by the nimbers of
//!   the other parts, which are solved exactly (`P + Q` has nimber `k` iff `P` has
//!   `k ⊕ nimber(Q)`); equal parts cancel.
//! - Two tables: exact nimbers (probed for every part of every child, so kept small), and for
//!   a position asked about without an exact answer
//!   the values (below 31) it was shown not to have.
//! - Children are tried easiest first: the fewest moves, squared and summed over the parts
//!   not yet known.

//!
//! The search is recursive. A game deeper than [`MAX_DEPTH`] moves (a heap of a thousand
//! tokens taken one at a time), a part with 127 moves or more, or a part that splits again
//! stops it with [`Stop::Deep`], and the caller falls back to the iterative solver
//! ([`super::grundy`]).

use super::memo::Memo;
use super::part_db::{Endgame, PartDb};
use crate::game::packed::PackedSum;
use crate::game::{Footprint, Game, GameError, GameExt, GameResult, Value};
use crate::progress::Progress;
use hashbrown::HashSet;
use std::hash::Hash;
use std::rc::Rc;

/// The deepest the recursive search goes before it hands the game to the iterative solver.
pub const MAX_DEPTH: usize = 400;

/// Why a search stopped without an answer.
#[derive(Debug)]
pub enum Stop {
    /// The game is deeper than [`MAX_DEPTH`], a part has too many moves, or a part splits
    /// again: use the iterative solver.
    Deep,
    /// An error of the game, the time limit or the memory budget.
    Game(GameError),
}

impl From<GameError> for Stop {
    fn from(e: GameError) -> Self {
        Stop::Game(e)
    }
}

type Res<T> = Result<T, Stop>;

/// The positions of an impartial game as sums of parts, for the nimber search.
pub trait SumSpace {
    /// A position (a sum) or a part, as the search holds it.
    type Key: Clone + Eq + Hash + Footprint;
    /// Keys are ordered ([`SumSpace::order`]): equal parts are found by sorting them, and
    /// parts of one cost are taken in that order. Otherwise equal parts are found pair by
    /// pair, and parts of one cost keep the order the game gives them.
    const ORDERED: bool;
    /// Play may loop: the search keeps the parts on its path and refuses one met again.
    const TRACKS_PATH: bool;
    /// The order of [`SumSpace::ORDERED`] keys.
    fn order(_a: &Self::Key, _b: &Self::Key) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
    /// The parts of the position `key`, canonical, pushed on `out`.
    fn parts(&self, key: &Self::Key, out: &mut Vec<Self::Key>) -> Res<()>;
    /// The positions one move away from the part `key`, pushed on `out`.
    fn children(&self, key: &Self::Key, out: &mut Vec<Self::Key>) -> Res<()>;
    /// How many moves the part `key` has.
    fn move_count(&self, key: &Self::Key) -> GameResult<u64>;
    /// The nimber of the part `key` where an endgame database holds it.
    fn endgame(&self, _key: &Self::Key) -> Option<u64> {
        None
    }
}

/// A game's own positions, split by its `split` and made canonical by its `canonical`.
pub struct GameSums<G: Game> {
    game: Rc<G>,
    /// The memory budget a position's children are checked against before they are listed.
    budget: usize,
}

impl<G: Game> SumSpace for GameSums<G> {
    type Key = G::Pos;
    const ORDERED: bool = false;
    const TRACKS_PATH: bool = true;

    /// A part that the game splits again (a `split` that is not final, or parts that grow)
    /// hands the game to the iterative solver, which splits every part and keeps to the
    /// budget ([`Stop::Deep`]).
    fn parts(&self, pos: &G::Pos, out: &mut Vec<G::Pos>) -> Res<()> {
        let split = if self.game.has_split() { self.game.split(pos)? } else { None };
        let Some(parts) = split else {
            out.push(self.game.canonical(pos)?);
            return Ok(());
        };
        if parts.len() > 1 && parts.contains(pos) {
            return Err(Stop::Game(GameError::Definition(format!(
                "`parts` gave the position itself as one of its {} parts: each part must be smaller than the \
                 whole, or the sum never ends (return `()` when a position does not split)",
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
        for p in &parts {
            out.push(self.game.canonical(p)?);
        }
        Ok(())
    }

    /// Only under normal play: an end that is not a loss, or a position with no moves that
    /// is not one, is refused (Grundy values are not defined).
    fn children(&self, pos: &G::Pos, out: &mut Vec<G::Pos>) -> Res<()> {
        match self.game.primitive(pos)? {
            Some(Value::Lose) => return Ok(()),
            Some(v) => {
                return Err(Stop::Game(GameError::Unsupported(format!(
                    "a primitive {v} is not normal play, so Grundy values are not defined"
                ))));
            }
            None => {}
        }
        super::solution::check_fanout(&*self.game, pos, self.budget)?;
        let children = self.game.children(pos)?;
        if children.is_empty() && self.game.stalemate() != Value::Lose {
            return Err(Stop::Game(GameError::Unsupported(
                "the game is not played under the normal-play rule, so Grundy values are not defined".into(),
            )));
        }
        out.extend(children);
        Ok(())
    }

    fn move_count(&self, pos: &G::Pos) -> GameResult<u64> {
        Ok(self.game.move_count(pos)? as u64)
    }
}

/// The 64-bit keys of one packed space (see [`GameExt::packed_sum`]), and the endgame
/// database of its parts, where one is open.
pub struct KeySums<P> {
    space: Box<dyn PackedSum<P>>,
    endgame: Option<PartDb>,
}

impl<P> SumSpace for KeySums<P> {
    type Key = u64;
    const ORDERED: bool = true;
    const TRACKS_PATH: bool = false;
    #[inline]
    fn order(a: &u64, b: &u64) -> std::cmp::Ordering {
        a.cmp(b)
    }
    #[inline]
    fn parts(&self, key: &u64, out: &mut Vec<u64>) -> Res<()> {
        self.space.parts(*key, out);
        Ok(())
    }
    #[inline]
    fn children(&self, key: &u64, out: &mut Vec<u64>) -> Res<()> {
        self.space.children(*key, out);
        Ok(())
    }
    #[inline]
    fn move_count(&self, key: &u64) -> GameResult<u64> {
        Ok(u64::from(self.space.move_count(*key)))
    }
    #[inline]
    fn endgame(&self, key: &u64) -> Option<u64> {
        self.endgame.as_ref().and_then(|db| db.get(*key))
    }
}

/// A table entry: `EXACT | nimber`, or the values (below 31) shown not to be the nimber.
const EXACT: u32 = 1 << 31;

/// A set of nimbers below 128, as bits.
type Set = u128;

/// The values 0 to `n`.
fn upto(n: u64) -> Set {
    if n >= 127 { Set::MAX } else { (2 << n) - 1 }
}

/// Each value of `s` XORed by `x`.
fn xored(s: Set, x: u64) -> Set {
    if x == 0 {
        return s;
    }
    let mut out = 0;
    let mut rest = s;
    while rest != 0 {
        let v = rest.trailing_zeros() as u64;
        rest &= rest - 1;
        if v ^ x < 128 {
            out |= 1 << (v ^ x);
        }
    }
    out
}

/// The values (below 31, as a table entry) that a search asked about `want` ruled out, its
/// candidates left `cand`: every value up to the largest of `want` that is no longer a
/// candidate (a value leaves the candidates only when it cannot be the nimber; the values
/// above the largest of `want` were never asked about).
fn ruled_out(cand: Set, want: Set) -> u32 {
    let top = upto(127 - u64::from(want.leading_zeros()));
    (top & !cand) as u32 & !EXACT
}

/// The set without its largest value.
fn but_largest(s: Set) -> Set {
    if s == 0 { 0 } else { s & !(1 << (127 - s.leading_zeros())) }
}

/// `c` with the value `v` taken out, or its largest when `v` is not in it.
fn take(c: Set, v: u64) -> Set {
    if v < 128 && c >> v & 1 == 1 { c & !(1 << v) } else { but_largest(c) }
}

/// A child of the position being expanded, as a sum: the XOR of its parts whose nimbers
/// are known, and its other parts (`parts[start..start + len]`, the hardest first).
#[derive(Clone, Copy)]
struct Kid {
    known: u64,
    start: u32,
    len: u32,
    cost: u64,
}

/// The children of one position being searched (reused from level to level).
struct Frame<K> {
    kids: Vec<Kid>,
    parts: Vec<K>,
    keys: Vec<K>,
    costs: Vec<(u64, K)>,
}

impl<K> Default for Frame<K> {
    fn default() -> Self {
        Frame { kids: Vec::new(), parts: Vec::new(), keys: Vec::new(), costs: Vec::new() }
    }
}

impl<K: Footprint> Frame<K> {
    fn bytes(&self) -> usize {
        let one = std::mem::size_of::<K>();
        64 + self.kids.capacity() * std::mem::size_of::<Kid>()
            + (self.parts.capacity() + self.keys.capacity()) * one
            + self.costs.capacity() * std::mem::size_of::<(u64, K)>()
            + self.parts.iter().chain(&self.keys).map(K::heap_bytes).sum::<usize>()
    }
}

/// The nimbers of the positions of one [`SumSpace`].
pub struct SumSearch<S: SumSpace> {
    space: S,
    /// Exact nimbers, apart from the rest so that the table probed for every part of every
    /// child stays small (and in cache).
    exact: Memo<S::Key, u32>,
    /// The values (below 31) positions were shown not to have, as bits.
    bounds: Memo<S::Key, u32>,
    pool: Vec<Frame<S::Key>>,
    /// The parts on the path (where the space [tracks it](SumSpace::TRACKS_PATH)).
    on_path: HashSet<S::Key>,
    depth: usize,
    path_bytes: usize,
    budget: usize,
    visited: u64,
    progress: Progress,
}

impl<S: SumSpace> SumSearch<S> {
    /// A search whose tables keep to three quarters of `budget` bytes (a quarter for exact
    /// nimbers, half for the rest), its path to a quarter.
    pub fn new(space: S, budget: usize, progress: Progress) -> Self {
        SumSearch {
            space,
            exact: Memo::new(budget / 4),
            bounds: Memo::new(budget / 2),
            pool: Vec::new(),
            on_path: HashSet::new(),
            depth: 0,
            path_bytes: 0,
            budget,
            visited: 0,
            progress,
        }
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.visited
    }

    /// Table entries dropped to keep to the budget.
    pub fn evicted(&self) -> u64 {
        self.exact.evicted() + self.bounds.evicted()
    }

    fn reset_path(&mut self) {
        self.depth = 0;
        self.path_bytes = 0;
        self.on_path.clear();
    }

    /// The nimber of the position `key` (a sum of its parts).
    pub fn grundy(&mut self, key: &S::Key) -> Res<u64> {
        self.reset_path();
        let mut f = self.frame();
        let kid = self.split(key, &mut f)?;
        let mut g = Ok(kid.known);
        for i in 0..kid.len as usize {
            let p = f.parts[kid.start as usize + i].clone();
            g = g.and_then(|g| Ok(g ^ self.nimber(&p)?));
        }
        self.give(f);
        g
    }

    /// Is the nimber of the position `key` zero? Its hardest part is only asked about.
    pub fn is_zero(&mut self, key: &S::Key) -> Res<bool> {
        self.reset_path();
        let mut f = self.frame();
        let mut kid = self.split(key, &mut f)?;
        let z = self.kid_in(&mut kid, &f.parts, 1).map(|v| v == Some(0));
        self.give(f);
        z
    }

    fn frame(&mut self) -> Frame<S::Key> {
        self.pool.pop().unwrap_or_default()
    }

    fn give(&mut self, mut f: Frame<S::Key>) {
        f.kids.clear();
        f.parts.clear();
        f.keys.clear();
        f.costs.clear();
        self.pool.push(f);
    }

    fn exact(&self, part: &S::Key) -> Option<u64> {
        if let Some(v) = self.space.endgame(part) {
            return Some(v);
        }
        self.exact.get(part).map(u64::from)
    }

    fn store(&mut self, part: &S::Key, value: u32, start: u64) {
        if value & EXACT != 0 {
            self.exact.insert(part.clone(), value & !EXACT, self.visited - start);
        } else {
            self.bounds.insert(part.clone(), value, self.visited - start);
        }
    }

    /// The position `key` as a sum appended to `f.parts`: its parts, pairs of equal parts
    /// left out (their sum is 0), the known ones folded into `known`, the rest hardest first.
    fn split(&mut self, key: &S::Key, f: &mut Frame<S::Key>) -> Res<Kid> {
        let start = f.parts.len();
        self.space.parts(key, &mut f.parts)?;
        let end = f.parts.len();
        if end - start == 1 {
            if let Some(v) = self.exact(&f.parts[start]) {
                f.parts.truncate(start);
                return Ok(Kid { known: v, start: start as u32, len: 0, cost: 0 });
            }
            let m = self.space.move_count(&f.parts[start])?;
            return Ok(Kid { known: 0, start: start as u32, len: 1, cost: m * m });
        }
        // Equal parts cancel: the parts kept are `f.parts[start..kept]`.
        let kept = if S::ORDERED {
            f.parts[start..].sort_unstable_by(S::order);
            let (mut n, mut i) = (start, start);
            while i < end {
                if i + 1 < end && f.parts[i + 1] == f.parts[i] {
                    i += 2;
                    continue;
                }
                f.parts.swap(n, i);
                n += 1;
                i += 1;
            }
            n
        } else {
            let mut n = start;
            for i in start..end {
                match (start..n).find(|&j| f.parts[j] == f.parts[i]) {
                    Some(j) => {
                        f.parts.swap(j, n - 1);
                        n -= 1;
                    }
                    None => {
                        f.parts.swap(n, i);
                        n += 1;
                    }
                }
            }
            n
        };
        // The known are folded in; the rest stay, with their cost.
        let mut known = 0;
        f.costs.clear();
        for i in start..kept {
            match self.exact(&f.parts[i]) {
                Some(v) => known ^= v,
                None => {
                    let m = self.space.move_count(&f.parts[i])?;
                    f.costs.push((m * m, f.parts[i].clone()));
                }
            }
        }
        f.parts.truncate(start);
        // The hardest first (the one only asked about), by moves squared.
        if S::ORDERED {
            f.costs.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| S::order(&b.1, &a.1)));
        } else {
            f.costs.sort_by_key(|c| std::cmp::Reverse(c.0));
        }
        let mut cost = 0;
        let n = f.costs.len();
        for (c, p) in f.costs.drain(..) {
            f.parts.push(p);
            cost += c;
        }
        Ok(Kid { known, start: start as u32, len: n as u32, cost })
    }

    /// Step onto `part`, whose children were generated: count it, check the time, the
    /// depth, the path's memory, and that it is not already on the path (a loopy game).
    fn enter(&mut self, part: &S::Key, bytes: usize) -> Res<()> {
        self.visited += 1;
        self.progress.tick(self.visited, self.exact.bytes() + self.bounds.bytes())?;
        if self.depth >= MAX_DEPTH {
            return Err(Stop::Deep);
        }
        if S::TRACKS_PATH && !self.on_path.insert(part.clone()) {
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

    fn leave(&mut self, part: &S::Key, bytes: usize) {
        if S::TRACKS_PATH {
            self.on_path.remove(part);
        }
        self.depth -= 1;
        self.path_bytes -= bytes;
    }

    /// The children of `part` split into `f`: the sums still to ask in `f.kids` (easiest
    /// first), and those whose nimber is known passed to `known`; `false` when `known` says
    /// to stop.
    fn expand(&mut self, part: &S::Key, f: &mut Frame<S::Key>, mut known: impl FnMut(u64) -> bool) -> Res<bool> {
        self.space.children(part, &mut f.keys)?;
        let keys = std::mem::take(&mut f.keys);
        let mut go_on = true;
        for key in &keys {
            let kid = match self.split(key, f) {
                Ok(kid) => kid,
                Err(e) => {
                    f.keys = keys;
                    return Err(e);
                }
            };
            if kid.len == 0 {
                if !known(kid.known) {
                    go_on = false;
                    break;
                }
            } else {
                f.kids.push(kid);
            }
        }
        f.keys = keys;
        if go_on {
            f.kids.sort_by_key(|k| k.cost);
        }
        Ok(go_on)
    }

    /// The nimber of `part` (canonical): for k = 0, 1, 2, … is some child's nimber k? The
    /// first k no child has.
    fn nimber(&mut self, part: &S::Key) -> Res<u64> {
        if let Some(v) = self.exact(part) {
            return Ok(v);
        }
        let start = self.visited;
        let mut f = self.frame();
        let mut seen: Set = 0;
        let answer = self
            .expand(part, &mut f, |v| {
                if v < 128 {
                    seen |= 1 << v;
                }
                true
            })
            .and_then(|_| {
                let bytes = f.bytes();
                self.enter(part, bytes)?;
                let a = self.aspire(&mut f, seen);
                self.leave(part, bytes);
                a
            });
        self.give(f);
        let v = answer?;
        self.store(part, EXACT | v as u32, start);
        Ok(v)
    }

    fn aspire(&mut self, f: &mut Frame<S::Key>, mut seen: Set) -> Res<u64> {
        let mut k = 0u64;
        'next: loop {
            if k >= 127 {
                return Err(Stop::Deep);
            }
            if seen >> k & 1 == 1 {
                k += 1;
                continue;
            }
            let mut i = 0;
            while i < f.kids.len() {
                let mut kid = f.kids[i];
                let got = self.kid_in(&mut kid, &f.parts, 1 << k)?;
                f.kids[i] = kid;
                match got {
                    Some(v) => {
                        f.kids.remove(i);
                        if v < 128 {
                            seen |= 1 << v;
                        }
                        if v == k {
                            k += 1;
                            continue 'next;
                        }
                    }
                    None => i += 1,
                }
            }
            return Ok(k);
        }
    }

    /// The nimber of the sum `kid` if it is in `want`; `None` when it is not. Solves all
    /// its parts but the hardest.
    fn kid_in(&mut self, kid: &mut Kid, parts: &[S::Key], want: Set) -> Res<Option<u64>> {
        while kid.len > 1 {
            let p = &parts[(kid.start + kid.len - 1) as usize];
            kid.known ^= self.nimber(p)?;
            kid.len -= 1;
        }
        if kid.len == 0 {
            return Ok(Some(kid.known));
        }
        let v = self.in_set(&parts[kid.start as usize], xored(want, kid.known))?;
        Ok(v.map(|v| v ^ kid.known))
    }

    /// The nimber of `part` (canonical) if it is in `want`, else `None`; maybe the nimber
    /// when it is not in `want` too (see the module's documentation).
    fn in_set(&mut self, part: &S::Key, want: Set) -> Res<Option<u64>> {
        if let Some(v) = self.exact(part) {
            return Ok(Some(v));
        }
        let out = self.bounds.get(part).unwrap_or(0);
        let n = self.space.move_count(part)?;
        if n >= 127 {
            return Err(Stop::Deep);
        }
        let want = want & upto(n) & !Set::from(out);
        if want == 0 {
            return Ok(None);
        }
        let start = self.visited;
        let mut f = self.frame();
        let mut cand = upto(n);
        let expanded = self.expand(part, &mut f, |v| {
            cand = take(cand, v);
            cand & want != 0
        });
        let answer = match expanded {
            Err(e) => Err(e),
            Ok(false) => {
                self.visited += 1;
                Ok((None, cand))
            }
            Ok(true) => {
                let bytes = f.bytes();
                self.enter(part, bytes).and_then(|()| {
                    let a = self.narrow(&mut f, cand, want);
                    self.leave(part, bytes);
                    a
                })
            }
        };
        self.give(f);
        match answer? {
            (Some(v), _) => {
                self.store(part, EXACT | v as u32, start);
                Ok(Some(v))
            }
            (None, cand) => {
                self.store(part, out | ruled_out(cand, want), start);
                Ok(None)
            }
        }
    }

    /// The candidates `cand` cut down by the children still to ask (see the module's
    /// documentation), and the candidates left at the end.
    fn narrow(&mut self, f: &mut Frame<S::Key>, mut cand: Set, want: Set) -> Res<(Option<u64>, Set)> {
        let top = upto(127 - u64::from(want.leading_zeros()));
        let mut exact = true;
        for i in 0..f.kids.len() {
            if cand & want == 0 {
                return Ok((None, cand));
            }
            let ask = but_largest(cand) & top;
            let got = if ask == 0 {
                None
            } else {
                let mut kid = f.kids[i];
                let got = self.kid_in(&mut kid, &f.parts, ask)?;
                f.kids[i] = kid;
                got
            };
            match got {
                Some(v) => cand = take(cand, v),
                None => {
                    cand = but_largest(cand);
                    exact = false;
                }
            }
        }
        let v = u64::from(cand.trailing_zeros());
        Ok((if exact || top >> v & 1 == 1 { Some(v) } else { None }, cand))
    }
}

/// The nimbers of one game's positions: on its keys where it packs the position asked about
/// ([`GameExt::packed_sum`]), else on its own positions.
pub struct NimberSearch<G: Game> {
    game: Rc<G>,
    search: SumSearch<GameSums<G>>,
    /// The search on keys of the space of the last position that packed.
    packed: Option<SumSearch<KeySums<G::Pos>>>,
    /// Positions the searches on keys of earlier spaces expanded.
    packed_visited: u64,
    /// The endgame database the search on keys asks first ([`super::part_db`]), as asked for
    /// (each space's search opens its own).
    endgame: Option<Endgame>,
    budget: usize,
    progress: Progress,
}

impl<G: Game> NimberSearch<G> {
    /// A search whose tables and path keep to `budget` bytes.
    pub fn new(game: Rc<G>, budget: usize, progress: Progress) -> Self {
        let space = GameSums { game: game.clone(), budget };
        NimberSearch {
            game,
            search: SumSearch::new(space, budget, progress.clone()),
            packed: None,
            packed_visited: 0,
            endgame: None,
            budget,
            progress,
        }
    }

    /// Ask the endgame database `endgame` describes (built or loaded when the first packed
    /// position comes) before searching a part.
    pub fn with_endgame(mut self, endgame: Option<Endgame>) -> Self {
        self.endgame = endgame;
        self
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.search.visited() + self.packed_visited + self.packed.as_ref().map_or(0, |p| p.visited())
    }

    /// Table entries dropped to keep to the budget.
    pub fn evicted(&self) -> u64 {
        self.search.evicted() + self.packed.as_ref().map_or(0, |p| p.evicted())
    }

    /// The key of `pos` where the game packs it (see [`GameExt::packed_sum`]), with the search
    /// of its space ready (a new one, with its own table, when `pos` is in another space).
    /// With `--endgame`, a position the game does not pack is refused: it has no endgame
    /// database.
    fn packed_key(&mut self, pos: &G::Pos) -> Res<Option<u64>> {
        if let Some(key) = self.packed.as_ref().and_then(|p| p.space.space.pack(pos)) {
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
        self.packed = Some(SumSearch::new(KeySums { space, endgame: db }, budget, self.progress.clone()));
        Ok(Some(key))
    }

    /// The nimber of `pos` (a sum of its parts, where the game splits it).
    pub fn grundy(&mut self, pos: &G::Pos) -> Res<u64> {
        match self.packed_key(pos)? {
            Some(key) => self.packed.as_mut().expect("a search for the key").grundy(&key),
            None => self.search.grundy(pos),
        }
    }

    /// Is the nimber of `pos` zero (a loss for the player to move)? Cheaper than
    /// [`NimberSearch::grundy`]: the hardest part is only asked about, not solved.
    pub fn is_zero(&mut self, pos: &G::Pos) -> Res<bool> {
        match self.packed_key(pos)? {
            Some(key) => self.packed.as_mut().expect("a search for the key").is_zero(&key),
            None => self.search.is_zero(pos),
        }
    }
}
