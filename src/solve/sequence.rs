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
//!
//! Moves that split a heap in two make a plain mex cost O(n) per heap. Where the values fall
//! into a few *rare* ones and many *common* ones (the "sparse space" of Gangolli and
//! Plambeck; the RC method of Beling's `ogs`), the engine chooses a set C of common values
//! no two of which xor to a third, so a split can only give a value of C if one of its two
//! heaps has a rare value. The options in C are then found from the rare heaps alone, and
//! the whole list of splits is read only while the smallest missing value is rare.

use crate::game::{GameError, GameResult};
use crate::progress::Progress;

/// The moves of a heap game: `digits[k]` for taking k tokens (bits 1, 2, 4: leave no heap,
/// one heap, two heaps), and `tail` for every take from `digits.len()` on (an octal code
/// whose last digit repeats for ever, like Nim's 0.3̇). `digits[0]` is unused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapRules {
    digits: Vec<u8>,
    tail: u8,
    /// A heap may also be split, taking nothing, into two unequal non-empty heaps (Grundy's
    /// game). Not an octal digit: the octal digit 4 allows equal heaps.
    unequal: bool,
}

impl HeapRules {
    /// From octal digits (`digits[k]` for taking k; 0 unused).
    pub fn octal(digits: &[u8]) -> HeapRules {
        let mut d = digits.to_vec();
        while d.len() > 1 && d.last() == Some(&0) {
            d.pop();
        }
        HeapRules { digits: d, tail: 0, unequal: false }
    }

    /// Octal digits whose last one repeats for ever (`digits` has at least one after 0).
    pub fn repeating(digits: &[u8]) -> HeapRules {
        let tail = digits.last().copied().unwrap_or(0);
        if tail == 0 {
            return Self::octal(digits);
        }
        HeapRules { digits: digits.to_vec(), tail, unequal: false }
    }

    /// Nim: take any number from one heap (0.3̇).
    pub fn take_any() -> HeapRules {
        HeapRules { digits: vec![0, 3], tail: 3, unequal: false }
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

    /// Grundy's game: split a heap into two unequal non-empty heaps (and no other move).
    pub fn split_unequal() -> HeapRules {
        HeapRules { digits: vec![0], tail: 0, unequal: true }
    }

    /// Whether a heap may be split, taking nothing, into two unequal heaps.
    pub fn splits_unequal(&self) -> bool {
        self.unequal
    }

    /// The digit for taking `k`.
    pub fn digit(&self, k: usize) -> u8 {
        self.digits.get(k).copied().unwrap_or(self.tail)
    }

    /// Both games' moves (a player may make either kind).
    pub fn union(&self, other: &HeapRules) -> HeapRules {
        let n = self.digits.len().max(other.digits.len());
        let digits: Vec<u8> = (0..n).map(|k| if k == 0 { 0 } else { self.digit(k) | other.digit(k) }).collect();
        let tail = self.tail | other.tail;
        let unequal = self.unequal || other.unequal;
        let mut r = if tail == 0 { Self::octal(&digits) } else { HeapRules { digits, tail, unequal: false } };
        r.unequal = unequal;
        r
    }

    /// The takes given digit by digit (those after repeat the last).
    pub fn explicit(&self) -> usize {
        self.digits.len() - 1
    }

    /// Whether the last digit repeats for ever.
    pub fn repeats(&self) -> bool {
        self.tail != 0
    }

    /// Whether some move leaves two heaps.
    pub fn splits(&self) -> bool {
        self.unequal || self.tail & 4 != 0 || self.digits.iter().any(|d| d & 4 != 0)
    }

    /// The largest take, when there is one.
    pub fn max_take(&self) -> Option<usize> {
        (self.tail == 0).then(|| self.digits.len().saturating_sub(1))
    }
}

/// How the values are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Every option of every heap.
    Plain,
    /// The rare/common split, where the game has moves that split a heap (else as `Plain`).
    RareCommon,
}

