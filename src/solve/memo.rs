//! A memo table that keeps to a memory budget.
//!
//! A table from positions to results, each entry with the *work* it took to solve
//! (positions expanded below it). When the table reaches its budget, the cheaper half of the
//! entries is dropped: leaves and small positions go first, results that took long to find
//! stay (the "depth-preferred" replacement of game-playing programs, here by measured work).
//! A plain least-recently-used policy makes a depth-first search re-solve whole subtrees
//! again and again, which turns a DAG search into an exponential tree search. The solvers
//! never depend on an entry staying in the table: an evicted position is simply solved again.
//!
//! Positions that are bytes ([`Footprint::packed`]: a script's packed [`Key`]) are held as
//! those bytes: one record a position in blocks of 1 MiB (the key's length, the key, the
//! result in [`Stored::BYTES`], the work in one byte), found through a hash table of the
//! records' 4-byte offsets. A 6×6 Domineering board (17 bytes) and its value take 20 bytes a
//! record and about 6 of table, where a map of keys held 24 bytes of key, 8 of value and work
//! and the slack of a table grown by doubling (56–112 bytes a position). Other positions are
//! held in a map of the positions themselves. The work is kept in one byte, on a scale of
//! about 12% steps ([`work_code`]).
//!
//! [`Key`]: crate::script::position::Key

use crate::game::{Footprint, Value};
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use std::hash::{BuildHasher, Hash};

/// Bytes of bookkeeping per entry of the map of positions on top of the key and value:
/// hashbrown's control byte, and the slack of a table kept at most 7/8 full and grown by
/// doubling.
const OVERHEAD_PER_ENTRY: usize = 8;

/// Bytes of the table of offsets a record is counted for: 4 bytes and a control byte, in a
/// table at most 7/8 full, twice while it doubles.
const TABLE_PER_RECORD: usize = 12;

/// The records' blocks: a record never spans two, and the blocks are never moved.
const BLOCK: usize = 1 << 20;

/// At most this many blocks (offsets are 32 bits): 4 GiB of records. A memo that reaches it
/// forgets half its entries as if it had reached its budget.
const MAX_BLOCKS: usize = (1 << 32) / BLOCK;

/// A result a memo can hold as bytes.
pub trait Stored: Copy {
    /// Bytes of every value.
    const BYTES: usize;
    /// Write the value into `out` (`BYTES` long).
    fn store(self, out: &mut [u8]);
    /// The value written by [`Stored::store`] into `b` (`BYTES` long).
    fn load(b: &[u8]) -> Self;
}

/// Whole numbers, little-endian.
macro_rules! stored_int {
    ($($t:ty),*) => {$(
        impl Stored for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            fn store(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
            fn load(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().expect("BYTES bytes"))
            }
        }
    )*};
}
stored_int!(u32, u64);

impl Stored for Value {
    const BYTES: usize = 1;
    fn store(self, out: &mut [u8]) {
        out[0] = value_code(self);
    }
    fn load(b: &[u8]) -> Self {
        value_of(b[0])
    }
}

/// A value in two bits.
pub fn value_code(v: Value) -> u8 {
    match v {
        Value::Win => 0,
        Value::Lose => 1,
        Value::Tie => 2,
        Value::Draw => 3,
    }
}

/// The value of [`value_code`]'s two low bits.
pub fn value_of(code: u8) -> Value {
    match code & 3 {
        0 => Value::Win,
        1 => Value::Lose,
        2 => Value::Tie,
        _ => Value::Draw,
    }
}

/// A work count in one byte, in the same order: exact below 16, then 3 bits of mantissa
/// under the exponent (steps of at most 12.5%); counts past `u32::MAX` are `u32::MAX`.
pub fn work_code(work: u64) -> u8 {
    let w = work.min(u64::from(u32::MAX)) as u32;
    if w < 8 {
        return w as u8;
    }
    let e = 31 - w.leading_zeros(); // 3..=31
    ((e - 2) * 8 + ((w >> (e - 3)) & 7)) as u8
}

pub struct Memo<K, V> {
    /// Positions that are not bytes.
    map: HashMap<K, (V, u8)>,
    /// Offsets of the records of positions that are bytes.
    table: HashTable<u32>,
    blocks: Vec<Vec<u8>>,
    hasher: DefaultHashBuilder,
    bytes: usize,
    budget: usize,
    evicted: u64,
}

