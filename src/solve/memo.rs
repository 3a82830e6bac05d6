//! A memo table that keeps to a memory budget.
//!
//! A `hashbrown` map from positions to results, each entry with the *work* it took to solve
//! (positions expanded below it). When the table reaches its budget, the cheaper half of the
//! entries is dropped: leaves and small positions go first, results that took long to find
//! stay (the "depth-preferred" replacement of game-playing programs, here by measured work).
//! A plain least-recently-used policy makes a depth-first search re-solve whole subtrees
//! again and again, which turns a DAG search into an exponential tree search. The solvers
//! never depend on an entry staying in the table: an evicted position is simply solved again.

use crate::game::Footprint;
use hashbrown::HashMap;
use std::hash::Hash;

/// Bytes of bookkeeping per entry on top of the key and value: hashbrown's control byte,
/// and the slack of a table kept at most 7/8 full and grown by doubling.
const OVERHEAD_PER_ENTRY: usize = 8;

pub struct Memo<K, V> {
    map: HashMap<K, (V, u32)>,
    bytes: usize,
    budget: usize,
    evicted: u64,
}

impl<K: Hash + Eq + Footprint, V: Copy> Memo<K, V> {
    /// A table that uses at most about `budget` bytes.
    pub fn new(budget: usize) -> Self {
        Memo { map: HashMap::new(), bytes: 0, budget: budget.max(1 << 16), evicted: 0 }
    }

    fn entry_bytes(key: &K) -> usize {
        // Tables double as they grow, so a table holds up to twice the bytes of its entries.
        2 * (std::mem::size_of::<(K, (V, u32))>() + OVERHEAD_PER_ENTRY) + key.heap_bytes()
    }

    pub fn get(&self, key: &K) -> Option<V> {
        self.map.get(key).map(|e| e.0)
    }

    /// Remember `value` for `key`, which took `work` expansions to find.
    pub fn insert(&mut self, key: K, value: V, work: u64) {
        let bytes = Self::entry_bytes(&key);
        if self.bytes + bytes > self.budget {
            self.evict_cheaper_half();
        }
        if self.map.insert(key, (value, work.min(u32::MAX as u64) as u32)).is_none() {
            self.bytes += bytes;
        }
    }

    fn evict_cheaper_half(&mut self) {
        let mut works: Vec<u32> = self.map.values().map(|e| e.1).collect();
        if works.is_empty() {
            return;
        }
        let mid = works.len() / 2;
        let (_, &mut median, _) = works.select_nth_unstable(mid);
        // Keep what cost more than the median, then fill half the table with entries that
        // cost exactly the median.
        let above = works.iter().filter(|&&w| w > median).count();
        let mut room = (works.len() / 2).saturating_sub(above);
        let before = self.map.len();
        let mut bytes = 0;
        self.map.retain(|k, e| {
            let keep = e.1 > median || (e.1 == median && room > 0);
            if e.1 == median && keep {
                room -= 1;
            }
            if keep {
                bytes += Self::entry_bytes(k);
            }
            keep
        });
        self.map.shrink_to_fit();
        self.bytes = bytes;
        self.evicted += (before - self.map.len()) as u64;
    }

    /// Bytes the table holds (an estimate, the one the budget is kept against).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
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
}
