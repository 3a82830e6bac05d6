//! Heap games whose moves keep the tokens and that do not split into a sum (`SplitEqual`,
//! `MergeUnequal`, with or without `Split`: Fair Shares and Varied Pairs) numbered for the
//! tier solver.
//!
//! Every position of `t` tokens is a partition of `t`: tier `t`, one tier a total, no move
//! leaving it. The index is the partition's rank among the partitions of `t`, ordered by
//! their largest part, then the rest likewise: with `cnt(n, k)` the partitions of `n` into
//! parts of at most `k`, the partition p1 ≥ p2 ≥ … of `t` has rank
//! `cnt(t, p1 − 1) + cnt(t − p1, p2 − 1) + …` (a part of 1 adds nothing). Every index is a
//! position and no two positions share one; there is no symmetry left to fold, a position
//! being a multiset of heaps. A move's inverse is a move of the same families, so the
//! game gives its parents: a split into equal heaps is undone by merging two or more equal
//! heaps, a merge of two unequal heaps by a split into two unequal heaps, and the other way
//! round.

use super::heap_keys::{HeapMoves, Parts};
use super::load::Family;
use super::pos::DPos;
use crate::game::Value;
use crate::game::tier::{Tier, TierSpace, Tiers};

/// The most tokens a tier numbers (p(128) = 4,351,078,600 partitions: the tier solver
/// refuses a tier a move stays in past 2^32 indices, with its size).
pub(super) const MAX_HEAP_TOKENS: u32 = 128;

/// The tier of heaps of more tokens than [`MAX_HEAP_TOKENS`]: not numbered.
const BIG: Tier = 1 << 63;

pub(super) struct HeapTiers {
    moves: HeapMoves,
    /// `cnt[n * W + k]`: the partitions of `n` into parts of at most `k`.
    cnt: Vec<u64>,
    /// `chain[s * W + r]`: `cnt(r, s − 1) + cnt(r − s, s − 1) + …` down to 0, so that `c` heaps
    /// of `s` with `r` tokens left before them add `chain(s, r) − chain(s, r − c·s)` to a rank.
    chain: Vec<u64>,
}

const W: usize = MAX_HEAP_TOKENS as usize + 1;

impl HeapTiers {
    /// Tiers for heaps moved only by families that keep the tokens, one of them a split into
    /// equal heaps or a merge; `None` otherwise.
    pub(super) fn new(families: &[Family]) -> Option<HeapTiers> {
        let moves = HeapMoves::new(families, MAX_HEAP_TOKENS)?;
        if !moves.joins() {
            return None;
        }
        let mut cnt = vec![0u64; W * W];
        // The empty partition of 0, whatever the bound.
        cnt[..W].fill(1);
        for n in 1..W {
            for k in 1..W {
                let without_k = cnt[n * W + k - 1];
                let with_k = if k <= n { cnt[(n - k) * W + k] } else { 0 };
                cnt[n * W + k] = without_k + with_k;
            }
        }
        let mut chain = vec![0u64; W * W];
        for size in 1..W {
            for r in 0..W {
                let below = if r >= size { chain[size * W + r - size] } else { 0 };
                chain[size * W + r] = cnt[r * W + size - 1] + below;
            }
        }
        Some(HeapTiers { moves, cnt, chain })
    }

    /// What `count` heaps of `size`, with `left` tokens left before them, add to a rank.
    fn group(&self, size: u32, count: u32, left: u32) -> u64 {
        let at = size as usize * W;
        self.chain[at + left as usize] - self.chain[at + (left - size * count) as usize]
    }

    fn cnt(&self, n: u32, k: u32) -> u64 {
        self.cnt[n as usize * W + k as usize]
    }

    /// The rank of `parts` (largest size first; counts of 0 allowed) among the partitions of
    /// their total `n`.
    fn rank(&self, n: u32, parts: &[(u32, u32)]) -> u64 {
        let (mut r, mut left) = (0, n);
        for &(size, count) in parts {
            if size == 1 {
                break;
            }
            r += self.group(size, count, left);
            left -= size * count;
        }
        r
    }

