//! Nim-sequences of heap games: the Grundy value of one heap of every size, at sequence
//! speed, with the periodicity theorem.
//!
//! A heap game here is given by what a move may take and leave: take `k` tokens, leaving no
//! heap, one heap, or two heaps (the digits of an octal code: bit 1, 2 and 4). Subtraction
//! games are the octal games whose digits are 3. The sequence is computed by mex over a
//! bitset, and the search for a period runs at checkpoints (sizes 2^j): once
//! g(n + p) = g(n) holds for every n from n0 to 2·n0 + p + t (t the largest take), the
//! Guy–Smith periodicity theorem says it holds for ever, and the rest of the sequence is read
//! off the period.

/// The moves of a heap game: `digits[k]` for taking k tokens (bits 1, 2, 4: leave no heap,
/// one heap, two heaps). `digits[0]` is unused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapRules {
    digits: Vec<u8>,
}

impl HeapRules {
    /// From octal digits (`digits[k]` for taking k; 0 unused).
    pub fn octal(digits: &[u8]) -> HeapRules {
        let mut d = digits.to_vec();
        while d.len() > 1 && d.last() == Some(&0) {
            d.pop();
        }
        HeapRules { digits: d }
    }

    /// A subtraction game: take any number in `set` from a heap (digit 3 for each).
    pub fn subtract(set: &[u64]) -> HeapRules {
        let top = set.iter().copied().max().unwrap_or(0) as usize;
        let mut digits = vec![0u8; top + 1];
        for &k in set {
            digits[k as usize] |= 3;
        }
        Self::octal(&digits)
    }

    /// Both games' moves (a player may make either kind).
    pub fn union(&self, other: &HeapRules) -> HeapRules {
        let n = self.digits.len().max(other.digits.len());
        let at = |d: &[u8], i: usize| d.get(i).copied().unwrap_or(0);
        Self::octal(&(0..n).map(|i| at(&self.digits, i) | at(&other.digits, i)).collect::<Vec<_>>())
    }

    /// The largest take.
    pub fn max_take(&self) -> usize {
        self.digits.len().saturating_sub(1)
    }
}

/// A nim-sequence, computed as far as needed.
#[derive(Clone, Debug)]
pub struct NimSequence {
    rules: HeapRules,
    values: Vec<u64>,
    /// (preperiod n0, period p), once confirmed.
    period: Option<(usize, usize)>,
}

/// Periods looked for at a checkpoint are at most this long (a longer one is not found).
pub const MAX_PERIOD: usize = 1 << 14;

impl NimSequence {
    pub fn new(rules: HeapRules) -> NimSequence {
        NimSequence { rules, values: Vec::new(), period: None }
    }

    /// (preperiod, period) once the periodicity theorem has confirmed it.
    pub fn period(&self) -> Option<(usize, usize)> {
        self.period
    }

    /// How many values were computed by mex (the rest come from the period).
    pub fn computed(&self) -> usize {
        self.values.len()
    }

    /// g(n).
    pub fn get(&mut self, n: usize) -> u64 {
        if let Some((n0, p)) = self.period
            && n >= n0
        {
            return self.values[n0 + (n - n0) % p];
        }
        self.extend_to(n);
        match self.period {
            Some((n0, p)) if n >= n0 => self.values[n0 + (n - n0) % p],
            _ => self.values[n],
        }
    }

    /// Compute values up to `n` (or until the period is confirmed).
    pub fn extend_to(&mut self, n: usize) {
        let mut seen: Vec<bool> = Vec::new();
        while self.values.len() <= n && self.period.is_none() {
            let m = self.values.len();
            let g = self.mex_at(m, &mut seen);
            self.values.push(g);
            let len = self.values.len();
            if len >= 8 && len.is_power_of_two() {
                self.find_period();
            }
        }
        if self.period.is_none() && self.values.len() > 8 {
            self.find_period();
        }
    }

    fn mex_at(&self, n: usize, seen: &mut Vec<bool>) -> u64 {
        seen.clear();
        let g = &self.values;
        let mut mark = |v: u64| {
            let v = v as usize;
            if v >= seen.len() {
                seen.resize(v + 1, false);
            }
            seen[v] = true;
        };
        for (k, &d) in self.rules.digits.iter().enumerate().skip(1) {
            if k > n {
                break;
            }
            if d & 1 != 0 && n == k {
                mark(0);
            }
            if d & 2 != 0 && n > k {
                mark(g[n - k]);
            }
            if d & 4 != 0 && n >= k + 2 {
                let rest = n - k;
                for a in 1..=rest / 2 {
                    mark(g[a] ^ g[rest - a]);
                }
            }
        }
        seen.iter().position(|&s| !s).unwrap_or(seen.len()) as u64
    }

    /// Look for the shortest period confirmed by the values so far: for each p, the
    /// smallest n0 with g(m + p) = g(m) for n0 ≤ m < len − p, confirmed when
    /// len − p ≥ 2·n0 + p + t (the Guy–Smith theorem for finite octal games).
    fn find_period(&mut self) {
        let g = &self.values;
        let len = g.len();
        let t = self.rules.max_take();
        for p in 1..=(len / 2).min(MAX_PERIOD) {
            let mut n0 = len - p;
            while n0 > 0 && g[n0 - 1 + p] == g[n0 - 1] {
                n0 -= 1;
            }
            // Checked: m in n0..len-p. Needed: m < 2·n0 + p + t.
            if len - p >= 2 * n0 + p + t {
                self.period = Some((n0, p));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nim_like_subtraction_and_mex() {
        // Take 1 or 2: g(n) = n mod 3, period 3 from 0.
        let mut s = NimSequence::new(HeapRules::subtract(&[1, 2]));
        assert_eq!((0..10).map(|n| s.get(n)).collect::<Vec<_>>(), vec![0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(s.period(), Some((0, 3)));
    }
}