/// A nim-sequence, computed as far as needed.
#[derive(Clone, Debug)]
pub struct NimSequence {
    rules: HeapRules,
    /// The takes that may leave two heaps; 0 (first) for the unequal split of Grundy's game.
    splits: Vec<usize>,
    values: Vec<u32>,
    /// (preperiod n0, period p), once confirmed.
    period: Option<(usize, usize)>,
    method: Method,
    split: Box<RareCommon>,
    marks: Bits,
    /// Splits read for the values computed so far.
    splits_read: u64,
    /// With a repeating digit: the options every heap from here on has (the heaps a take
    /// from the tail leaves), and the least value not among them.
    tail_options: Bits,
    tail_mex: usize,
    /// The options of one heap from the finite digits, without splits.
    few: Vec<u32>,
    /// With a repeating digit: an (arithmetic) period the values show, not proved.
    pattern: Option<Pattern>,
}

/// g(n + p) = g(n) + s for n0 ≤ n ≤ to, as far as the values go (seen, not proved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub n0: usize,
    pub period: usize,
    pub saltus: u64,
    /// The last n + p the values check.
    pub to: usize,
}

/// The rare values of a sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rare {
    /// Each value, with its heap's parity (0 or 1) where the split pairs them.
    pub values: Vec<(u64, Option<u8>)>,
    /// How many heaps have a rare value (heap 0 included).
    pub heaps: usize,
}

/// Periods looked for at a checkpoint are at most this long (a longer one is not found).
pub const MAX_PERIOD: usize = 1 << 14;

/// Values computed by mex at most (4 bytes each): past this without a period, `value` says
/// it cannot tell.
pub const MAX_COMPUTED: usize = 1 << 27;

/// The same for a code with a repeating digit, whose values grow with n and whose periods,
/// when there are any, the engine cannot prove.
pub const MAX_COMPUTED_REPEATING: usize = 1 << 24;

/// The same when the repeating digit splits (4 to 7): each value then reads n/2 xors, so
/// 2^17 values take about 10 s.
pub const MAX_COMPUTED_REPEATING_SPLITS: usize = 1 << 17;

impl NimSequence {
    pub fn new(rules: HeapRules) -> NimSequence {
        Self::with_method(rules, Method::RareCommon)
    }

    pub fn with_method(rules: HeapRules, method: Method) -> NimSequence {
        // The rare/common split is for finite codes; with a repeating digit, values grow.
        let method = if rules.tail != 0 { Method::Plain } else { method };
        // Take 0 stands for the unequal split (Grundy's game): no octal digit takes 0.
        let unequal = rules.unequal.then_some(0);
        let splits = unequal.into_iter().chain((1..rules.digits.len()).filter(|&k| rules.digits[k] & 4 != 0)).collect();
        NimSequence {
            rules,
            splits,
            values: Vec::new(),
            period: None,
            method,
            split: Box::default(),
            marks: Bits::default(),
            splits_read: 0,
            tail_options: Bits::default(),
            tail_mex: 0,
            few: Vec::new(),
            pattern: None,
        }
    }

    /// The most values this game's engine computes.
    pub fn limit(&self) -> usize {
        match self.rules.tail {
            0 => MAX_COMPUTED,
            t if t & 4 != 0 => MAX_COMPUTED_REPEATING_SPLITS,
            _ => MAX_COMPUTED_REPEATING,
        }
    }

    /// Whether a heap may be split into two unequal heaps (no period is ever confirmed).
    pub fn splits_unequal(&self) -> bool {
        self.rules.unequal
    }

    /// Whether the game's code has a repeating digit (its values grow with n).
    pub fn repeats(&self) -> bool {
        self.rules.repeats()
    }

    /// For a code with a repeating digit: the (arithmetic) period the values computed so far
    /// show, from the shortest period up; seen, not proved.
    pub fn pattern(&self) -> Option<Pattern> {
        self.pattern
    }

    /// The method for the values not computed yet.
    pub fn set_method(&mut self, method: Method) {
        if self.rules.tail == 0 {
            self.method = method;
        }
    }

    /// (preperiod, period) once the periodicity theorem has confirmed it.
    pub fn period(&self) -> Option<(usize, usize)> {
        self.period
    }

