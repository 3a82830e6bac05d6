//! The TacTix nimsum solver.
//!
//! A board is a sum of its 4-connected components (a move never touches two), so its
//! nimsum is the XOR of theirs. A component's nimsum is the mex of its children's, where a
//! child (the component less one run) is itself split into components again. Each
//! component is memoized under its canonical form (translation and the 8 symmetries of the
//! square). Components whose bounding box fits 8×8 are `u64` bitboards: moves, splitting
//! and symmetry are a few bit operations (see [`crate::bits`]). Those up to 8 × 16 are
//! `u128` bitboards laid with the short side as rows (see [`crate::wide`]). Bigger ones take
//! a general path of cropped bit grids, whose open levels have a share of the budget.
//!
//! Shortcuts that need no search: a straight bar of n tokens is a Nim heap of n; a shape
//! that is its own image under a half turn with an even×even bounding box is 0 (mirror
//! strategy); one or two tokens are 1 or 2.
//!
//! The memo table has a fixed size: when a bucket is full, the entry that took the least
//! work to compute is replaced. A time limit is checked every 1024 positions searched, and
//! for every child on the general path (where one child can take milliseconds).

use crate::bits;
use crate::large::Shape;
use crate::memory::{Zero, Zeroed};
use crate::pbm::Board;
use crate::wide;
use std::collections::HashMap;
use std::fmt;
use std::time::Instant;

/// Components of more cells than this (other than straight bars) are refused: far beyond
/// what any search can finish, and they would make the recursion too deep.
pub const MAX_COMPONENT: usize = 4096;

/// How many kinds of small group [`Solver::board`] remembers by itself.
const SEEN_SMALL: usize = 1 << 15;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SolveError {
    /// The time limit ran out.
    Timeout,
    /// A component too large to search.
    TooLarge(usize),
    /// Another thread solving the same component finished first.
    Stopped,
    /// The general path went deeper than its share of the memory budget allows.
    TooDeep,
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::Timeout => f.write_str("the time limit ran out before the nimsum was found"),
            SolveError::Stopped => f.write_str("stopped: another thread finished first"),
            SolveError::TooDeep => {
                f.write_str("the search of a component beyond 8×16 went deeper than the memory budget allows")
            }
            SolveError::TooLarge(n) => write!(
                f,
                "a connected group of {}{n} tokens is more than the {MAX_COMPONENT} this solver can search",
                if *n > MAX_COMPONENT { "at least " } else { "" }
            ),
        }
    }
}

impl std::error::Error for SolveError {}

type Result<T> = std::result::Result<T, SolveError>;

/// An entry of the memo table, `$int` wide. Where the target has 64-bit atomics the table can
/// be shared by threads: relaxed loads and stores are plain moves there, so a single thread
/// pays nothing. Elsewhere (the PS2's MIPS II has no 64-bit atomics) it is a plain cell and
/// the table stays in one thread.
macro_rules! entry_word {
    ($name:ident, $int:ty, $atomic:ty) => {
        #[cfg(target_has_atomic = "64")]
        #[derive(Default)]
        struct $name($atomic);

        #[cfg(target_has_atomic = "64")]
        impl $name {
            #[inline]
            fn load(&self) -> $int {
                self.0.load(std::sync::atomic::Ordering::Relaxed)
            }
            #[inline]
            fn store(&self, v: $int) {
                self.0.store(v, std::sync::atomic::Ordering::Relaxed)
            }
        }

        #[cfg(not(target_has_atomic = "64"))]
        #[derive(Default)]
        struct $name(std::cell::Cell<$int>);

        #[cfg(not(target_has_atomic = "64"))]
        impl $name {
            #[inline]
            fn load(&self) -> $int {
                self.0.get()
            }
            #[inline]
            fn store(&self, v: $int) {
                self.0.set(v)
            }
        }

        // SAFETY: an integer in a cell or an atomic: all zeros is 0, and it has no `Drop`.
        unsafe impl Zero for $name {}
    };
}

// An entry of a wide table, and of a narrow one (see [`Table::narrow`]).
entry_word!(Word, u64, std::sync::atomic::AtomicU64);
entry_word!(Word32, u32, std::sync::atomic::AtomicU32);

