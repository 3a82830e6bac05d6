//! The value-at-a-time nimber search of [`super::nimber`] on 64-bit keys: for games that
//! offer [`PackedSum`] (`Game::packed_sum`; Cram as a board descriptor), whose parts,
//! children and symmetries are computed on keys, natively, and remembered in a table of
//! `u64`. The search is the same (see `nimber.rs`); what changes is the cost of a position:
//! no allocation per position (each level of the search reuses its buffers), no generic
//! positions, and a table entry of 24 bytes.

use super::memo::Memo;
use super::nimber::{MAX_DEPTH, Stop};
use crate::game::GameError;
use crate::game::packed::PackedSum;
use crate::progress::Progress;

type Res<T> = Result<T, Stop>;

/// A table entry: `EXACT | nimber`, or the values (below 63) some child is known to have.
const EXACT: u64 = 1 << 63;

fn bit(v: u64) -> u64 {
    if v < 63 { 1 << v } else { 0 }
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
    /// The nimbers of the children whose every part is known.
    whole: Vec<u64>,
    keys: Vec<u64>,
}

impl Frame {
    fn bytes(&self) -> usize {
        64 + self.kids.capacity() * std::mem::size_of::<Kid>()
            + (self.parts.capacity() + self.whole.capacity() + self.keys.capacity()) * 8
    }
}

/// The nimbers of one packed space's positions.
pub struct PackedNimbers<P> {
    space: Box<dyn PackedSum<P>>,
    memo: Memo<u64, u64>,
    pool: Vec<Frame>,
    scratch: Vec<u64>,
    depth: usize,
    path_bytes: usize,
    budget: usize,
    visited: u64,
    progress: Progress,
}

impl<P> PackedNimbers<P> {
    /// A search whose table keeps to three quarters of `budget` bytes, its path to a quarter.
    pub fn new(space: Box<dyn PackedSum<P>>, budget: usize, progress: Progress) -> Self {
        PackedNimbers {
            space,
            memo: Memo::new(budget / 4 * 3),
            pool: Vec::new(),
            scratch: Vec::new(),
            depth: 0,
            path_bytes: 0,
            budget,
            visited: 0,
            progress,
        }
    }

    /// The key of `pos`, if it is in this space.
    pub fn pack(&self, pos: &P) -> Option<u64> {
        self.space.pack(pos)
    }

    pub fn visited(&self) -> u64 {
        self.visited
    }

    pub fn evicted(&self) -> u64 {
        self.memo.evicted()
    }

    /// The nimber of the position `key` (a sum of its parts).
    pub fn grundy(&mut self, key: u64) -> Res<u64> {
        self.depth = 0;
        self.path_bytes = 0;
        let mut f = self.pool.pop().unwrap_or_default();
        let kid = self.split(key, &mut f);
        let mut g = kid.known;
        for i in 0..kid.len as usize {
            let p = f.parts[kid.start as usize + i];
            g ^= self.nimber(p)?;
        }
        self.give(f);
        Ok(g)
    }

    /// Is the nimber of the position `key` zero? Its hardest part is only tested.
    pub fn is_zero(&mut self, key: u64) -> Res<bool> {
        self.depth = 0;
        self.path_bytes = 0;
        let mut f = self.pool.pop().unwrap_or_default();
        let mut kid = self.split(key, &mut f);
        let z = self.kid_has(&mut kid, &f.parts, 0);
        self.give(f);
        z
    }

    fn give(&mut self, mut f: Frame) {
        f.kids.clear();
        f.parts.clear();
        f.whole.clear();
        f.keys.clear();
        self.pool.push(f);
    }

    fn exact(&self, part: u64) -> Option<u64> {
        self.memo.get(&part).filter(|e| e & EXACT != 0).map(|e| e & !EXACT)
    }