    /// How many values were computed by mex (the rest come from the period).
    pub fn computed(&self) -> usize {
        self.values.len()
    }

    /// How many (heap, heap) splits were read to compute them.
    pub fn splits_read(&self) -> u64 {
        self.splits_read
    }

    /// The rare values and where they are, when the rare/common split is in use.
    pub fn rare(&self) -> Option<Rare> {
        (self.method == Method::RareCommon && !self.splits.is_empty()).then(|| {
            let s = &self.split;
            let keys = (0..s.counts.len()).filter(|&k| s.counts[k] > 0 && s.rare.contains(k));
            let values = keys.map(|k| if s.parity { (k as u64 / 2, Some((k & 1) as u8)) } else { (k as u64, None) });
            Rare { values: values.collect(), heaps: s.rare_heaps.len() + 1 }
        })
    }

    /// g(n), or `None` when the period is not known and n is past `limit()` (at once for a
    /// code with a repeating digit, which has no period to wait for).
    pub fn value(&mut self, n: usize) -> Option<u64> {
        if self.rules.tail != 0 && n >= self.limit() {
            return None;
        }
        if let Some((n0, p)) = self.period
            && n >= n0
        {
            return Some(self.values[n0 + (n - n0) % p] as u64);
        }
        self.extend_to(n);
        match self.period {
            Some((n0, p)) if n >= n0 => Some(self.values[n0 + (n - n0) % p] as u64),
            _ => self.values.get(n).map(|&v| v as u64),
        }
    }

    /// g(n); n must be below `limit()` unless the period is known (else see `value`).
    pub fn get(&mut self, n: usize) -> u64 {
        self.value(n).unwrap_or_else(|| panic!("g({n}) is past the {} values computed at most", self.limit()))
    }

    /// Compute values up to `n` (or until the period is confirmed), `limit()` values at most.
    pub fn extend_to(&mut self, n: usize) {
        // No budget: nothing fails.
        let _ = self.extend(n, None);
    }

    /// [`NimSequence::extend_to`] within `budget` bytes (the engine's vectors by their
    /// capacities, with what the next value may allocate in passing) and the time budget of
    /// `progress`: past either, a clear error, the values computed so far kept.
    pub fn extend_within(&mut self, n: usize, budget: usize, progress: &Progress) -> GameResult<()> {
        self.extend(n, Some((budget, progress)))
    }

    /// The bytes the engine holds, and what one more value may allocate in passing (a
    /// vector that grows holds its old and new buffers at once).
    pub fn bytes(&self) -> usize {
        let (len, cap) = (self.values.len(), self.values.capacity());
        let passing = if len == cap { (2 * cap).max(8) * 4 } else { 0 };
        let s = &self.split;
        cap * 4
            + passing
            + 8 * (s.commons.capacity() + s.counts.capacity() + s.rare_heaps.capacity())
            + 8 * (s.common.words.capacity() + s.rare.words.capacity())
            + 8 * (self.marks.words.capacity() + self.tail_options.words.capacity())
            + 4 * self.few.capacity()
    }

    fn extend(&mut self, n: usize, budget: Option<(usize, &Progress)>) -> GameResult<()> {
        let n = n.min(self.limit() - 1);
        let before = self.values.len();
        while self.values.len() <= n && self.period.is_none() {
            if let Some((budget, progress)) = budget {
                let bytes = self.bytes();
                if bytes > budget {
                    return Err(GameError::OutOfMemory(format!(
                        "the nim-sequence needs more than the memory budget of {} MiB after {} values without a \
                         period (raise --max-memory, or ask for a smaller --to)",
                        budget >> 20,
                        self.values.len()
                    )));
                }
                progress.tick(self.values.len() as u64, bytes).map_err(|_| {
                    GameError::TimeLimit(format!(
                        "the time limit ran out after {} values without a period (--time-limit)",
                        self.values.len()
                    ))
                })?;
            }
            let m = self.values.len();
            let g = self.mex_at(m);
            self.values.push(g);
            if self.method == Method::RareCommon && !self.splits.is_empty() {
                self.split.record(m, g);
            }
            let len = self.values.len();
            let split = self.method == Method::RareCommon && !self.splits.is_empty();
            if len >= 8 && len.is_power_of_two() {
                self.find_period();
                if split {
                    self.split.rebuild(&self.values);
                }
            } else if split && self.split.rare_heaps.len() > 2 * self.split.rebuilt_with + 64 {
                self.split.rebuild(&self.values);
            }
        }
        // Look again only when there are new values: `value` comes here for every heap asked
        // about, and a look reads every value.
        if self.period.is_none() && self.values.len() > 8 && self.values.len() > before {
            self.find_period();
        }
        Ok(())
    }