    /// The partition of `n` at `index`, in `out`; how many sizes.
    fn unrank(&self, n: u32, mut index: u64, out: &mut Parts) -> usize {
        let (mut left, mut max, mut len) = (n, n, 0usize);
        while left > 0 {
            // The largest part p with cnt(left, p − 1) ≤ index (p = 1 always qualifies).
            let (mut lo, mut hi) = (1, max.min(left));
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if self.cnt(left, mid - 1) <= index { lo = mid } else { hi = mid - 1 }
            }
            let p = lo;
            if p == 1 {
                push(out, &mut len, 1, left);
                break;
            }
            index -= self.cnt(left, p - 1);
            push(out, &mut len, p, 1);
            left -= p;
            max = p;
        }
        len
    }

    /// The rank of `parts` changed by `deltas` (a size, and how many heaps of it come or go;
    /// each size once, largest first): the two lists walked together, largest size first.
    fn changed(&self, n: u32, parts: &[(u32, u32)], deltas: &[(u32, i32)]) -> u64 {
        let (mut r, mut left) = (0, n);
        let (mut i, mut j) = (0, 0);
        while left > 0 {
            let (size, count) = match (parts.get(i), deltas.get(j)) {
                (Some(&(s, c)), Some(&(ds, d))) if s == ds => {
                    (i, j) = (i + 1, j + 1);
                    (s, c.wrapping_add_signed(d))
                }
                (Some(&(s, c)), Some(&(ds, _))) if s > ds => {
                    i += 1;
                    (s, c)
                }
                (_, Some(&(ds, d))) => {
                    j += 1;
                    (ds, d as u32)
                }
                (Some(&(s, c)), None) => {
                    i += 1;
                    (s, c)
                }
                (None, None) => break,
            };
            if size == 1 {
                break;
            }
            r += self.group(size, count, left);
            left -= size * count;
        }
        r
    }

    fn at(&self, tier: Tier, index: u64, out: &mut Parts) -> usize {
        if tier & BIG != 0 { 0 } else { self.unrank(tier as u32, index, out) }
    }
}

/// Add `count` heaps of `size` (smaller than any before) to `out`.
fn push(out: &mut Parts, len: &mut usize, size: u32, count: u32) {
    if *len > 0 && out[*len - 1].0 == size {
        out[*len - 1].1 += count;
    } else {
        out[*len] = (size, count);
        *len += 1;
    }
}

impl TierSpace for HeapTiers {
    fn child_tiers(&self, _tier: Tier) -> Vec<Tier> {
        Vec::new()
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        if tier & BIG != 0 { u64::MAX } else { self.cnt(tier as u32, tier as u32) }
    }

    fn tier_name(&self, tier: Tier) -> String {
        if tier & BIG != 0 {
            format!("{} tokens (positions by index number heaps of at most {MAX_HEAP_TOKENS} tokens)", tier & !BIG)
        } else {
            format!("{tier} tokens")
        }
    }

    /// No heap position ends but by having no move (the game's stalemate).
    fn primitive_at(&self, _tier: Tier, _index: u64) -> Option<Value> {
        None
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let mut parts: Parts = [(0, 0); 20];
        let len = self.at(tier, index, &mut parts);
        let parts = &parts[..len];
        self.moves.children(parts, |d| out.push((tier, self.changed(tier as u32, parts, d))));
    }

    fn has_parents(&self) -> bool {
        true
    }

    /// Each move undone ([`HeapMoves::parents`]).
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let mut parts: Parts = [(0, 0); 20];
        let len = self.at(tier, index, &mut parts);
        let parts = &parts[..len];
        self.moves.parents(parts, |d| out.push((tier, self.changed(tier as u32, parts, d))));
    }
}

impl Tiers for HeapTiers {
    type Pos = DPos;

    fn locate(&self, pos: &DPos) -> (Tier, u64) {
        let DPos::Heaps(h) = pos else { return (BIG, 0) };
        let total = h.iter().fold(0u64, |a, &n| a.saturating_add(n));
        if total > u64::from(MAX_HEAP_TOKENS) {
            return (BIG | total.min(!BIG), 0);
        }
        let mut sizes: Vec<u32> = h.iter().filter(|&&n| n > 0).map(|&n| n as u32).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let parts: Vec<(u32, u32)> = sizes.iter().map(|&s| (s, 1)).collect();
        (total, self.rank(total as u32, &parts))
    }