/// The memo table: buckets of 8 one-word entries, 64 bytes, aligned to a cache line, so a
/// lookup costs one memory access.
///
/// A key is first mixed by a bijection `h`. Its bucket comes from the high bits of `h`
/// (multiply by the number of buckets and keep the high half, so any number of buckets
/// works and the whole budget is used), and the entry stores the low `k` bits of `h`, where
/// 2^k is at least the share of hash values one bucket gets: bucket and stored bits together
/// determine `h`, hence the key, so a hit is exact. The other bits of the word hold the
/// Grundy value (7 bits) and the work class (4 bits: the bit length of the number of
/// searches the entry took, for replacement). With at least 2^11 buckets, `k` ≤ 53 bits fit.
///
/// One word per entry also makes the table safe to share between threads without locks: a
/// word is written and read whole. The words are allocated zeroed (an empty entry is 0, and a
/// real one never is: its work class is at least 1), so the operating system hands out pages
/// as they are first touched: a small board does not pay for a large table (and a large
/// table is in huge pages where it can be: see [`crate::memory`]).
pub struct Table {
    words: Words,
    /// Index of the first word of bucket 0 (64-byte aligned).
    base: usize,
    buckets: usize,
    /// Bits of `h` an entry keeps.
    kept: u32,
}

/// A table's entries: one 64-bit word each (8 to a bucket), or, in a narrow table, 32 bits
/// (16 to a bucket) for keys below 2^32.
enum Words {
    Wide(Zeroed<Word>),
    Narrow(Zeroed<Word32>),
}

/// Entries hold Grundy values up to this; a larger one (never seen on a real board) is
/// simply not stored, and searched again when needed.
const MAX_STORED: u32 = 0x7F - 1;
const DATA_BITS: u32 = 11;

impl Table {
    /// A table of at most `bytes` bytes (at least 2^11 buckets: 128 KiB).
    ///
    /// When that much memory cannot be had (an address-space limit), the table halves until it
    /// can: a smaller table gives the same answers, more slowly.
    pub fn new(bytes: usize) -> Table {
        let (words, buckets, base) = Self::allocate::<Word>(bytes);
        // k = 64 - floor(log2(buckets)): a bucket gets fewer than 2^k hash values.
        let kept = 64 - (63 - (buckets as u64).leading_zeros());
        Table { words: Words::Wide(words), base, buckets, kept }
    }

    /// Entries of `T` for at most `bytes` bytes of 64-byte buckets (at least 2^11 of them),
    /// halving until the memory can be had: the entries, the number of buckets, and the index
    /// of the first entry of bucket 0 (aligned to 64 bytes).
    fn allocate<T: Zero>(bytes: usize) -> (Zeroed<T>, usize, usize) {
        let per_bucket = 64 / std::mem::size_of::<T>();
        let mut buckets = (bytes / 64).max(1 << DATA_BITS);
        let words: Zeroed<T> = loop {
            match Zeroed::try_new((buckets + 1) * per_bucket) {
                Some(w) => break w,
                None if buckets > 1 << DATA_BITS => buckets = (buckets / 2).max(1 << DATA_BITS),
                None => break Zeroed::new((buckets + 1) * per_bucket),
            }
        };
        let misalign = (words.as_ptr() as usize % 64) / std::mem::size_of::<T>();
        let base = if misalign == 0 { 0 } else { per_bucket - misalign };
        (words, buckets, base)
    }

    /// A table for keys below 2^32 only (the canonical key of a component at most 4 cells
    /// across, see [`bits::canonical`]): 4-byte entries, so twice as many in the same bytes.
    /// A larger key is neither stored nor found (still right, only slower).
    pub fn narrow(bytes: usize) -> Table {
        let (words, buckets, base) = Self::allocate::<Word32>(bytes);
        // As for a wide table, over 2^32 hash values: buckets ≥ 2^11 leave room for the data.
        let kept = 32 - (63 - (buckets as u64).leading_zeros());
        Table { words: Words::Narrow(words), base, buckets, kept }
    }