    /// The mex for a code with a repeating digit: the options of the finite digits, and
    /// those of the tail, which only grow with n.
    fn mex_repeating(&mut self, n: usize) -> u32 {
        let g = &self.values;
        let first_tail = self.rules.digits.len();
        let tail = self.rules.tail;
        if tail & 2 != 0 && n > first_tail {
            self.tail_options.insert(g[n - first_tail] as usize);
        }
        if tail & 4 != 0 && n >= first_tail + 2 {
            self.splits_read += read_splits(g, n - first_tail, false, &mut self.tail_options);
        }
        // Taking a whole heap from the tail on is a move of every heap from there.
        if tail & 1 != 0 && n >= first_tail {
            self.tail_options.insert(0);
        }
        self.few.clear();
        self.marks.clear();
        for (k, &d) in self.rules.digits.iter().enumerate().skip(1).take_while(|&(k, _)| k <= n) {
            if d & 1 != 0 && n == k {
                self.few.push(0);
            }
            if d & 2 != 0 && n > k {
                self.few.push(g[n - k]);
            }
            if d & 4 != 0 && n >= k + 2 {
                self.splits_read += read_splits(g, n - k, false, &mut self.marks);
            }
        }
        if self.rules.unequal {
            self.splits_read += read_splits(g, n, true, &mut self.marks);
        }
        self.tail_mex = self.tail_options.mex_from(self.tail_mex);
        let mut v = self.tail_mex;
        while self.few.contains(&(v as u32)) || self.marks.contains(v) {
            v = self.tail_options.mex_from(v + 1);
        }
        v as u32
    }

    fn mex_at(&mut self, n: usize) -> u32 {
        if self.rules.tail != 0 {
            return self.mex_repeating(n);
        }
        let g = &self.values;
        let marks = &mut self.marks;
        marks.clear();
        for (k, &d) in self.rules.digits.iter().enumerate().skip(1) {
            if k > n {
                break;
            }
            if d & 1 != 0 && n == k {
                marks.insert(0);
            }
            if d & 2 != 0 && n > k {
                marks.insert(g[n - k] as usize);
            }
        }
        let splits = self.splits.iter().copied().take_while(|&k| n >= k + 2);
        let rare = &self.split.rare_heaps;
        // The rare/common split pays where the rare heaps are fewer than half the splits.
        let mut candidate = if self.method == Method::RareCommon && rare.len() < n / 4 {
            for k in splits.clone() {
                let rest = n - k;
                let below = rare.partition_point(|&r| r < rest);
                for &r in &rare[..below] {
                    // The unequal split (take 0) never leaves two equal heaps.
                    if k != 0 || 2 * r != rest {
                        marks.insert((g[r] ^ g[rest - r]) as usize);
                    }
                }
                self.splits_read += below as u64;
            }
            let c = marks.mex_from(0);
            if self.split.only_from_rare(n, c, &self.splits) {
                return c as u32;
            }
            c
        } else {
            usize::MAX
        };
        if candidate == usize::MAX {
            for k in splits {
                self.splits_read += read_splits(g, n - k, k == 0, marks);
            }
            return marks.mex_from(0) as u32;
        }
        // Every split, until the least missing value could be common (or for good).
        'all: for k in splits {
            let rest = n - k;
            let last = if k == 0 { (rest - 1) / 2 } else { rest / 2 };
            for a in 1..=last {
                let x = (g[a] ^ g[rest - a]) as usize;
                marks.insert(x);
                if x == candidate {
                    candidate = marks.mex_from(x);
                    if self.split.only_from_rare(n, candidate, &self.splits) {
                        self.splits_read += a as u64;
                        break 'all;
                    }
                }
            }
            self.splits_read += last as u64;
        }
        marks.mex_from(0) as u32
    }

    /// Look for the shortest period confirmed by the values so far: for each p, the
    /// smallest n0 with g(m + p) = g(m) for n0 ≤ m < len − p, confirmed when
    /// len − p ≥ 2·n0 + p + t (the Guy–Smith theorem for finite octal games).
    fn find_period(&mut self) {
        let g = &self.values;
        let len = g.len();
        let Some(t) = self.rules.max_take() else {
            self.pattern = find_pattern(g);
            return;
        };
        // The theorem pairs the splits of n with those of n + p; the unequal split breaks the
        // pairing (a + a is not a move, a + (a + p) is), so no period is claimed for it.
        if self.rules.unequal {
            return;
        }
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

/// Mark the value of every split of a heap of `rest` into two (a + b = rest, a ≤ b, or
/// a < b when `unequal`); the number of splits read.
#[inline]
fn read_splits(g: &[u32], rest: usize, unequal: bool, into: &mut Bits) -> u64 {
    let last = if unequal { rest.saturating_sub(1) / 2 } else { rest / 2 };
    for a in 1..=last {
        into.insert((g[a] ^ g[rest - a]) as usize);
    }
    last as u64
}

/// One option of one heap, in a heap game given heap by heap (a script's `heap_options`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeapOption {
    /// The heaps the move leaves, each smaller than the heap moved on (none: it leaves nothing).
    Heaps(Vec<usize>),
    /// Every way to leave two non-empty heaps a and `total` − a (a ≤ `total` − a, or a <
    /// `total` − a when `unequal`), `total` at most the heap moved on.
    Splits { total: usize, unequal: bool },
}

