//! Heap games whose moves keep the tokens (`Split`, `SplitEqual`, `MergeUnequal`: Grundy's
//! game, Fair Shares and Varied Pairs) as 128-bit keys for the search of value and
//! remoteness.
//!
//! Every position reachable from a start of `t` tokens is a partition of `t`. A partition
//! p1 ≥ p2 ≥ … ≥ pk is written as `t` bits: from the lowest, p1 − 1 zeros and a one, then
//! p2 − 1 zeros and a one, and so on, so the ones stand at the sums p1, p1 + p2, … (less one)
//! and the last at bit t − 1. Different partitions have different keys, and every key is a
//! sorted multiset of heaps: no symmetry is left to fold. Up to 128 tokens fit.

use super::load::Family;

/// A partition as (size, count) pairs, largest size first: at most 15 sizes for 128 tokens
/// (1 + 2 + … + 16 is more), and room for the sizes a move adds.
pub(super) type Parts = [(u32, u32); 20];

/// The moves of heaps that keep their tokens, as changes to a partition: each a list of
/// (size, heaps of it that come or go), sizes distinct and largest first. Shared by the keys
/// here and the tiers of `heap_tiers.rs`, which also undo them.
pub(super) struct HeapMoves {
    split: bool,
    split_equal: bool,
    merge: bool,
    /// The proper divisors of each size up to the most tokens (the sizes of equal shares).
    divisors: Vec<Vec<u32>>,
}

impl HeapMoves {
    /// The moves of `families` on up to `total` tokens; `None` unless every family keeps
    /// the tokens.
    pub(super) fn new(families: &[Family], total: u32) -> Option<HeapMoves> {
        if families.is_empty() || !families.iter().all(Family::keeps_tokens) {
            return None;
        }
        let has = |f: fn(&Family) -> bool| families.iter().any(f);
        Some(HeapMoves {
            split: has(|f| matches!(f, Family::Split)),
            split_equal: has(|f| matches!(f, Family::SplitEqual)),
            merge: has(|f| matches!(f, Family::MergeUnequal)),
            divisors: (0..=total).map(|s| (1..=s / 2).filter(|y| s % y == 0).collect()).collect(),
        })
    }

    /// Whether a move splits into equal heaps or merges (the game does not split into a sum).
    pub(super) fn joins(&self) -> bool {
        self.split_equal || self.merge
    }

    /// Each move from `parts`, as the change it makes.
    pub(super) fn children(&self, parts: &[(u32, u32)], mut f: impl FnMut(&[(u32, i32)])) {
        for &(s, _) in parts {
            if self.split_equal {
                for &y in &self.divisors[s as usize] {
                    f(&[(s, -1), (y, (s / y) as i32)]);
                }
            }
            if self.split {
                split_in_two(s, &mut f);
            }
        }
        if self.merge {
            two_unequal_merged(parts, &mut f);
        }
    }

    /// Each move to `parts` undone, as the change it makes: equal heaps merged back into the
    /// heap they were split from, a heap split back into the two unequal heaps merged into
    /// it, and two unequal heaps merged back into the heap split into them.
    pub(super) fn parents(&self, parts: &[(u32, u32)], mut f: impl FnMut(&[(u32, i32)])) {
        if self.split_equal {
            for &(y, c) in parts {
                for d in 2..=c {
                    f(&[(d * y, 1), (y, -(d as i32))]);
                }
            }
        }
        if self.merge {
            for &(s, _) in parts {
                split_in_two(s, &mut f);
            }
        }
        if self.split {
            two_unequal_merged(parts, &mut f);
        }
    }
}

/// A heap of `s` split into two unequal heaps, each way.
fn split_in_two(s: u32, f: &mut impl FnMut(&[(u32, i32)])) {
    for a in 1..=(s - 1) / 2 {
        f(&[(s, -1), (s - a, 1), (a, 1)]);
    }
}

/// Each two heaps of different sizes merged.
fn two_unequal_merged(parts: &[(u32, u32)], f: &mut impl FnMut(&[(u32, i32)])) {
    for i in 0..parts.len() {
        for j in i + 1..parts.len() {
            let (a, b) = (parts[i].0, parts[j].0);
            f(&[(a + b, 1), (a, -1), (b, -1)]);
        }
    }
}