    /// A bijection on 64-bit words (odd multipliers and a shift-xor are each invertible).
    #[inline]
    fn mix(key: u64) -> u64 {
        let x = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (x ^ (x >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }

    /// A bijection on 32-bit words.
    #[inline]
    fn mix32(key: u32) -> u32 {
        let x = key.wrapping_mul(0x9E37_79B1);
        (x ^ (x >> 16)).wrapping_mul(0x85EB_CA6B)
    }

    /// The first word of `h`'s bucket, and what an entry for it stores above its data bits.
    #[inline]
    fn place(&self, key: u64) -> (usize, u64) {
        let h = Self::mix(key);
        let bucket = ((h as u128 * self.buckets as u128) >> 64) as usize;
        (self.base + bucket * 8, (h & (u64::MAX >> (64 - self.kept))) << DATA_BITS)
    }

    /// [`Table::place`] in a narrow table.
    #[inline]
    fn place32(&self, key: u32) -> (usize, u32) {
        let h = Self::mix32(key);
        let bucket = ((h as u64 * self.buckets as u64) >> 32) as usize;
        (self.base + bucket * 16, (h & (u32::MAX >> (32 - self.kept))) << DATA_BITS)
    }

    /// Ask the CPU to start loading `key`'s bucket (a no-op where there is no prefetch).
    #[inline]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = match &self.words {
                Words::Wide(w) => w[self.place(key).0..].as_ptr() as *const i8,
                Words::Narrow(w) => match u32::try_from(key) {
                    Ok(k) => w[self.place32(k).0..].as_ptr() as *const i8,
                    Err(_) => return,
                },
            };
            // SAFETY: prefetching is a hint; it never faults and reads nothing.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    fn get(&self, key: u64) -> Option<u32> {
        match &self.words {
            Words::Wide(words) => {
                let (b, tag) = self.place(key);
                let w: &[Word; 8] = words[b..b + 8].try_into().expect("a bucket is 8 words");
                w.iter()
                    .map(Word::load)
                    .find(|&e| e != 0 && e >> DATA_BITS << DATA_BITS == tag)
                    .map(|e| (e >> 4 & 0x7F) as u32)
            }
            Words::Narrow(words) => {
                let (b, tag) = self.place32(u32::try_from(key).ok()?);
                let w: &[Word32; 16] = words[b..b + 16].try_into().expect("a bucket is 16 words");
                w.iter()
                    .map(Word32::load)
                    .find(|&e| e != 0 && e >> DATA_BITS << DATA_BITS == tag)
                    .map(|e| e >> 4 & 0x7F)
            }
        }
    }

    fn insert(&self, key: u64, grundy: u32, work: u64) {
        if grundy > MAX_STORED {
            return;
        }
        let class = (64 - work.leading_zeros()).clamp(1, 15) as u64;
        match &self.words {
            Words::Wide(words) => {
                let (b, tag) = self.place(key);
                let w = &words[b..b + 8];
                if let Some(slot) = Self::slot(w.iter().map(Word::load), tag, class) {
                    w[slot].store(tag | (grundy as u64) << 4 | class);
                }
            }
            Words::Narrow(words) => {
                let Ok(key) = u32::try_from(key) else { return };
                let (b, tag) = self.place32(key);
                let w = &words[b..b + 16];
                if let Some(slot) = Self::slot(w.iter().map(|e| e.load() as u64), tag as u64, class) {
                    w[slot].store(tag | grundy << 4 | class as u32);
                }
            }
        }
    }

    /// Where in a bucket (its entries in order) an entry with `tag` and work `class` goes:
    /// its own slot or an empty one; when the bucket is full, the entry that took the least
    /// work, unless this one took less (then nowhere).
    #[inline]
    fn slot(bucket: impl Iterator<Item = u64> + Clone, tag: u64, class: u64) -> Option<usize> {
        if let Some(j) = bucket.clone().position(|e| e == 0 || e >> DATA_BITS << DATA_BITS == tag) {
            return Some(j);
        }
        let (j, least) = bucket.map(|e| e & 0xF).enumerate().min_by_key(|&(_, c)| c).expect("a bucket has slots");
        (least <= class).then_some(j)
    }

    fn bytes(&self) -> usize {
        match &self.words {
            Words::Wide(w) => w.len() * 8,
            Words::Narrow(w) => w.len() * 4,
        }
    }
}