/// The nim-sequence g(0), …, g(`to`) of a heap game whose options of a heap of n are
/// `options(n)`: one call a heap, every option read (the splits natively, as the octal
/// engine reads them). `options` must keep to [`HeapOption`]'s bounds (heaps smaller than n,
/// splits of at most n): the caller checks what it is given. Also returns how many options
/// were read.
pub fn by_options<E>(
    to: usize,
    mut options: impl FnMut(usize) -> Result<Vec<HeapOption>, E>,
) -> Result<(Vec<u32>, u64), E> {
    let mut g: Vec<u32> = Vec::with_capacity(to + 1);
    let mut seen = Bits::default();
    let mut read = 0u64;
    for n in 0..=to {
        seen.clear();
        for option in options(n)? {
            match option {
                HeapOption::Heaps(heaps) => {
                    debug_assert!(heaps.iter().all(|&h| h < n));
                    seen.insert(heaps.iter().fold(0u32, |x, &h| x ^ g[h]) as usize);
                    read += 1;
                }
                HeapOption::Splits { total, unequal } => {
                    debug_assert!(total <= n);
                    read += read_splits(&g, total, unequal, &mut seen);
                }
            }
        }
        g.push(seen.mex_from(0) as u32);
    }
    Ok((g, read))
}

/// The shortest p, and then the smallest n0, with g(n + p) = g(n) + s for a saltus s ≥ 0 and
/// every n from n0 on, where the values show it for at least three periods and on at least
/// the later half of them. Seen in the values given, not proved.
pub fn find_pattern(g: &[u32]) -> Option<Pattern> {
    let len = g.len();
    for p in 1..=(len / 4).min(MAX_PERIOD) {
        let Some(s) = g[len - 1].checked_sub(g[len - 1 - p]) else { continue };
        let mut n0 = len - p;
        while n0 > 0 && g[n0 - 1].checked_add(s) == Some(g[n0 - 1 + p]) {
            n0 -= 1;
        }
        if len - n0 >= 4 * p && n0 <= len / 2 {
            return Some(Pattern { n0, period: p, saltus: s as u64, to: len - 1 });
        }
    }
    None
}

/// A set of small numbers, one bit each.
#[derive(Clone, Debug, Default)]
struct Bits {
    words: Vec<u64>,
}