pub(super) struct HeapKeys {
    total: u32,
    moves: HeapMoves,
    /// The bits of `count` heaps of `size`, from bit 0: `masks[offsets[size] + count]`.
    masks: Vec<u128>,
    offsets: Vec<usize>,
}

impl HeapKeys {
    /// Keys for the positions below `heaps` when every family keeps the tokens and there
    /// are 1 to 128 of them; `None` otherwise.
    pub(super) fn new(families: &[Family], heaps: &[u64]) -> Option<HeapKeys> {
        let total = heaps.iter().try_fold(0u64, |a, &n| a.checked_add(n))?;
        if total == 0 || total > 128 {
            return None;
        }
        let total = total as u32;
        let moves = HeapMoves::new(families, total)?;
        let mut masks = Vec::new();
        let mut offsets = vec![0; total as usize + 1];
        for size in 1..=total {
            offsets[size as usize] = masks.len();
            let mut m = 0u128;
            masks.push(0);
            for c in 1..=total / size {
                m |= 1u128 << (c * size - 1);
                masks.push(m);
            }
        }
        Some(HeapKeys { total, moves, masks, offsets })
    }

    fn encode(&self, parts: &[(u32, u32)]) -> u128 {
        let (mut key, mut at) = (0u128, 0u32);
        for &(size, count) in parts {
            if count > 0 {
                key |= self.masks[self.offsets[size as usize] + count as usize] << at;
                at += size * count;
            }
        }
        key
    }

    /// The (size, count) pairs of a key, largest first, in `out`; how many.
    fn decode(key: u128, out: &mut Parts) -> usize {
        let (mut k, mut prev, mut n) = (key, 0u32, 0usize);
        while k != 0 {
            let bit = k.trailing_zeros() + 1;
            k &= k - 1;
            let part = bit - prev;
            prev = bit;
            if n > 0 && out[n - 1].0 == part {
                out[n - 1].1 += 1;
            } else {
                out[n] = (part, 1);
                n += 1;
            }
        }
        n
    }

    /// The key of `parts` changed by `deltas` (a size, and how many heaps of it come or go).
    fn changed(&self, parts: &[(u32, u32)], deltas: &[(u32, i32)]) -> u128 {
        let mut buf: Parts = [(0, 0); 20];
        let mut n = parts.len();
        buf[..n].copy_from_slice(parts);
        for &(size, d) in deltas {
            let mut i = 0;
            while i < n && buf[i].0 > size {
                i += 1;
            }
            if i < n && buf[i].0 == size {
                buf[i].1 = buf[i].1.wrapping_add_signed(d);
            } else {
                buf.copy_within(i..n, i + 1);
                buf[i] = (size, d as u32);
                n += 1;
            }
        }
        self.encode(&buf[..n])
    }
}

impl HeapKeys {
    /// The key of heaps `h`; `None` when they do not hold the start's total.
    pub(super) fn pack(&self, h: &[u64]) -> Option<u128> {
        let mut sizes: Vec<u64> = h.iter().copied().filter(|&n| n > 0).collect();
        if sizes.iter().sum::<u64>() != u64::from(self.total) {
            return None;
        }
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let parts: Vec<(u32, u32)> = sizes.iter().map(|&s| (s as u32, 1)).collect();
        Some(self.encode(&parts))
    }

    /// The heaps smallest first, as the game's own `canonical` writes them.
    pub(super) fn unpack(&self, key: u128) -> Vec<u64> {
        let mut parts: Parts = [(0, 0); 20];
        let n = Self::decode(key, &mut parts);
        let mut h = Vec::new();
        for &(size, count) in parts[..n].iter().rev() {
            h.extend(std::iter::repeat_n(u64::from(size), count as usize));
        }
        h
    }

    /// The keys one move from `key`, pushed on `out`.
    pub(super) fn children(&self, key: u128, out: &mut Vec<u128>) {
        let mut parts: Parts = [(0, 0); 20];
        let n = Self::decode(key, &mut parts);
        self.moves.children(&parts[..n], |d| out.push(self.changed(&parts[..n], d)));
    }
}
