//! The positions reachable from a root, walked through a saved tier solve.
//!
//! A tier solve ([`super::tier`]) solves every index of every tier, reachable from the
//! start or not. `analyze`, `export` and `db bench` want the positions a game from the root
//! can reach: this walk finds them from the finished arrays alone, one bit an index.
//!
//! The tiers are walked root first (the reverse of the solve's order), so a tier is walked
//! once every tier that moves into it has been: its reached indices are then known from
//! its parents, and a breadth-first search inside the tier (on every core) adds those
//! reached by moves that stay in the tier. Children come from [`TierSpace::children_at`]
//! (representatives under symmetry), so what is reached is one index a symmetry class.
//! A position whose record says it is over (remoteness 0) is not expanded.
//!
//! Memory: a bit an index of every tier walked, plus the tier being walked's records (2
//! bytes an index) and two bits an index for its frontier (this round's and the next),
//! checked against the budget before anything is allocated.

use crate::db::array::{ArrayDb, TierArray, unrec};
use crate::game::tier::{Tier, TierSpace, tier_order};
use crate::game::{GameError, GameResult};
use crate::progress::Progress;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// A tier's reached indices, one bit each.
pub struct Reached {
    words: Vec<AtomicU64>,
}

impl Reached {
    fn new(size: u64) -> Reached {
        Reached { words: (0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect() }
    }

    /// Mark `i`; whether it was marked before.
    fn set(&self, i: u64) -> bool {
        let bit = 1u64 << (i % 64);
        self.words[(i / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit != 0
    }

    /// Whether `i` is marked.
    pub fn has(&self, i: u64) -> bool {
        self.words.get((i / 64) as usize).is_some_and(|w| w.load(Ordering::Relaxed) >> (i % 64) & 1 == 1)
    }

    /// The marked indices, in order.
    pub fn indices(&self) -> impl Iterator<Item = u64> + '_ {
        marked(&self.words, 0)
    }

    /// How many indices are marked.
    pub fn count(&self) -> u64 {
        self.words.iter().map(|w| w.load(Ordering::Relaxed).count_ones() as u64).sum()
    }
}

/// The indices marked in `words`, in order, the first word's first bit being index `first`.
fn marked(words: &[AtomicU64], first: u64) -> impl Iterator<Item = u64> + '_ {
    words.iter().enumerate().flat_map(move |(w, word)| {
        let mut bits = word.load(Ordering::Relaxed);
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let b = bits.trailing_zeros() as u64;
            bits &= bits - 1;
            Some(first + w as u64 * 64 + b)
        })
    })
}

/// What the walk calls with each tier walked: the tier, its records (and Grundy values,
/// where the tier has them), its reached indices.
pub type Visit<'a> = dyn FnMut(Tier, &TierArray, &Reached) -> GameResult<()> + 'a;

/// Bytes the walk from `root`'s tier needs at most (see the module's note on memory).
pub fn walk_bytes(space: &dyn TierSpace, order: &[Tier]) -> u64 {
    let bits: u64 = order.iter().map(|&t| space.tier_size(t).div_ceil(64) * 8).sum();
    let largest = order.iter().map(|&t| space.tier_size(t)).max().unwrap_or(0);
    bits + largest * 2 + 2 * largest.div_ceil(64) * 8
}

/// Walk every position reachable from `root` (a representative: the tier and index of
/// the root's canonical form) through the saved arrays of `db`. For each tier, root first,
/// `visit` gets the tier, its records and its reached indices. `None` when a tier the walk
/// needs is not saved (the solve did not finish). Positions reached are counted on
/// `progress`; the time limit is checked between rounds of the search.
pub fn walk(
    space: &dyn TierSpace,
    db: &ArrayDb,
    root: (Tier, u64),
    budget: usize,
    progress: &Progress,
    visit: &mut Visit<'_>,
) -> GameResult<Option<()>> {
    let mut order = tier_order(space, root.0);
    order.reverse();
    for &t in &order {
        if !db.has(t, space.tier_size(t))? {
            return Ok(None);
        }
    }
    let need = walk_bytes(space, &order);
    if need > budget as u64 {
        return Err(GameError::OutOfMemory(format!(
            "walking the positions reachable from the root needs {:.1} MiB (a bit a position of {} tiers), more than \
             the memory budget of {:.1} MiB (raise it with --max-memory)",
            need as f64 / (1 << 20) as f64,
            order.len(),
            budget as f64 / (1 << 20) as f64
        )));
    }
    let mut reached: HashMap<Tier, Reached> = order.iter().map(|&t| (t, Reached::new(space.tier_size(t)))).collect();
    if root.1 >= space.tier_size(root.0) {
        return Err(GameError::Unsupported(format!(
            "the root's index {} is past its tier {}",
            root.1,
            space.tier_name(root.0)
        )));
    }
    reached[&root.0].set(root.1);
    let mut walked = 0u64;
    for &t in &order {
        let array = db.load_full(t, space.tier_size(t))?;
        let records = &array.records;
        if records.len() as u64 != space.tier_size(t) {
            return Err(GameError::Database(format!(
                "{}: tier {} holds {} records, the game says {}",
                db.path().display(),
                space.tier_name(t),
                records.len(),
                space.tier_size(t)
            )));
        }
        let here = reached.remove(&t).expect("every tier of the walk has its bits");
        let size = space.tier_size(t);
        let mut frontier = Reached::new(size);
        for (f, h) in frontier.words.iter_mut().zip(&here.words) {
            *f.get_mut() = h.load(Ordering::Relaxed);
        }
        let mut round = frontier.count();
        while round > 0 {
            if progress.expired() {
                return Err(GameError::TimeLimit(format!(
                    "the time limit ran out walking tier {} ({walked} positions reached so far)",
                    space.tier_name(t)
                )));
            }
            walked += round;
            progress.tick(walked, 0)?;
            let next = Reached::new(size);
            // Each task takes 64 words of the frontier: 4,096 indices.
            frontier.words.par_chunks(64).enumerate().try_for_each(|(c, words)| -> GameResult<()> {
                let mut kids = Vec::new();
                for i in marked(words, c as u64 * 64 * 64) {
                    // A game over (a primitive or a stalemate) has no moves to follow.
                    match unrec(records[i as usize]) {
                        Some((_, Some(0))) => continue,
                        Some(_) => {}
                        None => {
                            return Err(GameError::Database(format!(
                                "{}: tier {} index {i} is reached but has no record",
                                db.path().display(),
                                space.tier_name(t)
                            )));
                        }
                    }
                    kids.clear();
                    space.children_at(t, i, &mut kids);
                    for &(ct, ci) in &kids {
                        let Some(bits) = (if ct == t { Some(&here) } else { reached.get(&ct) }) else {
                            return Err(GameError::Unsupported(format!(
                                "a move from tier {} leads to tier {}, which is not among its child tiers",
                                space.tier_name(t),
                                space.tier_name(ct)
                            )));
                        };
                        if ci >= space.tier_size(ct) {
                            return Err(GameError::Unsupported(format!(
                                "a move leads to index {ci}, past the size of tier {}",
                                space.tier_name(ct)
                            )));
                        }
                        if !bits.set(ci) && ct == t {
                            next.set(ci);
                        }
                    }
                }
                Ok(())
            })?;
            frontier = next;
            round = frontier.count();
            if let Some(e) = space.failure() {
                return Err(e);
            }
        }
        // This tier's bits are not needed after: every tier moving into it came before.
        visit(t, &array, &here)?;
    }
    Ok(Some(()))
}