impl Bits {
    fn insert(&mut self, v: usize) {
        let w = v >> 6;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (v & 63);
    }

    fn contains(&self, v: usize) -> bool {
        self.words.get(v >> 6).is_some_and(|w| (w >> (v & 63)) & 1 != 0)
    }

    fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// The least number from `from` on that is not in the set.
    fn mex_from(&self, from: usize) -> usize {
        let mut w = from >> 6;
        let Some(&first) = self.words.get(w) else { return from };
        let mut word = first | ((1u64 << (from & 63)) - 1);
        loop {
            if word != u64::MAX {
                return w * 64 + (!word).trailing_zeros() as usize;
            }
            w += 1;
            match self.words.get(w) {
                Some(&x) => word = x,
                None => return w * 64,
            }
        }
    }
}

/// The values split into common ones (C) and rare ones (R), C chosen so that no two of its
/// values (the same one twice included) xor to a third: a split whose two heaps both have
/// common values never gives a common value. Most common first, greedily.
///
/// In some games (0.106) the values are sparse only once each is paired with the parity of
/// its heap: then the split is of keys 2·g(n) + (n mod 2), and a split of `rest` tokens
/// gives the key 2·v + (rest mod 2) for the value v. The engine keeps whichever of the two
/// leaves fewer rare heaps.
#[derive(Clone, Debug, Default)]
struct RareCommon {
    parity: bool,
    common: Bits,
    commons: Vec<usize>,
    rare: Bits,
    /// How many heaps have each key.
    counts: Vec<usize>,
    /// The sizes ≥ 1 whose key is rare, ascending.
    rare_heaps: Vec<usize>,
    /// `rare_heaps.len()` at the last rebuild.
    rebuilt_with: usize,
}

impl RareCommon {
    fn key(&self, n: usize, v: usize) -> usize {
        if self.parity { 2 * v + (n & 1) } else { v }
    }

    /// Whether every split of heap `n` (by the takes `splits`) that gives the value `v` has
    /// a heap with a rare key: `v`'s key is common, or not yet seen and no xor of two
    /// common keys.
    fn only_from_rare(&self, n: usize, v: usize, splits: &[usize]) -> bool {
        if !self.parity {
            return self.may_be_common(v);
        }
        let mut seen = [false; 2];
        for &k in splits.iter().take_while(|&&k| n >= k + 2) {
            seen[(n - k) & 1] = true;
        }
        (0..2).all(|p| !seen[p] || self.may_be_common(2 * v + p))
    }

    /// Whether `key` is common, or could join C as it is.
    fn may_be_common(&self, key: usize) -> bool {
        if self.common.contains(key) {
            return true;
        }
        if self.rare.contains(key) || key == 0 {
            return false;
        }
        self.commons.iter().all(|&c| !self.common.contains(key ^ c))
    }

    fn classify(&mut self, key: usize) {
        if self.may_be_common(key) {
            self.common.insert(key);
            self.commons.push(key);
        } else {
            self.rare.insert(key);
        }
    }

    /// Heap `n` has value `v`.
    fn record(&mut self, n: usize, v: u32) {
        let key = self.key(n, v as usize);
        if key >= self.counts.len() {
            self.counts.resize(key + 1, 0);
        }
        self.counts[key] += 1;
        if !self.common.contains(key) && !self.rare.contains(key) {
            self.classify(key);
        }
        if n > 0 && self.rare.contains(key) {
            self.rare_heaps.push(n);
        }
    }

    /// The split of these values, by value or by value and parity.
    fn build(values: &[u32], parity: bool) -> RareCommon {
        let mut s = RareCommon { parity, ..RareCommon::default() };
        for (n, &v) in values.iter().enumerate() {
            let key = s.key(n, v as usize);
            if key >= s.counts.len() {
                s.counts.resize(key + 1, 0);
            }
            s.counts[key] += 1;
        }
        let mut order: Vec<usize> = (0..s.counts.len()).filter(|&k| s.counts[k] > 0).collect();
        order.sort_by_key(|&k| (std::cmp::Reverse(s.counts[k]), k));
        for key in order {
            s.classify(key);
        }
        s.rare_heaps = (1..values.len()).filter(|&n| s.rare.contains(s.key(n, values[n] as usize))).collect();
        s.rebuilt_with = s.rare_heaps.len();
        s
    }