    /// The position `key` as a sum appended to `f.parts`: its parts, pairs of equal parts
    /// left out (their sum is 0), the known ones folded into `known`, the rest hardest first.
    fn split(&mut self, key: u64, f: &mut Frame) -> Kid {
        let start = f.parts.len();
        self.space.parts(key, &mut f.parts);
        let ps = &mut f.parts[start..];
        if ps.len() > 1 {
            ps.sort_unstable();
        }
        // Equal neighbours cancel; the known are folded in; the rest stay, with their cost.
        let mut known = 0;
        let mut cost = 0;
        let mut n = start;
        let mut i = start;
        let end = f.parts.len();
        self.scratch.clear();
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
                    self.scratch.push(m * m);
                    f.parts[n] = p;
                    n += 1;
                }
            }
        }
        f.parts.truncate(n);
        let len = n - start;
        if len > 1 {
            // The hardest first (the one only tested), by moves squared.
            let mut order: Vec<(u64, u64)> =
                self.scratch.iter().copied().zip(f.parts[start..].iter().copied()).collect();
            order.sort_unstable_by(|a, b| b.cmp(a));
            for (j, (_, p)) in order.into_iter().enumerate() {
                f.parts[start + j] = p;
            }
        }
        for &c in &self.scratch {
            cost += c;
        }
        Kid { known, start: start as u32, len: len as u32, cost }
    }

    /// Step onto a part: count it, check the time, the depth and the path's memory.
    fn enter(&mut self, bytes: usize) -> Res<()> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
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

    /// The children of `part` as sums, easiest first, in a frame from the pool; `None` when
    /// it has no moves.
    fn expand(&mut self, part: u64) -> Option<Frame> {
        let mut f = self.pool.pop().unwrap_or_default();
        self.space.children(part, &mut f.keys);
        if f.keys.is_empty() {
            self.give(f);
            return None;
        }
        for i in 0..f.keys.len() {
            let c = f.keys[i];
            let kid = self.split(c, &mut f);
            if kid.len == 0 {
                f.whole.push(kid.known);
            } else {
                f.kids.push(kid);
            }
        }
        f.kids.sort_by_key(|k| k.cost);
        Some(f)
    }

    /// Does the sum `kid` have nimber `k`? Solves all its parts but the hardest.
    fn kid_has(&mut self, kid: &mut Kid, parts: &[u64], k: u64) -> Res<bool> {
        while kid.len > 1 {
            let p = parts[(kid.start + kid.len - 1) as usize];
            kid.known ^= self.nimber(p)?;
            kid.len -= 1;
        }
        if kid.len == 0 {
            return Ok(kid.known == k);
        }
        self.has_nimber(parts[kid.start as usize], k ^ kid.known)
    }

    /// The first child (in order) that has nimber `k`, if any.
    fn find(&mut self, f: &mut Frame, k: u64) -> Res<Option<usize>> {
        for i in 0..f.kids.len() {
            let mut kid = f.kids[i];
            let has = self.kid_has(&mut kid, &f.parts, k)?;
            f.kids[i] = kid;
            if has {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    fn store(&mut self, part: u64, value: u64, start: u64) {
        self.memo.insert(part, value, self.visited - start);
    }

    /// Does `part` (canonical) have nimber `k`?
    fn has_nimber(&mut self, part: u64, k: u64) -> Res<bool> {
        let mut present = 0;
        if let Some(e) = self.memo.get(&part) {
            if e & EXACT != 0 {
                return Ok(e & !EXACT == k);
            }
            if e & bit(k) != 0 {
                return Ok(false);
            }
            present = e;
        }
        // A nimber is at most the number of moves.
        if k > 0 && u64::from(self.space.move_count(part)) < k {
            return Ok(false);
        }
        let start = self.visited;
        let Some(mut f) = self.expand(part) else {
            self.visited += 1;
            self.store(part, EXACT, start);
            return Ok(k == 0);
        };
        for &v in &f.whole {
            present |= bit(v);
        }
        if f.whole.contains(&k) {
            self.visited += 1;
            self.store(part, present, start);
            self.give(f);
            return Ok(false);
        }
        let bytes = f.bytes();
        let answer = match self.enter(bytes) {
            Ok(()) => {
                let a = self.test(part, k, present, &mut f, start);
                self.leave(bytes);
                a
            }
            Err(e) => Err(e),
        };
        self.give(f);
        answer
    }

    fn test(&mut self, part: u64, k: u64, mut present: u64, f: &mut Frame, start: u64) -> Res<bool> {
        for smaller in 0..k {
            if present & bit(smaller) != 0 || f.whole.contains(&smaller) {
                continue;
            }
            match self.find(f, smaller)? {
                Some(i) => {
                    f.kids.remove(i);
                    present |= bit(smaller);
                }
                None => {
                    // No child has `smaller`, every smaller value has one: the nimber.
                    self.store(part, EXACT | smaller, start);
                    return Ok(false);
                }
            }
        }
        if self.find(f, k)?.is_some() {
            self.store(part, present | bit(k), start);
            return Ok(false);
        }
        self.store(part, EXACT | k, start);
        Ok(true)
    }

    /// The nimber of `part` (canonical).
    fn nimber(&mut self, part: u64) -> Res<u64> {
        let mut present = 0;
        if let Some(e) = self.memo.get(&part) {
            if e & EXACT != 0 {
                return Ok(e & !EXACT);
            }
            present = e;
        }
        let start = self.visited;
        let Some(mut f) = self.expand(part) else {
            self.visited += 1;
            self.store(part, EXACT, start);
            return Ok(0);
        };
        let bytes = f.bytes();
        let answer = match self.enter(bytes) {
            Ok(()) => {
                let a = self.mex(part, present, &mut f, start);
                self.leave(bytes);
                a
            }
            Err(e) => Err(e),
        };
        self.give(f);
        answer
    }

    fn mex(&mut self, part: u64, mut present: u64, f: &mut Frame, start: u64) -> Res<u64> {
        let mut k = 0;
        loop {
            if present & bit(k) == 0 && !f.whole.contains(&k) {
                match self.find(f, k)? {
                    Some(i) => {
                        f.kids.remove(i);
                        present |= bit(k);
                    }
                    None => {
                        self.store(part, EXACT | k, start);
                        return Ok(k);
                    }
                }
            }
            k += 1;
        }
    }
}