/// The memo table of the 8×16 path: buckets of 2 entries in a cache line, each entry the
/// canonical bitboard (two words), the data (grundy value | work << 16) and a spare word.
/// One thread's own (the big components that threads solve together fit 8×8).
struct WideTable {
    words: Vec<u64>,
    buckets: usize,
}

impl WideTable {
    fn new(bytes: usize) -> WideTable {
        let buckets = (bytes / 64).max(16);
        WideTable { words: vec![0; buckets * 8], buckets }
    }

    #[inline]
    fn bucket(&self, key: u128) -> usize {
        let h =
            (key as u64 ^ ((key >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h as u128 * self.buckets as u128) >> 64) as usize * 8
    }

    fn get(&self, key: u128) -> Option<u32> {
        let b = self.bucket(key);
        let w = &self.words[b..b + 8];
        (0..2)
            .find(|&j| w[4 * j] == key as u64 && w[4 * j + 1] == (key >> 64) as u64)
            .map(|j| (w[4 * j + 2] & 0xFFFF) as u32)
    }

    fn insert(&mut self, key: u128, grundy: u32, work: u64) {
        let b = self.bucket(key);
        let w = &mut self.words[b..b + 8];
        let work = work.min(0xFFFF);
        // An empty slot, else the one that took less work (if it took less than this one).
        let j = if w[0] == 0 && w[1] == 0 {
            0
        } else if w[4] == 0 && w[5] == 0 {
            1
        } else if w[2] >> 16 <= w[6] >> 16 {
            0
        } else {
            1
        };
        if w[4 * j] | w[4 * j + 1] != 0 && w[4 * j + 2] >> 16 > work {
            return;
        }
        w[4 * j] = key as u64;
        w[4 * j + 1] = (key >> 64) as u64;
        w[4 * j + 2] = grundy as u64 | work << 16;
    }

    fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// The set of children's values, for the mex.
struct Mex {
    low: [u64; 4],
    high: Vec<u32>,
}

impl Mex {
    fn new() -> Mex {
        Mex { low: [0; 4], high: Vec::new() }
    }

    #[inline]
    fn add(&mut self, g: u32) {
        if g < 256 {
            self.low[(g / 64) as usize] |= 1 << (g % 64);
        } else {
            self.high.push(g);
        }
    }

    fn mex(&mut self) -> u32 {
        for (i, &w) in self.low.iter().enumerate() {
            if w != u64::MAX {
                return i as u32 * 64 + (!w).trailing_zeros();
            }
        }
        self.high.sort_unstable();
        self.high.dedup();
        let mut m = 256;
        for &g in &self.high {
            if g != m {
                break;
            }
            m += 1;
        }
        m
    }
}

/// What a solver did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Components searched (memo misses).
    pub searched: u64,
    /// Memo hits.
    pub hits: u64,
}

/// Most entries of the small cache in front of the table (16 bytes each: 1 MiB, an L2 cache
/// on this machine; measured against 128 KiB and 512 KiB on the full 5×5 board). It takes a
/// sixteenth of the budget, between 8,192 entries (128 KiB) and this.
const CACHE: usize = 65536;

pub struct Solver {
    /// Direct-mapped, keyed by the normalized (not canonical) bitboard: parts of positions
    /// recur among the children of a position and its neighbours, and a hit here needs
    /// neither the canonical form nor a trip to main memory.
    cache: Vec<(u64, u32)>,
    /// 64 − log2 of the cache's entries: the hash's top bits pick a slot.
    cache_shift: u32,
    table: std::sync::Arc<Table>,
    /// The 8×16 path's table, allocated when first needed.
    wide: Option<WideTable>,
    large: HashMap<Shape, u32>,
    /// Entries the map was allocated for.
    large_capacity: usize,
    /// Bytes the shapes in the map own (besides the map's own slots).
    large_bytes: usize,
    /// Bytes for everything beyond 8×8: half for the 8×16 table, an eighth for the map's
    /// slots, an eighth for its shapes, a quarter for the open levels of a general search.
    large_budget: usize,
    /// Bytes the open levels of the general search hold (see [`Solver::large`]).
    deep: usize,
    deadline: Option<Instant>,
    /// Scratch stacks shared by every level of the search (no allocation per position):
    /// the XOR of each child's known components, and the components still to look up.
    xors: Vec<u32>,
    pending: Vec<Pending>,
    /// Set by another thread working on the same component when it has finished.
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Which of `of` threads this is: the children still to look up are visited starting
    /// `turn / of` of the way through, so that threads sharing a table explore different
    /// subtrees first.
    turn: (usize, usize),
    pub stats: Stats,
}

/// A component of a child whose value has no closed form: its normalized bitboard, its
/// canonical key (0 until the front cache has missed, and 0 after a hit), its front-cache
/// slot, and the child it belongs to.
#[derive(Clone, Copy)]
struct Pending {
    p: u64,
    key: u64,
    slot: u32,
    child: u32,
}

/// What is known about a component before any table lookup.
enum Quick {
    Known(u32),
    Pending { p: u64, key: u64, slot: usize },
}

impl Solver {
    /// A solver whose tables use about `budget` bytes; `deadline` stops a search.
    pub fn new(budget: usize, deadline: Option<Instant>) -> Solver {
        Self::build(budget, deadline, false, false)
    }

