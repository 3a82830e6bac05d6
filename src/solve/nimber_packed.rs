//! Nimbers on 64-bit keys, for games that offer [`PackedSum`] (`Game::packed_sum`; Cram as
//! a board descriptor): parts, children and symmetries computed on keys, natively, and
//! remembered in a table of `u64` keys with 16-byte entries. No allocation per position
//! (each level of the search reuses its buffers).
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

use super::memo::Memo;
use super::nimber_stop::{MAX_DEPTH, Stop};
use crate::game::GameError;
use crate::game::packed::PackedSum;
use crate::progress::Progress;

type Res<T> = Result<T, Stop>;

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
#[derive(Default)]
struct Frame {
    kids: Vec<Kid>,
    parts: Vec<u64>,
    keys: Vec<u64>,
    costs: Vec<(u64, u64)>,
}

impl Frame {
    fn bytes(&self) -> usize {
        64 + self.kids.capacity() * std::mem::size_of::<Kid>()
            + (self.parts.capacity() + self.keys.capacity() + 2 * self.costs.capacity()) * 8
    }
}

/// The nimbers of one packed space's positions.
pub struct PackedNimbers<P> {
    space: Box<dyn PackedSum<P>>,
    /// Exact nimbers, apart from the rest so that the table probed for every part of every
    /// child stays small (and in cache).
    exact: Memo<u64, u32>,
    /// The values (below 31) positions were shown not to have, as bits.
    bounds: Memo<u64, u32>,
    /// The endgame database of part nimbers, asked before the tables ([`super::part_db`]).
    endgame: Option<super::part_db::PartDb>,
    pool: Vec<Frame>,
    depth: usize,
    path_bytes: usize,
    budget: usize,
    visited: u64,
    progress: Progress,
}

impl<P> PackedNimbers<P> {
    /// A search whose tables keep to three quarters of `budget` bytes (a quarter for exact
    /// nimbers, half for the rest), its path to a quarter.
    pub fn new(space: Box<dyn PackedSum<P>>, budget: usize, progress: Progress) -> Self {
        PackedNimbers {
            space,
            exact: Memo::new(budget / 4),
            bounds: Memo::new(budget / 2),
            endgame: None,
            pool: Vec::new(),
            depth: 0,
            path_bytes: 0,
            budget,
            visited: 0,
            progress,
        }
    }

    /// Ask `db` for the nimbers of the parts within its bound before searching them.
    pub fn with_endgame(mut self, db: Option<super::part_db::PartDb>) -> Self {
        self.endgame = db;
        self
    }

    /// The key of `pos`, if it is in this space.
    pub fn pack(&self, pos: &P) -> Option<u64> {
        self.space.pack(pos)
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.visited
    }

    /// Table entries dropped to keep to the budget.
    pub fn evicted(&self) -> u64 {
        self.exact.evicted() + self.bounds.evicted()
    }

    /// The nimber of the position `key` (a sum of its parts).
    pub fn grundy(&mut self, key: u64) -> Res<u64> {
        self.depth = 0;
        self.path_bytes = 0;
        let mut f = self.frame();
        let kid = self.split(key, &mut f);
        let mut g = Ok(kid.known);
        for i in 0..kid.len as usize {
            let p = f.parts[kid.start as usize + i];
            g = g.and_then(|g| Ok(g ^ self.nimber(p)?));
        }
        self.give(f);
        g
    }

    /// Is the nimber of the position `key` zero? Its hardest part is only asked about.
    pub fn is_zero(&mut self, key: u64) -> Res<bool> {
        self.depth = 0;
        self.path_bytes = 0;
        let mut f = self.frame();
        let mut kid = self.split(key, &mut f);
        let z = self.kid_in(&mut kid, &f.parts, 1).map(|v| v == Some(0));
        self.give(f);
        z
    }

    fn frame(&mut self) -> Frame {
        self.pool.pop().unwrap_or_default()
    }

    fn give(&mut self, mut f: Frame) {
        f.kids.clear();
        f.parts.clear();
        f.keys.clear();
        self.pool.push(f);
    }

    fn exact(&self, part: u64) -> Option<u64> {
        if let Some(v) = self.endgame.as_ref().and_then(|db| db.get(part)) {
            return Some(v);
        }
        self.exact.get(&part).map(u64::from)
    }

    fn store(&mut self, part: u64, value: u32, start: u64) {
        if value & EXACT != 0 {
            self.exact.insert(part, value & !EXACT, self.visited - start);
        } else {
            self.bounds.insert(part, value, self.visited - start);
        }
    }