    /// The heaps smallest first, as the game's own `canonical` writes them.
    fn position(&self, tier: Tier, index: u64) -> DPos {
        let mut parts: Parts = [(0, 0); 20];
        let len = self.at(tier, index, &mut parts);
        let mut h = Vec::new();
        for &(size, count) in parts[..len].iter().rev() {
            h.extend(std::iter::repeat_n(u64::from(size), count as usize));
        }
        DPos::Heaps(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fsvp() -> HeapTiers {
        HeapTiers::new(&[Family::SplitEqual, Family::MergeUnequal]).unwrap()
    }

    /// The partition numbers p(n) (OEIS A000041): p(10) = 42, p(50) = 204,226, p(80) =
    /// 15,796,476, p(100) = 190,569,292.
    #[test]
    fn tier_sizes_are_the_partition_numbers() {
        let t = fsvp();
        let p: Vec<u64> = [0, 1, 2, 3, 4, 5, 10, 50, 80, 100].iter().map(|&n| t.tier_size(n)).collect();
        assert_eq!(p, [1, 1, 2, 3, 5, 7, 42, 204_226, 15_796_476, 190_569_292]);
    }

    /// Every index of tiers up to 30 is a partition of the tier's total that ranks back to
    /// it, and no two indices give the same partition.
    #[test]
    fn indices_and_partitions_are_one_to_one() {
        let t = fsvp();
        for n in 0..=30u64 {
            let mut seen = std::collections::HashSet::new();
            for i in 0..t.tier_size(n) {
                let DPos::Heaps(h) = t.position(n, i) else { panic!() };
                assert_eq!(h.iter().sum::<u64>(), n);
                assert!(h.windows(2).all(|w| w[0] <= w[1]), "{h:?}");
                assert_eq!(t.locate(&DPos::Heaps(h.clone())), (n, i), "{h:?}");
                assert!(seen.insert(h));
            }
        }
    }

    /// Each position's parents are the positions that list it among their children, and
    /// the children are the moves of Fair Shares and Varied Pairs written out by hand.
    #[test]
    fn parents_are_the_children_inverted() {
        let t = fsvp();
        let heaps = |n: u64, i: u64| match t.position(n, i) {
            DPos::Heaps(h) => h,
            _ => unreachable!(),
        };
        for n in 1..=24u64 {
            let size = t.tier_size(n);
            let mut up = vec![std::collections::BTreeSet::new(); size as usize];
            for i in 0..size {
                let mut kids = Vec::new();
                t.children_at(n, i, &mut kids);
                // The moves by hand: each heap split into equal heaps, each pair of unequal
                // heaps merged.
                let h = heaps(n, i);
                let mut by_hand = std::collections::BTreeSet::new();
                for (k, &s) in h.iter().enumerate() {
                    for y in (1..s).filter(|y| s % y == 0) {
                        let mut c: Vec<u64> = h.iter().enumerate().filter(|&(j, _)| j != k).map(|(_, &x)| x).collect();
                        c.extend(std::iter::repeat_n(y, (s / y) as usize));
                        c.sort_unstable();
                        by_hand.insert(c);
                    }
                    for (l, &b) in h.iter().enumerate().skip(k + 1) {
                        if b != s {
                            let mut c: Vec<u64> =
                                h.iter().enumerate().filter(|&(j, _)| j != k && j != l).map(|(_, &x)| x).collect();
                            c.push(s + b);
                            c.sort_unstable();
                            by_hand.insert(c);
                        }
                    }
                }
                let listed: std::collections::BTreeSet<Vec<u64>> =
                    kids.iter().map(|&(tier, j)| heaps(tier, j)).collect();
                assert_eq!(listed, by_hand, "{h:?}");
                assert_eq!(listed.len(), kids.len(), "{h:?}: no move listed twice");
                for &(_, j) in &kids {
                    up[j as usize].insert(i);
                }
            }
            for (j, want) in up.iter().enumerate() {
                let mut got = Vec::new();
                t.parents_at(n, j as u64, &mut got);
                let got: std::collections::BTreeSet<u64> = got.iter().map(|&(_, i)| i).collect();
                assert_eq!(&got, want, "{:?}", heaps(n, j as u64));
            }
        }
    }
}