    /// A solver for one board of `width` × `height`. Where the board fits 8×8, no component
    /// takes the paths beyond 8×8, so their share of the budget goes to the table too; where
    /// it is at most 4 across one way, so is every component, and the table is narrow (4-byte
    /// entries: twice as many, see [`Table::narrow`]).
    pub fn for_board(budget: usize, deadline: Option<Instant>, width: usize, height: usize) -> Solver {
        Self::build(budget, deadline, width <= 8 && height <= 8, width.min(height) <= 4)
    }

    fn build(budget: usize, deadline: Option<Instant>, fits_8x8: bool, narrow: bool) -> Solver {
        let small = if fits_8x8 { budget } else { budget / 4 * 3 };
        let large_budget = budget - small;
        // A slot is the (Shape, u32) pair plus a control byte, at 7/8 load: about 64 bytes.
        let large_capacity = (large_budget / 8 / 64).max(16);
        let cache = (budget / 16 / 16).clamp(8192, CACHE).next_power_of_two().min(CACHE);
        let table_bytes = small.saturating_sub(cache * 16);
        Solver {
            cache: vec![(0, 0); cache],
            cache_shift: 64 - cache.trailing_zeros(),
            table: std::sync::Arc::new(if narrow { Table::narrow(table_bytes) } else { Table::new(table_bytes) }),
            wide: None,
            large: HashMap::with_capacity(large_capacity),
            large_capacity,
            large_bytes: 0,
            large_budget,
            deep: 0,
            deadline,
            xors: Vec::new(),
            pending: Vec::new(),
            stop: None,
            turn: (0, 1),
            stats: Stats::default(),
        }
    }

    /// A solver that shares `table` with other threads (its own budget then only covers its
    /// front cache and its map of large shapes). It stops when `stop` is set; it is thread
    /// `turn.0` of `turn.1`.
    #[cfg(target_has_atomic = "64")]
    pub fn sharing(
        table: std::sync::Arc<Table>,
        stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
        turn: (usize, usize),
        budget: usize,
        deadline: Option<Instant>,
    ) -> Solver {
        let mut s = Solver::new(0, deadline);
        let cache = (budget / 16 / 16).clamp(8192, CACHE).next_power_of_two().min(CACHE);
        s.cache = vec![(0, 0); cache];
        s.cache_shift = 64 - cache.trailing_zeros();
        s.large_budget = budget / 4;
        s.large_capacity = (s.large_budget / 8 / 64).max(16);
        s.large = HashMap::with_capacity(s.large_capacity);
        s.table = table;
        s.stop = Some(stop);
        s.turn = turn;
        s
    }

    pub fn table_bytes(&self) -> usize {
        self.table.bytes() + self.wide.as_ref().map_or(0, WideTable::bytes) + self.large_bytes
    }

    /// Count a search, and every 1024 see whether to stop.
    #[inline]
    fn tick(&mut self) -> Result<()> {
        self.stats.searched += 1;
        if self.stats.searched.is_multiple_of(1024) {
            return self.check();
        }
        Ok(())
    }