    /// The position `key` as a sum appended to `f.parts`: its parts, pairs of equal parts
    /// left out (their sum is 0), the known ones folded into `known`, the rest hardest first.
    fn split(&mut self, key: u64, f: &mut Frame) -> Kid {
        let start = f.parts.len();
        self.space.parts(key, &mut f.parts);
        let end = f.parts.len();
        if end - start == 1 {
            let p = f.parts[start];
            if let Some(v) = self.exact(p) {
                f.parts.truncate(start);
                return Kid { known: v, start: start as u32, len: 0, cost: 0 };
            }
            let m = u64::from(self.space.move_count(p));
            return Kid { known: 0, start: start as u32, len: 1, cost: m * m };
        }
        f.parts[start..].sort_unstable();
        // Equal neighbours cancel; the known are folded in; the rest stay, with their cost.
        let mut known = 0;
        let mut n = start;
        let mut i = start;
        f.costs.clear();
        while i < end {
            let p = f.parts[i];
            if i + 1 < end && f.parts[i + 1] == p {
                i += 2;
                continue;
            }
            i += 1;
            match self.exact(p) {
                Some(v) => known ^= v,
                None => {
                    let m = u64::from(self.space.move_count(p));
                    f.costs.push((m * m, p));
                    n += 1;
                }
            }
        }
        f.parts.truncate(start);
        // The hardest first (the one only asked about), by moves squared.
        f.costs.sort_unstable_by(|a, b| b.cmp(a));
        let mut cost = 0;
        for &(c, p) in &f.costs {
            f.parts.push(p);
            cost += c;
        }
        Kid { known, start: start as u32, len: (n - start) as u32, cost }
    }

    /// Step onto a part whose children were generated: count it, check the time, the depth
    /// and the path's memory.
    fn enter(&mut self, bytes: usize) -> Res<()> {
        self.visited += 1;
        self.progress.tick(self.visited, self.exact.bytes() + self.bounds.bytes())?;
        if self.depth >= MAX_DEPTH {
            return Err(Stop::Deep);
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

    fn leave(&mut self, bytes: usize) {
        self.depth -= 1;
        self.path_bytes -= bytes;
    }

    /// The nimber of `part` (canonical): for k = 0, 1, 2, … is some child's nimber k? The
    /// first k no child has.
    fn nimber(&mut self, part: u64) -> Res<u64> {
        if let Some(v) = self.exact(part) {
            return Ok(v);
        }
        let start = self.visited;
        let mut f = self.frame();
        self.space.children(part, &mut f.keys);
        let mut seen: Set = 0;
        for i in 0..f.keys.len() {
            let kid = self.split(f.keys[i], &mut f);
            if kid.len == 0 {
                if kid.known < 128 {
                    seen |= 1 << kid.known;
                }
            } else {
                f.kids.push(kid);
            }
        }
        f.kids.sort_by_key(|k| k.cost);
        let bytes = f.bytes();
        let answer = self.enter(bytes).and_then(|()| {
            let a = self.aspire(&mut f, seen);
            self.leave(bytes);
            a
        });
        self.give(f);
        let v = answer?;
        self.store(part, EXACT | v as u32, start);
        Ok(v)
    }

    fn aspire(&mut self, f: &mut Frame, mut seen: Set) -> Res<u64> {
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
    fn kid_in(&mut self, kid: &mut Kid, parts: &[u64], want: Set) -> Res<Option<u64>> {
        while kid.len > 1 {
            let p = parts[(kid.start + kid.len - 1) as usize];
            kid.known ^= self.nimber(p)?;
            kid.len -= 1;
        }
        if kid.len == 0 {
            return Ok(Some(kid.known));
        }
        let v = self.in_set(parts[kid.start as usize], xored(want, kid.known))?;
        Ok(v.map(|v| v ^ kid.known))
    }

    /// The nimber of `part` (canonical) if it is in `want`, else `None`; maybe the nimber
    /// when it is not in `want` too (see the module's documentation).
    fn in_set(&mut self, part: u64, want: Set) -> Res<Option<u64>> {
        if let Some(v) = self.exact(part) {
            return Ok(Some(v));
        }
        let out = self.bounds.get(&part).unwrap_or(0);
        let n = u64::from(self.space.move_count(part));
        if n >= 127 {
            return Err(Stop::Deep);
        }
        let want = want & upto(n) & !Set::from(out);
        if want == 0 {
            return Ok(None);
        }
        let start = self.visited;
        let mut f = self.frame();
        self.space.children(part, &mut f.keys);
        let mut cand = upto(n);
        for i in 0..f.keys.len() {
            let kid = self.split(f.keys[i], &mut f);
            if kid.len == 0 {
                cand = take(cand, kid.known);
                if cand & want == 0 {
                    self.give(f);
                    self.visited += 1;
                    self.store(part, out | ruled_out(cand, want), start);
                    return Ok(None);
                }
            } else {
                f.kids.push(kid);
            }
        }
        f.kids.sort_by_key(|k| k.cost);
        let bytes = f.bytes();
        let answer = self.enter(bytes).and_then(|()| {
            let a = self.narrow(&mut f, cand, want);
            self.leave(bytes);
            a
        });
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
    fn narrow(&mut self, f: &mut Frame, mut cand: Set, want: Set) -> Res<(Option<u64>, Set)> {
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