    /// Choose C again, most common keys first, with or without the parity.
    fn rebuild(&mut self, values: &[u32]) {
        let plain = Self::build(values, false);
        let parity = Self::build(values, true);
        *self = if parity.rare_heaps.len() < plain.rare_heaps.len() { parity } else { plain };
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

    /// The values by the definition: the mex of every option, no bitset, no split; with
    /// `unequal`, also every split of n into a + b with 0 < a < b (Grundy's game).
    fn by_definition(digits: &[u8], to: usize, unequal: bool) -> Vec<u64> {
        let mut g: Vec<u64> = Vec::new();
        for n in 0..=to {
            let mut options = std::collections::BTreeSet::new();
            if unequal {
                options.extend((1..n).filter(|&a| 2 * a < n).map(|a| g[a] ^ g[n - a]));
            }
            for (k, &d) in digits.iter().enumerate().skip(1) {
                if d & 1 != 0 && n == k {
                    options.insert(0);
                }
                if d & 2 != 0 && n > k {
                    options.insert(g[n - k]);
                }
                if d & 4 != 0 && n > k {
                    for a in 1..n - k {
                        options.insert(g[a] ^ g[n - k - a]);
                    }
                }
            }
            g.push((0..).find(|v| !options.contains(v)).unwrap());
        }
        g
    }

    #[test]
    fn bitset_mex() {
        let mut b = Bits::default();
        assert_eq!(b.mex_from(0), 0);
        for v in (0..200).filter(|&v| v != 64 && v != 130) {
            b.insert(v);
        }
        assert_eq!((b.mex_from(0), b.mex_from(65), b.mex_from(131), b.mex_from(500)), (64, 130, 200, 500));
        assert!(b.contains(63) && !b.contains(64) && !b.contains(10_000));
    }

    /// Every octal code of up to three digits, both methods, against the definition.
    #[test]
    fn both_methods_agree_with_the_definition_on_every_short_octal_code() {
        for code in 0..8 * 8 * 8 {
            let digits = [0, (code >> 6) as u8, ((code >> 3) & 7) as u8, (code & 7) as u8];
            let want = by_definition(&digits, 300, false);
            for method in [Method::Plain, Method::RareCommon] {
                let mut s = NimSequence::with_method(HeapRules::octal(&digits), method);
                let got: Vec<u64> = (0..=300).map(|n| s.get(n)).collect();
                assert_eq!(got, want, "0.{}{}{} by {method:?}", digits[1], digits[2], digits[3]);
            }
        }
    }

    /// Every code of one or two digits whose last digit repeats for ever, against the
    /// definition with that digit written out for every take up to the heap.
    #[test]
    fn codes_with_a_repeating_digit_agree_with_the_definition() {
        let to = 200;
        for code in 1..8 * 8 {
            let (a, b) = ((code >> 3) as u8, (code & 7) as u8);
            let digits = if a == 0 { vec![0, b] } else { vec![0, a, b] };
            let written: Vec<u8> = (0..=to).map(|k| digits.get(k).copied().unwrap_or(b)).collect();
            let rules = HeapRules::repeating(&digits);
            let want = by_definition(&written, to, false);
            let mut s = NimSequence::new(rules);
            let got: Vec<u64> = (0..=to).map(|n| s.get(n)).collect();
            assert_eq!(got, want, "{digits:?} with the last repeating");
        }
    }

    /// The periods a repeating code shows, against those found by hand: 0.3… is Nim
    /// (g(n) = n), 0.03… takes two or more (the options of n are every heap up to n - 2, so
    /// g(n) = ⌊n/2⌋), 0.7… may also split the rest, but a ^ b ≤ a + b < n: g(n) = n still.
    #[test]
    fn arithmetic_periods_of_codes_found_by_hand() {
        type Case = (&'static [u8], fn(usize) -> u64, (usize, u64));
        let cases: [Case; 4] = [
            (&[0, 3], |n| n as u64, (1, 1)),
            (&[0, 0, 3], |n| n as u64 / 2, (2, 1)),
            (&[0, 7], |n| n as u64, (1, 1)),
            (&[0, 0, 0, 3], |n| n as u64 / 3, (3, 1)),
        ];
        for (digits, g, (period, saltus)) in cases {
            let mut s = NimSequence::new(HeapRules::repeating(digits));
            s.extend_to(1000);
            for n in 0..=1000 {
                assert_eq!(s.get(n), g(n), "{digits:?} at {n}");
            }
            let p = s.pattern().unwrap_or_else(|| panic!("{digits:?}: no pattern"));
            assert_eq!((p.n0, p.period, p.saltus, p.to), (0, period, saltus, 1000), "{digits:?}");
            assert_eq!(s.period(), None, "a sequence that grows has no plain period");
        }
        // Finite octal games are not arithmetic periodic (Horrocks and Nowakowski, 2003): no search.
        let mut k = NimSequence::new(HeapRules::octal(&[0, 7, 7]));
        k.extend_to(1000);
        assert_eq!(k.pattern(), None);
    }

    /// The unequal split (Grundy's game), alone and beside short octal codes, by both methods,
    /// against the definition: the mex over every split a + b = n with a < b.
    #[test]
    fn the_unequal_split_agrees_with_the_definition() {
        for digits in [&[0u8][..], &[0, 1], &[0, 3], &[0, 4], &[0, 0, 7], &[0, 2, 6]] {
            let want = by_definition(digits, 1500, true);
            for method in [Method::Plain, Method::RareCommon] {
                let rules = HeapRules::octal(digits).union(&HeapRules::split_unequal());
                let mut s = NimSequence::with_method(rules, method);
                let got: Vec<u64> = (0..=1500).map(|n| s.get(n)).collect();
                assert_eq!(got, want, "{digits:?} with the unequal split, by {method:?}");
                assert_eq!(s.period(), None, "no period is claimed for the unequal split");
            }
        }
        // Beside a repeating digit (Nim's moves and the split).
        let mut s = NimSequence::new(HeapRules::take_any().union(&HeapRules::split_unequal()));
        let mut g: Vec<u64> = Vec::new();
        for n in 0..=300usize {
            let mut options: std::collections::BTreeSet<u64> = (0..n as u64).map(|k| g[k as usize]).collect();
            options.extend((1..n).filter(|&a| 2 * a < n).map(|a| g[a] ^ g[n - a]));
            g.push((0..).find(|v| !options.contains(v)).unwrap());
            assert_eq!(s.get(n), g[n], "Nim with the unequal split at {n}");
        }
    }

    /// Where the values are sparse, the rare/common split gives the same sequence from a
    /// small part of the splits. 0.16's rare values are few (Gangolli and Plambeck).
    #[test]
    fn the_rare_common_split_reads_few_splits_and_changes_no_value() {
        for code in ["16", "14", "64", "106", "76", "4", "6", "142", "117", "125", "051"] {
            let digits: Vec<u8> = std::iter::once(0).chain(code.bytes().map(|c| c - b'0')).collect();
            let mut plain = NimSequence::with_method(HeapRules::octal(&digits), Method::Plain);
            let mut rc = NimSequence::new(HeapRules::octal(&digits));
            let to = 20_000;
            rc.extend_to(to);
            plain.extend_to(to);
            for n in 0..=to {
                assert_eq!(rc.get(n), plain.get(n), "0.{code}, heap {n}");
            }
            if code == "16" {
                assert!(rc.period().is_none());
                assert!(rc.splits_read() * 20 < plain.splits_read(), "{} of {}", rc.splits_read(), plain.splits_read());
                assert_eq!(rc.rare().unwrap().values[0], (0, None), "0 = c ^ c is never common");
            }
            if code == "142" {
                assert!(rc.rare().unwrap().values[0].1.is_some(), "0.142's values are sparse with the heap's parity");
            }
        }
    }
}