    /// Whether the time limit has run out or another thread has finished.
    fn check(&self) -> Result<()> {
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Err(SolveError::Timeout);
        }
        if self.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(SolveError::Stopped);
        }
        Ok(())
    }

    /// The nimsum of a connected component given as an 8×8 bitboard (anywhere in the frame).
    pub fn small(&mut self, b: u64) -> Result<u32> {
        match self.quick(b) {
            Quick::Known(g) => Ok(g),
            Quick::Pending { p, key, slot } => self.lookup(p, key, slot),
        }
    }

    /// Everything that needs no table: closed forms, and the front cache. Otherwise the
    /// canonical key, whose bucket is prefetched.
    #[inline]
    fn quick(&mut self, b: u64) -> Quick {
        let n = b.count_ones();
        if n <= 2 {
            return Quick::Known(n);
        }
        let p = bits::normalize(b);
        if bits::is_bar(p) {
            return Quick::Known(n);
        }
        if n == 3 {
            // The L tromino: its moves leave a bar of 2 (twice), two single tokens (0) or
            // one token (twice): mex {2, 0, 1} = 3.
            return Quick::Known(3);
        }
        let slot = self.cache_slot(p);
        if self.cache[slot].0 == p {
            self.stats.hits += 1;
            return Quick::Known(self.cache[slot].1);
        }
        if bits::mirror_loss(p) {
            return Quick::Known(0);
        }
        let key = bits::canonical(p);
        self.table.prefetch(key);
        Quick::Pending { p, key, slot }
    }

    /// The front-cache slot of a normalized bitboard: the top bits of a multiplicative hash.
    #[inline]
    fn cache_slot(&self, p: u64) -> usize {
        (p.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.cache_shift) as usize
    }

    /// Ask the CPU to start loading a front-cache slot (a no-op where there is no prefetch).
    #[inline]
    fn prefetch_cache(&self, slot: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = self.cache[slot..].as_ptr() as *const i8;
            // SAFETY: prefetching is a hint; it never faults and reads nothing.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// The table's value for a component, or a search.
    fn lookup(&mut self, p: u64, key: u64, slot: usize) -> Result<u32> {
        if let Some(g) = self.table.get(key) {
            self.stats.hits += 1;
            self.cache[slot] = (p, g);
            return Ok(g);
        }
        self.search(p, key, slot)
    }

    /// Search a component: the mex of its children's values, in three passes that hide the
    /// memory latency. First the children are generated, closed forms applied, and the
    /// front-cache slot of every other component prefetched; then the front cache is read
    /// and, for each miss, the canonical key computed and its table bucket prefetched; then
    /// the table is read (by then the cache lines are arriving) and the misses searched.
    fn search(&mut self, p: u64, key: u64, slot: usize) -> Result<u32> {
        self.tick()?;
        let before = self.stats.searched;
        let xors_start = self.xors.len();
        let pending_start = self.pending.len();
        let mut cells = p;
        while cells != 0 {
            let s = cells.trailing_zeros();
            cells &= cells - 1;
            // Runs in the row starting at s.
            let mut mask = 1u64 << s;
            let mut e = s;
            loop {
                self.child(p & !mask);
                if e % 8 == 7 || p >> (e + 1) & 1 == 0 {
                    break;
                }
                e += 1;
                mask |= 1 << e;
            }
            // Runs of two or more in the column starting at s.
            let mut mask = 1u64 << s;
            let mut e = s;
            while e < 56 && p >> (e + 8) & 1 == 1 {
                e += 8;
                mask |= 1 << e;
                self.child(p & !mask);
            }
        }
        // Second pass: the front cache, whose slots were prefetched by the first. A hit
        // settles the component (its key is left 0); a miss needs the canonical key, and that
        // key's table bucket is prefetched in turn.
        for i in pending_start..self.pending.len() {
            let q = self.pending[i];
            let (cached, g) = self.cache[q.slot as usize];
            if cached == q.p {
                self.stats.hits += 1;
                self.xors[q.child as usize] ^= g;
            } else if !bits::mirror_loss(q.p) {
                let key = bits::canonical(q.p);
                self.table.prefetch(key);
                self.pending[i].key = key;
            }
        }
        // Third pass: the table, and a search for each miss.
        let n = self.pending.len() - pending_start;
        let first = n * self.turn.0 / self.turn.1;
        for k in 0..n {
            let q = self.pending[pending_start + (first + k) % n];
            if q.key == 0 {
                continue;
            }
            let g = match self.lookup(q.p, q.key, q.slot as usize) {
                Ok(g) => g,
                Err(e) => {
                    self.xors.truncate(xors_start);
                    self.pending.truncate(pending_start);
                    return Err(e);
                }
            };
            self.xors[q.child as usize] ^= g;
        }
        let mut seen = Mex::new();
        for &x in &self.xors[xors_start..] {
            seen.add(x);
        }
        self.xors.truncate(xors_start);
        self.pending.truncate(pending_start);
        let g = seen.mex();
        self.table.insert(key, g, self.stats.searched - before);
        self.cache[slot] = (p, g);
        Ok(g)
    }

    /// Record a child (what is left after a move): the XOR of its components known at once,
    /// and the others as pending.
    #[inline]
    fn child(&mut self, mut rest: u64) {
        let child = self.xors.len() as u32;
        let mut g = 0;
        while rest != 0 {
            let comp = bits::flood(rest & rest.wrapping_neg(), rest);
            rest &= !comp;
            let n = comp.count_ones();
            if n <= 2 {
                g ^= n;
                continue;
            }
            let p = bits::normalize(comp);
            if bits::is_bar(p) {
                g ^= n;
                continue;
            }
            if n == 3 {
                g ^= 3; // the L tromino (see `quick`)
                continue;
            }
            let slot = self.cache_slot(p);
            self.prefetch_cache(slot);
            self.pending.push(Pending { p, key: 0, slot: slot as u32, child });
        }
        self.xors.push(g);
    }

    /// The nimsum of a connected component of any size, as its cells.
    pub fn component(&mut self, cells: &[(usize, usize)]) -> Result<u32> {
        self.shape(Shape::from_cells(cells))
    }

    /// The nimsum of a connected component given as a shape: by the 8×8 path, the 8×16 path
    /// or the general one.
    fn shape(&mut self, shape: Shape) -> Result<u32> {
        if let Some(b) = shape.to_small() {
            return self.small(b);
        }
        let n = shape.count();
        if shape.is_bar() {
            return Ok(n as u32);
        }
        if let Some(p) = shape.to_wide() {
            return self.wide(p);
        }
        if n > MAX_COMPONENT {
            return Err(SolveError::TooLarge(n));
        }
        self.large(shape)
    }

    /// The nimsum of a connected component as an oriented, normalized 8×16 bitboard (see
    /// [`crate::wide`]). The same search as [`Solver::small`]'s, without the prefetching
    /// passes: these components are far fewer.
    pub fn wide(&mut self, p: u128) -> Result<u32> {
        let (rows, _) = wide::dims(p);
        if rows == 1 {
            return Ok(p.count_ones());
        }
        if wide::mirror_loss(p) {
            return Ok(0);
        }
        let key = wide::canonical(p);
        if let Some(g) = self.wide.as_ref().and_then(|t| t.get(key)) {
            self.stats.hits += 1;
            return Ok(g);
        }
        self.tick()?;
        let before = self.stats.searched;
        let mut seen = Mex::new();
        let mut cells = p;
        while cells != 0 {
            let s = cells.trailing_zeros();
            cells &= cells - 1;
            let mut mask = 1u128 << s;
            let mut e = s;
            loop {
                seen.add(self.wide_child(p & !mask)?);
                if e % 16 == 15 || p >> (e + 1) & 1 == 0 {
                    break;
                }
                e += 1;
                mask |= 1 << e;
            }
            let mut mask = 1u128 << s;
            let mut e = s;
            while e < 112 && p >> (e + 16) & 1 == 1 {
                e += 16;
                mask |= 1 << e;
                seen.add(self.wide_child(p & !mask)?);
            }
        }
        let g = seen.mex();
        let bytes = self.large_budget / 2;
        self.wide.get_or_insert_with(|| WideTable::new(bytes)).insert(key, g, self.stats.searched - before);
        Ok(g)
    }

    /// The value of what a move leaves of an 8×16 component: its components' XOR.
    fn wide_child(&mut self, mut rest: u128) -> Result<u32> {
        let mut g = 0;
        while rest != 0 {
            let comp = wide::flood(rest & rest.wrapping_neg(), rest);
            rest &= !comp;
            let p = wide::normalize(comp);
            g ^= match wide::to_small(p) {
                Some(b) => self.small(b)?,
                None => self.wide(p)?,
            };
        }
        Ok(g)
    }

    /// The value of a position given as a shape of any number of components: their XOR.
    /// The components are cropped shapes (not cell lists), so that each level of a deep
    /// search holds little.
    fn position(&mut self, shape: &Shape) -> Result<u32> {
        // A child here can take milliseconds (a flood fill and 8 images of a big grid), so
        // the clock is read for each one rather than every 1024 searches.
        self.check()?;
        shape.parts().into_iter().try_fold(0, |g, part| Ok(g ^ self.shape(part)?))
    }

    /// The nimsum of a connected component of any size (the general path).
    pub(crate) fn large(&mut self, shape: Shape) -> Result<u32> {
        let key = shape.canonical();
        if let Some(&g) = self.large.get(&key) {
            self.stats.hits += 1;
            return Ok(g);
        }
        // What this level holds while its children are searched: the shape, its key, the
        // working copy and the parts of a child (about a shape each), and its stack frames.
        // The levels' total has a share of the budget, like the tables.
        let level = 4 * shape.bytes() + 512;
        if self.deep + level > self.large_budget / 4 {
            return Err(SolveError::TooDeep);
        }
        self.tick()?;
        self.deep += level;
        let g = self.large_children(&shape);
        self.deep -= level;
        let g = g?;
        // The map was given its whole capacity up front, so it never grows (no doubling past
        // the budget); when full it is cleared. (Keeping what it has and refusing new entries
        // was tried: far slower, since shapes solved later are never remembered.)
        let bytes = key.bytes();
        if self.large.len() >= self.large_capacity || self.large_bytes + bytes > self.large_budget / 8 {
            self.large.clear();
            self.large_bytes = 0;
        }
        self.large_bytes += bytes;
        self.large.insert(key, g);
        Ok(g)
    }

    /// The mex of a general component's children. Every run, one child at a time, in one
    /// working copy: nothing is kept per run, so a deep search (a level per token taken)
    /// holds little at each level.
    fn large_children(&mut self, shape: &Shape) -> Result<u32> {
        let mut seen = Mex::new();
        let mut child = shape.clone();
        for r in 0..shape.rows {
            for c in 0..shape.cols {
                if !shape.get(r, c) {
                    continue;
                }
                // Runs in row r from (r, c).
                let mut e = c;
                while e < shape.cols && shape.get(r, e) {
                    child.set(r, e, false);
                    seen.add(self.position(&child)?);
                    e += 1;
                }
                (c..e).for_each(|x| child.set(r, x, true));
                // Runs of two or more in column c from (r, c).
                child.set(r, c, false);
                let mut e = r + 1;
                while e < shape.rows && shape.get(e, c) {
                    child.set(e, c, false);
                    seen.add(self.position(&child)?);
                    e += 1;
                }
                (r..e).for_each(|x| child.set(x, c, true));
            }
        }
        Ok(seen.mex())
    }

    /// The nimsum of a whole board. The board is emptied as its components are taken out.
    pub fn board(&mut self, board: &mut Board) -> Result<u64> {
        let mut total: u64 = 0;
        let mut seen_small: HashMap<u64, u32> = HashMap::new(); // equal components cancel
        crate::for_each_component(board, |component| {
            let g = match component {
                crate::Component::Small(b) => {
                    let key = bits::canonical(bits::normalize(b));
                    match seen_small.get(&key) {
                        Some(&g) => g,
                        None => {
                            let g = self.small(b)?;
                            // A random board has millions of kinds of small groups: keep a
                            // bounded number (about 1 MiB); the memo table remembers the rest.
                            if seen_small.len() < SEEN_SMALL {
                                seen_small.insert(key, g);
                            }
                            g
                        }
                    }
                }
                crate::Component::Bar(n) => {
                    total ^= n as u64;
                    return Ok(());
                }
                crate::Component::Cells(cells) => self.component(&cells)?,
            };
            total ^= g as u64;
            Ok(())
        })?;
        Ok(total)
    }
}

#[cfg(test)]
mod tests;