/// The key of the record at `off` and where the record's value starts.
fn record(blocks: &[Vec<u8>], off: u32) -> (&[u8], usize) {
    let off = off as usize;
    let b = &blocks[off / BLOCK][off % BLOCK..];
    let (len, n) = read_len(b);
    (&b[n..n + len], off + n + len)
}

pub(super) fn read_len(b: &[u8]) -> (usize, usize) {
    let (mut v, mut shift, mut i) = (0usize, 0, 0);
    loop {
        let byte = b[i];
        i += 1;
        v |= usize::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return (v, i);
        }
        shift += 7;
    }
}

pub(super) fn len_bytes(mut len: usize) -> usize {
    let mut n = 1;
    while len >= 0x80 {
        len >>= 7;
        n += 1;
    }
    n
}

pub(super) fn put_len(out: &mut Vec<u8>, mut len: usize) {
    while len >= 0x80 {
        out.push(len as u8 | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
}

impl<K: Hash + Eq + Footprint, V: Stored> Memo<K, V> {
    /// A table that uses at most about `budget` bytes.
    pub fn new(budget: usize) -> Self {
        Memo {
            map: HashMap::new(),
            table: HashTable::new(),
            blocks: Vec::new(),
            hasher: DefaultHashBuilder::default(),
            bytes: 0,
            budget: budget.max(1 << 16),
            evicted: 0,
        }
    }

    fn entry_bytes(key: &K) -> usize {
        // Tables double as they grow, so a table holds up to twice the bytes of its entries.
        2 * (std::mem::size_of::<(K, (V, u8))>() + OVERHEAD_PER_ENTRY) + key.heap_bytes()
    }

    fn record_bytes(key: &[u8]) -> usize {
        len_bytes(key.len()) + key.len() + V::BYTES + 1
    }

    /// The key's bytes, when it is held as a record.
    fn packed(key: &K) -> Option<&[u8]> {
        key.packed().filter(|b| Self::record_bytes(b) <= BLOCK)
    }

    fn find(&self, key: &[u8], hash: u64) -> Option<usize> {
        let blocks = &self.blocks;
        self.table.find(hash, |&off| record(blocks, off).0 == key).map(|&off| record(blocks, off).1)
    }

    fn value_at(&self, at: usize) -> (V, u8) {
        let b = &self.blocks[at / BLOCK][at % BLOCK..];
        (V::load(&b[..V::BYTES]), b[V::BYTES])
    }

    pub fn get(&self, key: &K) -> Option<V> {
        match Self::packed(key) {
            Some(b) => self.find(b, self.hasher.hash_one(b)).map(|at| self.value_at(at).0),
            None => self.map.get(key).map(|e| e.0),
        }
    }

    /// Remember `value` for `key`, which took `work` expansions to find.
    pub fn insert(&mut self, key: K, value: V, work: u64) {
        let work = work_code(work);
        let Some(b) = Self::packed(&key) else {
            let bytes = Self::entry_bytes(&key);
            if self.bytes + bytes > self.budget {
                self.evict_cheaper_half();
            }
            if self.map.insert(key, (value, work)).is_none() {
                self.bytes += bytes;
            }
            return;
        };
        let hash = self.hasher.hash_one(b);
        if let Some(at) = self.find(b, hash) {
            let block = &mut self.blocks[at / BLOCK][at % BLOCK..];
            value.store(&mut block[..V::BYTES]);
            block[V::BYTES] = work;
            return;
        }
        let rec = Self::record_bytes(b);
        let full = self.blocks.len() == MAX_BLOCKS && self.blocks[MAX_BLOCKS - 1].len() + rec > BLOCK;
        if full || self.bytes + rec + TABLE_PER_RECORD > self.budget {
            self.evict_cheaper_half();
        }
        if self.blocks.last().is_none_or(|l| l.len() + rec > BLOCK) {
            if self.blocks.len() == MAX_BLOCKS {
                // Every entry cost the same, and no half could be told apart: forget this one.
                return;
            }
            self.blocks.push(Vec::with_capacity(BLOCK));
        }
        let last = self.blocks.len() - 1;
        let block = &mut self.blocks[last];
        let off = (last * BLOCK + block.len()) as u32;
        put_len(block, b.len());
        block.extend_from_slice(b);
        let at = block.len();
        block.resize(at + V::BYTES + 1, work);
        value.store(&mut block[at..at + V::BYTES]);
        let (blocks, hasher) = (&self.blocks, &self.hasher);
        self.table.insert_unique(hash, off, |&o| hasher.hash_one(record(blocks, o).0));
        self.bytes += rec + TABLE_PER_RECORD;
    }

    /// Each record in turn: its offset, its length and its work.
    fn records(&self) -> impl Iterator<Item = (usize, usize, u8)> + '_ {
        self.blocks.iter().enumerate().flat_map(|(i, block)| {
            let mut p = 0;
            std::iter::from_fn(move || {
                if p >= block.len() {
                    return None;
                }
                let (len, n) = read_len(&block[p..]);
                let rec = n + len + V::BYTES + 1;
                let item = (i * BLOCK + p, rec, block[p + rec - 1]);
                p += rec;
                Some(item)
            })
        })
    }

    fn evict_cheaper_half(&mut self) {
        let mut works: Vec<u8> = self.map.values().map(|e| e.1).collect();
        works.extend(self.records().map(|r| r.2));
        if works.is_empty() {
            return;
        }
        let mid = works.len() / 2;
        let (_, &mut median, _) = works.select_nth_unstable(mid);
        // Keep what cost more than the median, then fill half the table with entries that
        // cost exactly the median.
        let above = works.iter().filter(|&&w| w > median).count();
        let mut room = (works.len() / 2).saturating_sub(above);
        drop(works);
        let before = self.len();
        let mut keep = |w: u8| {
            let keep = w > median || (w == median && room > 0);
            if w == median && keep {
                room -= 1;
            }
            keep
        };
        let mut bytes = 0;
        self.map.retain(|k, e| {
            let kept = keep(e.1);
            if kept {
                bytes += Self::entry_bytes(k);
            }
            kept
        });
        self.map.shrink_to_fit();
        // The records kept are moved down over the ones dropped, in order, and the table of
        // offsets made again.
        self.table.clear();
        let (mut wb, mut wp) = (0usize, 0usize);
        for rb in 0..self.blocks.len() {
            let mut rp = 0;
            while rp < self.blocks[rb].len() {
                let (len, n) = read_len(&self.blocks[rb][rp..]);
                let rec = n + len + V::BYTES + 1;
                if keep(self.blocks[rb][rp + rec - 1]) {
                    if wp + rec > BLOCK {
                        self.blocks[wb].truncate(wp);
                        (wb, wp) = (wb + 1, 0);
                    }
                    if wb == rb {
                        self.blocks[rb].copy_within(rp..rp + rec, wp);
                    } else {
                        let (low, high) = self.blocks.split_at_mut(rb);
                        low[wb].truncate(wp);
                        low[wb].extend_from_slice(&high[0][rp..rp + rec]);
                    }
                    let off = (wb * BLOCK + wp) as u32;
                    let (blocks, hasher) = (&self.blocks, &self.hasher);
                    let hash = hasher.hash_one(record(blocks, off).0);
                    self.table.insert_unique(hash, off, |&o| hasher.hash_one(record(blocks, o).0));
                    bytes += rec + TABLE_PER_RECORD;
                    wp += rec;
                }
                rp += rec;
            }
        }
        if !self.blocks.is_empty() {
            self.blocks[wb].truncate(wp);
            self.blocks.truncate(if wp == 0 { wb } else { wb + 1 });
        }
        self.bytes = bytes;
        self.evicted += (before - self.len()) as u64;
    }

    /// Bytes the table holds (an estimate, the one the budget is kept against).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.map.len() + self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries dropped to keep to the budget so far.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_to_its_budget() {
        let mut m: Memo<u64, u64> = Memo::new(1 << 16);
        for i in 0..100_000u64 {
            m.insert(i, i * 2, 1);
        }
        assert!(m.evicted() > 0, "a 64 KiB table cannot hold 100,000 entries");
        assert!(m.len() * Memo::<u64, u64>::entry_bytes(&0) <= 1 << 16);
    }

    #[test]
    fn expensive_entries_survive_eviction() {
        let mut m: Memo<u64, u64> = Memo::new(1 << 16);
        m.insert(7, 49, 1_000_000);
        for i in 1000..200_000 {
            m.insert(i, 0, i % 10);
        }
        assert!(m.evicted() > 0);
        assert_eq!(m.get(&7), Some(49));
    }

    #[test]
    fn work_codes_keep_the_order() {
        let mut last = 0;
        for w in (0..100_000u64).chain([u64::from(u32::MAX) - 1, u64::from(u32::MAX), u64::MAX]) {
            let c = work_code(w);
            assert!(c >= last, "work {w}");
            if w < 16 {
                assert_eq!(u64::from(c), w);
            }
            last = c;
        }
        assert!(work_code(1000) < work_code(1200), "steps of at most 12.5%");
    }

    /// Positions as bytes, some of them not packed (a position of the other kind in the
    /// same memo), as a second implementation to compare with.
    #[derive(Clone, PartialEq, Eq, Hash, Debug)]
    struct Bytes(Vec<u8>);

    impl Footprint for Bytes {
        fn heap_bytes(&self) -> usize {
            self.0.capacity()
        }
        fn packed(&self) -> Option<&[u8]> {
            (self.0.first() != Some(&0xff)).then_some(&self.0[..])
        }
    }

    /// A small pseudo-random generator (xorshift), so that the test needs no crate.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// A key: mostly short, some long (several bytes of length), some not packed.
        fn key(&mut self, universe: u64) -> Bytes {
            let id = self.next() % universe;
            let len = match id % 50 {
                0 => 200 + (id % 300) as usize,
                1..=5 => 0,
                _ => 1 + (id % 30) as usize,
            };
            let mut b: Vec<u8> = (0..len).map(|i| (id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (i % 57)) as u8).collect();
            b.extend_from_slice(&id.to_le_bytes());
            if id.is_multiple_of(7) {
                b[0] = 0xff;
            } else if b[0] == 0xff {
                b[0] = 0;
            }
            Bytes(b)
        }
    }

    impl Stored for (u32, u8) {
        const BYTES: usize = 5;
        fn store(self, out: &mut [u8]) {
            self.0.store(&mut out[..4]);
            out[4] = self.1;
        }
        fn load(b: &[u8]) -> Self {
            (u32::load(&b[..4]), b[4])
        }
    }

    #[test]
    fn packed_records_agree_with_a_map() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut memo: Memo<Bytes, (u32, u8)> = Memo::new(1 << 30);
        let mut plain: std::collections::HashMap<Bytes, (u32, u8)> = Default::default();
        for step in 0..200_000u32 {
            let k = rng.key(60_000);
            if rng.next().is_multiple_of(3) {
                assert_eq!(memo.get(&k), plain.get(&k).copied(), "{k:?}");
            } else {
                let v = (step, (step % 251) as u8);
                memo.insert(k.clone(), v, u64::from(step % 17));
                plain.insert(k, v);
            }
        }
        assert_eq!(memo.evicted(), 0);
        assert_eq!(memo.len(), plain.len());
        assert!(memo.blocks.len() > 1, "the test should span several blocks");
        for (k, v) in &plain {
            assert_eq!(memo.get(k), Some(*v));
        }
    }

    #[test]
    fn packed_records_forget_under_a_small_budget() {
        let mut rng = Rng(0x0f0f_1234_5555_aaaa);
        let budget = 3 << 20;
        let mut memo: Memo<Bytes, u32> = Memo::new(budget);
        let mut plain: std::collections::HashMap<Bytes, u32> = Default::default();
        // Positions with a great deal of work, written first: they must survive.
        let dear: Vec<Bytes> = (0..100).map(|_| rng.key(1 << 40)).collect();
        for (i, k) in dear.iter().enumerate() {
            memo.insert(k.clone(), i as u32, 1 << 30);
            plain.insert(k.clone(), i as u32);
        }
        for step in 0..400_000u32 {
            let k = rng.key(1 << 40);
            match memo.get(&k) {
                // Forgotten or never written, or else what was last written.
                None => {}
                Some(v) => assert_eq!(Some(&v), plain.get(&k), "{k:?}"),
            }
            memo.insert(k.clone(), step, rng.next() % 1000);
            plain.insert(k, step);
            assert!(memo.bytes() <= budget);
        }
        assert!(memo.evicted() > 100_000, "{} evicted", memo.evicted());
        for (i, k) in dear.iter().enumerate() {
            assert_eq!(memo.get(k), Some(i as u32), "{k:?}");
        }
        let mut found = 0;
        for (k, v) in &plain {
            if let Some(m) = memo.get(k) {
                assert_eq!(m, *v);
                found += 1;
            }
        }
        assert_eq!(found, memo.len());
        assert!(memo.len() > 10_000);
    }
}
