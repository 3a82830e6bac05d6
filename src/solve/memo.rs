//! A memo table that keeps to a memory budget.
//!
//! Two generations of `hashbrown` maps: new entries go into the young one; when it has used
//! half the budget, the old generation is dropped and the young one becomes old. A hit in the
//! old generation is moved back to the young one, so entries in use survive (an approximate
//! LRU at the cost of one extra lookup on a miss). The solvers never depend on an entry
//! staying in the table: an evicted position is simply solved again.

use crate::game::Footprint;
use hashbrown::HashMap;
use std::hash::Hash;

/// Bytes of bookkeeping per entry on top of the key and value: hashbrown's control byte,
/// and the slack of a table kept at most 7/8 full and grown by doubling.
const OVERHEAD_PER_ENTRY: usize = 8;

pub struct Memo<K, V> {
    young: HashMap<K, V>,
    old: HashMap<K, V>,
    young_bytes: usize,
    budget: usize,
    evicted: u64,
}

impl<K: Hash + Eq + Footprint, V: Copy> Memo<K, V> {
    /// A table that uses at most about `budget` bytes.
    pub fn new(budget: usize) -> Self {
        Memo { young: HashMap::new(), old: HashMap::new(), young_bytes: 0, budget: budget.max(1 << 16), evicted: 0 }
    }

    fn entry_bytes(key: &K) -> usize {
        // Tables double as they grow, so a table holds up to twice the bytes of its entries.
        2 * (std::mem::size_of::<(K, V)>() + OVERHEAD_PER_ENTRY) + key.heap_bytes()
    }

    pub fn get(&mut self, key: &K) -> Option<V> {
        if let Some(v) = self.young.get(key) {
            return Some(*v);
        }
        if let Some((k, v)) = self.old.remove_entry(key) {
            self.insert(k, v);
            return Some(v);
        }
        None
    }

    /// Look without promoting.
    pub fn peek(&self, key: &K) -> Option<V> {
        self.young.get(key).or_else(|| self.old.get(key)).copied()
    }

    pub fn insert(&mut self, key: K, value: V) {
        let bytes = Self::entry_bytes(&key);
        if self.young_bytes + bytes > self.budget / 2 {
            self.evicted += self.old.len() as u64;
            self.old = std::mem::take(&mut self.young);
            self.young_bytes = 0;
        }
        if self.young.insert(key, value).is_none() {
            self.young_bytes += bytes;
        }
    }

    pub fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries dropped to keep to the budget so far.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// Roughly how many bytes the table uses now.
    pub fn bytes(&self) -> usize {
        let per = std::mem::size_of::<(K, V)>() + OVERHEAD_PER_ENTRY;
        (self.young.capacity() + self.old.capacity()) * per
            + self.young_bytes.saturating_sub(self.young.len() * 2 * per)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_to_its_budget_and_keeps_recent_entries() {
        let mut m: Memo<u64, u64> = Memo::new(1 << 16);
        for i in 0..100_000u64 {
            m.insert(i, i * 2);
        }
        assert!(m.evicted() > 0, "a 64 KiB table cannot hold 100,000 entries");
        assert!(m.len() < 100_000);
        assert_eq!(m.get(&99_999), Some(199_998));
        assert_eq!(m.get(&0), None);
    }

    #[test]
    fn a_hit_in_the_old_generation_is_kept() {
        let mut m: Memo<u64, u64> = Memo::new(1 << 16);
        m.insert(7, 49);
        let mut i = 1000;
        while m.young.contains_key(&7) {
            m.insert(i, 0);
            i += 1;
        }
        assert_eq!(m.get(&7), Some(49)); // promoted back to the young generation
        assert!(m.young.contains_key(&7));
    }
}
