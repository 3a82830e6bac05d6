//! The answer cache: the JSON text of answers already given, by request, so that a position
//! asked again costs a hash lookup on the HTTP side instead of a trip to a game thread (where
//! a Rhai game's every move, child and board cell is the script's work again, even with its
//! values remembered).
//!
//! Bounded by bytes ([`Cache::new`]'s budget, which counts each entry's key, answer and a
//! fixed overhead for the tables and allocations): two generations, each at most half the
//! budget. New answers go into the young one; when it is full it becomes the old one (the
//! old one's answers are dropped) and a new young one begins. An answer found in the old one
//! is moved back into the young one, so what is asked often stays, as in a least recently
//! used list, at the cost of one lookup more for a miss.
//!
//! Only what does not change is kept: the caller stores the answers that are whole (see
//! `serve::cacheable`).

use axum::body::Bytes;
use std::collections::HashMap;
use std::sync::Mutex;

/// What an entry costs beyond its key and answer: the tables' slots (with their slack) and
/// the allocations' headers, counted high.
pub const ENTRY_OVERHEAD: usize = 192;

/// A bounded map from request to answer text; shared by the HTTP side's threads.
pub struct Cache {
    budget: usize,
    inner: Mutex<Generations>,
}

#[derive(Default)]
struct Generations {
    young: HashMap<Box<str>, Bytes>,
    young_bytes: usize,
    old: HashMap<Box<str>, Bytes>,
    old_bytes: usize,
}

fn cost(key: &str, answer: &Bytes) -> usize {
    key.len() + answer.len() + ENTRY_OVERHEAD
}

impl Generations {
    /// Put `key` in the young generation (out of either where it was), the generations
    /// turned first if it would not fit.
    fn put(&mut self, key: Box<str>, answer: Bytes, half: usize) {
        if let Some(was) = self.young.remove(&key) {
            self.young_bytes -= cost(&key, &was);
        }
        if let Some(was) = self.old.remove(&key) {
            self.old_bytes -= cost(&key, &was);
        }
        let c = cost(&key, &answer);
        if self.young_bytes + c > half {
            self.old = std::mem::take(&mut self.young);
            self.old_bytes = std::mem::take(&mut self.young_bytes);
        }
        self.young_bytes += c;
        self.young.insert(key, answer);
    }
}

impl Cache {
    /// A cache of at most `budget` bytes (0: nothing is kept).
    pub fn new(budget: usize) -> Cache {
        Cache { budget, inner: Mutex::new(Generations::default()) }
    }

    /// The most one answer may cost to be kept.
    fn largest(&self) -> usize {
        self.budget / 16
    }

    /// The answer kept for `key`, if any.
    pub fn get(&self, key: &str) -> Option<Bytes> {
        let mut g = self.inner.lock().ok()?;
        if let Some(a) = g.young.get(key) {
            return Some(a.clone());
        }
        let a = g.old.get(key)?.clone();
        g.put(key.into(), a.clone(), self.budget / 2);
        Some(a)
    }

    /// Keep `answer` for `key` (unless it costs more than a sixteenth of the budget: an
    /// eighth of a generation, so that one answer never drops most of the others).
    pub fn put(&self, key: &str, answer: Bytes) {
        if cost(key, &answer) > self.largest() {
            return;
        }
        let Ok(mut g) = self.inner.lock() else { return };
        g.put(key.into(), answer, self.budget / 2);
    }

    #[cfg(test)]
    /// The bytes the entries kept cost, as counted against the budget.
    pub fn bytes(&self) -> usize {
        self.inner.lock().map_or(0, |g| g.young_bytes + g.old_bytes)
    }

    #[cfg(test)]
    /// The entries kept.
    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |g| g.young.len() + g.old.len())
    }

    #[cfg(test)]
    /// Is nothing kept?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cost of every entry kept, counted afresh.
    fn recount(c: &Cache) -> usize {
        let g = c.inner.lock().unwrap();
        g.young.iter().chain(g.old.iter()).map(|(k, a)| k.len() + a.len() + ENTRY_OVERHEAD).sum()
    }

    #[test]
    fn the_cache_stays_within_its_budget_and_gives_back_what_was_kept() {
        let budget = 64 << 10;
        let c = Cache::new(budget);
        let mut rng = fastrand::Rng::with_seed(7);
        for i in 0..5_000 {
            let key = format!("position/{i}");
            let answer = Bytes::from(vec![b'a' + (i % 26) as u8; rng.usize(0..3_000)]);
            c.put(&key, answer.clone());
            // Asked again at once: the same bytes.
            assert_eq!(c.get(&key), Some(answer));
            assert!(c.bytes() <= budget, "{} bytes kept, over the budget of {budget}", c.bytes());
            assert_eq!(c.bytes(), recount(&c));
            // Some older one, asked again: what it was given, if kept at all.
            let j = rng.usize(0..=i);
            if let Some(a) = c.get(&format!("position/{j}")) {
                assert!(a.iter().all(|&b| b == b'a' + (j % 26) as u8));
            }
            assert_eq!(c.bytes(), recount(&c));
        }
        assert!(c.len() > 10, "only {} entries kept", c.len());
    }

    #[test]
    fn an_answer_asked_often_stays_and_one_over_a_sixteenth_of_the_budget_is_not_kept() {
        let c = Cache::new(16 << 10);
        c.put("hot", Bytes::from_static(b"{\"value\":\"tie\"}"));
        for i in 0..1_000 {
            c.put(&format!("cold/{i}"), Bytes::from(vec![b'x'; 200]));
            assert_eq!(c.get("hot").as_deref(), Some(&b"{\"value\":\"tie\"}"[..]));
        }
        assert!(c.get("cold/0").is_none());
        c.put("big", Bytes::from(vec![b'x'; 1024]));
        assert!(c.get("big").is_none());
        // The same key again: counted once.
        let before = c.bytes();
        c.put("hot", Bytes::from_static(b"{\"value\":\"tie\"}"));
        assert_eq!(c.bytes(), before);
        let none = Cache::new(0);
        none.put("a", Bytes::from_static(b"1"));
        assert!(none.get("a").is_none() && none.is_empty());
    }
}
