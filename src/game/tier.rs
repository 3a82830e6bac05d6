//! Positions by index: tiers, an optional capability of a game.
//!
//! A game with tiers splits its positions into **tiers** such that a move goes to the same
//! tier or to a *child tier*, and the tiers with their child tiers form no cycle (Quixo: the
//! numbers of X and O cubes, which never go down). Inside a tier every position has an
//! **index** in `0..tier_size`, and the index gives the position back: a solved tier is then
//! a flat array of records with nothing else stored ([`crate::db::array`]), and the tier
//! solver ([`crate::solve::tier`]) needs no hash table.
//!
//! A game offers it through [`crate::game::GameExt::tiers`] (the [`crate::game::capability`] table); the fallback (`None`) is the
//! ordinary path: `--save` explores everything reachable (the census) and keeps it in the
//! redb store, keyed by position text.
//!
//! The solver asks its questions in index space ([`TierSpace`]), so that it never holds a
//! game's positions, and on every core ([`TierSpace`] is `Sync`). [`Ranker`] numbers any
//! position that is a board of cells holding counted pieces.

use super::value::{GameError, GameResult, Value};

/// A tier's number, as the game chooses it (Quixo: the board's size and the cube counts).
pub type Tier = u64;

/// What the tier solver asks of a game, all in index space.
///
/// Every index in `0..tier_size(t)` must name a position (reachable or not): the solver
/// solves them all, so that the database is an array with nothing else in it.
pub trait TierSpace: Sync {
    /// The tiers a move from `tier` may lead to, other than `tier` itself.
    fn child_tiers(&self, tier: Tier) -> Vec<Tier>;
    /// How many positions `tier` holds.
    fn tier_size(&self, tier: Tier) -> u64;
    /// A name for `tier` in messages and file listings.
    fn tier_name(&self, tier: Tier) -> String;
    /// Symmetry: the index (in the same tier) of the representative of the position at
    /// `index`, which must be the index of `Game::canonical` of the position. The solver
    /// solves and saves only representatives (`canonical_index(t, i) == i`); a lookup reads
    /// the record of the position's canonical form. Fallback: `index` (no symmetry).
    fn canonical_index(&self, _tier: Tier, index: u64) -> u64 {
        index
    }
    /// How many positions the index stands for where positions are counted (`analyze` of a
    /// save): a tier numbered by symmetry classes gives a representative the size of its
    /// class and any other index 0. Fallback: 1 (every index is a position).
    fn positions_at(&self, _tier: Tier, _index: u64) -> u64 {
        1
    }
    /// The value for the player to move at `index` if the game is over there.
    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value>;
    /// The positions one move away from `index`, each as (tier, index) of its representative
    /// under [`TierSpace::canonical_index`] (pushed on `out`, which arrives empty). A move
    /// may be listed twice when two moves lead to the same position.
    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>);
    /// The value of a non-primitive position with no moves (as [`crate::game::Game::stalemate`]).
    fn stalemate_value(&self) -> Value {
        Value::Lose
    }
    /// An error met while answering the questions above, which cannot fail themselves: a
    /// game whose answers can fail (a script's hooks, `crate::script::tiers`) answers
    /// harmlessly and keeps its first error here; the solver and the reachable walk ask
    /// after each tier. Taken: the next call gives `None` until a new error. Fallback:
    /// `None` (a game whose answers never fail).
    fn failure(&self) -> Option<GameError> {
        None
    }
    /// Whether the game gives parent positions ([`TierSpace::parents_at`]). Fallback
    /// (`false`): the solver keeps the reversed edges of the tier it solves (4 bytes an
    /// index, and 4 a move within the tier).
    fn has_parents(&self) -> bool {
        false
    }
    /// Parent positions (undo moves): the representatives (under
    /// [`TierSpace::canonical_index`]), in any tier, of the positions that have the position
    /// at `index` (a representative) among their [`TierSpace::children_at`], pushed on `out`
    /// (which arrives empty), each at least once. Exact: a position with no move to it must
    /// not be listed (the solver counts a parent's children down by them); a primitive
    /// position may be (it has no moves, and the solver skips it). The tier solver uses the
    /// parents in the same tier, instead of keeping reversed edges. Called only when
    /// [`TierSpace::has_parents`] says so.
    fn parents_at(&self, _tier: Tier, _index: u64, _out: &mut Vec<(Tier, u64)>) {}
    /// Whether a move from `tier` may stay in `tier`. `false` (every move leaves the tier,
    /// as Connect-Four's) lets the solver take a tier too big for its memory budget in slices
    /// of its indices. Fallback: `true`.
    fn moves_within(&self, _tier: Tier) -> bool {
        true
    }
}

/// Positions by index: a game's positions in and out of index space.
pub trait Tiers: TierSpace {
    type Pos;
    /// The tier and index of `pos` (of its class' representative in a tier numbered by
    /// symmetry classes, where a position of the class has no index of its own).
    fn locate(&self, pos: &Self::Pos) -> (Tier, u64);
    /// The position at `index` of `tier`.
    fn position(&self, tier: Tier, index: u64) -> Self::Pos;
    /// [`Tiers::locate`], for a game whose numbering can fail (a script's hooks): an error
    /// instead of a harmless answer. Fallback: `locate`.
    fn try_locate(&self, pos: &Self::Pos) -> GameResult<(Tier, u64)> {
        Ok(self.locate(pos))
    }
    /// [`Tiers::position`], for a game whose numbering can fail. Fallback: `position`.
    fn try_position(&self, tier: Tier, index: u64) -> GameResult<Self::Pos> {
        Ok(self.position(tier, index))
    }
    /// The positions `index` of `tier` stands for ([`TierSpace::positions_at`] of them):
    /// in a tier numbered by symmetry classes, a representative's class. Fallback: the
    /// position at it.
    fn try_positions(&self, tier: Tier, index: u64) -> GameResult<Vec<Self::Pos>> {
        Ok(vec![self.try_position(tier, index)?])
    }
}

/// Every tier reachable from `root` through child tiers, leaves first: a tier comes after
/// every tier it moves to (a topological order of the tier graph).
pub fn tier_order(space: &dyn TierSpace, root: Tier) -> Vec<Tier> {
    match tier_order_checked(space, root, &mut |_| Ok(())) {
        Ok(order) => order,
        Err(_) => unreachable!("a check that never fails"),
    }
}

/// [`tier_order`], with `check` asked of each tier as the walk first meets it (before its
/// child tiers are asked for): its first error stops the walk at once, so that a tier graph
/// too big for the budget is refused before it is walked whole (a board of 64 cells and 6
/// kinds has 131 million tiers).
pub fn tier_order_checked(
    space: &dyn TierSpace,
    root: Tier,
    check: &mut dyn FnMut(Tier) -> GameResult<()>,
) -> GameResult<Vec<Tier>> {
    use std::collections::HashSet;
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    // Iterative depth-first search: a tier is written once all its children are.
    let mut stack: Vec<(Tier, Vec<Tier>)> = Vec::new();
    check(root)?;
    seen.insert(root);
    stack.push((root, space.child_tiers(root)));
    while let Some((tier, children)) = stack.last_mut() {
        match children.pop() {
            Some(c) => {
                if seen.insert(c) {
                    check(c)?;
                    let grand = space.child_tiers(c);
                    stack.push((c, grand));
                }
            }
            None => {
                order.push(*tier);
                stack.pop();
            }
        }
    }
    Ok(order)
}

/// Numbers the positions of a board of up to 64 cells holding counted pieces of several
/// kinds (the rest of the cells blank): a position is one bitboard per kind, and its index
/// is its rank among every arrangement of the same counts (multinomial ranking). The counts
/// are the tier; a game whose turn is not fixed by the counts adds a turn bit to the index.
///
/// The rank is mixed-radix: the first kind's cells as a subset of the board, then the second
/// kind's as a subset of the cells left, and so on, each subset ranked in colexicographic
/// order.
///
/// Boards of at most 16 cells (Quixo 4×4, Connect-Four's colourings up to 16 pieces,
/// tic-tac-toe) are ranked through tables shared by every ranker ([`Small`]): a subset's rank
/// is one lookup once its cells are numbered among the free ones (two more), where the loop
/// over its cells costs a binomial a cell.
#[derive(Clone, Debug)]
pub struct Ranker {
    cells: u32,
    /// `binom[n * STRIDE + k]` = C(n, k) for n, k ≤ cells + 1.
    binom: Vec<u64>,
    /// The shared tables, for boards of at most 16 cells.
    small: Option<&'static Small>,
}

const STRIDE: usize = 66;

/// Tables for subsets of 16 cells: colexicographic rank and its inverse, and the two bit
/// moves of ranking (`pext`: a subset's cells numbered among the free cells; `pdep`: back),
/// 8 bits at a time (BMI2's instructions are slow on some of the machines we run on).
#[derive(Debug)]
pub struct Small {
    /// The colex rank of a 16-bit subset among the subsets of its size.
    colex: Vec<u16>,
    /// `unrank[start[k] + r]`: the subset of size k whose colex rank is r.
    unrank: Vec<u16>,
    start: [usize; 18],
    /// `pext[mask << 8 | x]`: the bits of `x` at the set bits of `mask`, packed low.
    pext: Vec<u8>,
    /// `pdep[mask << 8 | x]`: the low bits of `x` placed on the set bits of `mask`.
    pdep: Vec<u8>,
}

impl Small {
    fn get() -> &'static Small {
        static SMALL: std::sync::OnceLock<Small> = std::sync::OnceLock::new();
        SMALL.get_or_init(|| {
            let mut c = [[0u64; 17]; 17];
            for n in 0..17 {
                c[n][0] = 1;
                for k in 1..=n {
                    c[n][k] = c[n - 1][k - 1] + if k < n { c[n - 1][k] } else { 0 };
                }
            }
            let mut start = [0usize; 18];
            for k in 0..17 {
                start[k + 1] = start[k] + c[16][k] as usize;
            }
            let mut colex = vec![0u16; 1 << 16];
            let mut unrank = vec![0u16; 1 << 16];
            for m in 0..1usize << 16 {
                let (mut r, mut j, mut b) = (0u64, 1usize, m);
                while b != 0 {
                    r += c[b.trailing_zeros() as usize][j];
                    j += 1;
                    b &= b - 1;
                }
                colex[m] = r as u16;
                unrank[start[m.count_ones() as usize] + r as usize] = m as u16;
            }
            let mut pext = vec![0u8; 1 << 16];
            let mut pdep = vec![0u8; 1 << 16];
            for mask in 0..256u64 {
                for x in 0..256u64 {
                    pdep[(mask << 8 | x) as usize] = deposit(x, mask) as u8;
                    let (mut out, mut i, mut m) = (0u64, 0, mask);
                    while m != 0 {
                        let bit = m.trailing_zeros();
                        out |= (x >> bit & 1) << i;
                        i += 1;
                        m &= m - 1;
                    }
                    pext[(mask << 8 | x) as usize] = out as u8;
                }
            }
            Small { colex, unrank, start, pext, pdep }
        })
    }

    /// The bits of `b` at the set bits of `free` (16 bits), packed low.
    #[inline]
    fn extract(&self, b: u64, free: u64) -> u64 {
        let lo = self.pext[((free & 255) << 8 | (b & 255)) as usize] as u64;
        let hi = self.pext[((free >> 8 & 255) << 8 | (b >> 8 & 255)) as usize] as u64;
        lo | hi << (free & 255).count_ones()
    }

    /// The low bits of `x` placed on the set bits of `mask` (16 bits).
    #[inline]
    fn place(&self, x: u64, mask: u64) -> u64 {
        let n = (mask & 255).count_ones();
        let lo = self.pdep[((mask & 255) << 8 | (x & ((1 << n) - 1))) as usize] as u64;
        let hi = self.pdep[((mask >> 8 & 255) << 8 | (x >> n & 255)) as usize] as u64;
        lo | hi << 8
    }
}

impl Ranker {
    /// A ranker for boards of `cells` cells (at most 64).
    pub fn new(cells: u32) -> Ranker {
        assert!(cells <= 64, "a ranked board has at most 64 cells");
        let n = cells as usize;
        let mut binom = vec![0u64; (n + 2) * STRIDE];
        for i in 0..=n + 1 {
            binom[i * STRIDE] = 1;
            for k in 1..=i {
                binom[i * STRIDE + k] =
                    binom[(i - 1) * STRIDE + k - 1].saturating_add(if k < i { binom[(i - 1) * STRIDE + k] } else { 0 });
            }
        }
        Ranker { cells, binom, small: (cells <= 16).then(Small::get) }
    }

    /// The same ranker without the tables (tests compare the two).
    #[cfg(test)]
    fn plain(cells: u32) -> Ranker {
        Ranker { small: None, ..Ranker::new(cells) }
    }

    pub fn cells(&self) -> u32 {
        self.cells
    }

    /// C(n, k), 0 when k > n.
    pub fn choose(&self, n: u32, k: u32) -> u64 {
        if k > n { 0 } else { self.binom[n as usize * STRIDE + k as usize] }
    }

    /// How many arrangements hold `counts[i]` pieces of kind `i` (`None` when they do not
    /// fit on the board or the number passes 2^64).
    pub fn count(&self, counts: &[u32]) -> Option<u64> {
        let mut left = self.cells;
        let mut total: u64 = 1;
        for &c in counts {
            if c > left {
                return None;
            }
            total = total.checked_mul(self.choose(left, c))?;
            left -= c;
        }
        Some(total)
    }

    /// The rank of the arrangement `boards` (one disjoint bitboard a kind).
    #[inline]
    pub fn rank(&self, boards: &[u64]) -> u64 {
        let mut free = if self.cells == 64 { u64::MAX } else { (1u64 << self.cells) - 1 };
        let mut rank = 0u64;
        if let Some(t) = self.small {
            let all = free;
            for &b in boards {
                let k = b.count_ones();
                let packed = if free == all { b } else { t.extract(b, free) };
                rank = rank * self.choose(free.count_ones(), k) + t.colex[packed as usize] as u64;
                free &= !b;
            }
            return rank;
        }
        for &b in boards {
            let k = b.count_ones();
            rank = rank * self.choose(free.count_ones(), k) + self.subset_rank(b, free);
            free &= !b;
        }
        rank
    }

    /// The colexicographic rank of `b` as a subset of the cells of `free` (numbered among them).
    fn subset_rank(&self, mut b: u64, free: u64) -> u64 {
        let mut r = 0;
        let mut j = 1;
        while b != 0 {
            let bit = b.trailing_zeros();
            let below = free & ((1u64 << bit) - 1);
            r += self.choose(below.count_ones(), j);
            j += 1;
            b &= b - 1;
        }
        r
    }

    /// The arrangement of rank `index` with `counts[i]` pieces of kind `i`, into `boards`.
    #[inline]
    pub fn unrank(&self, counts: &[u32], mut index: u64, boards: &mut [u64]) {
        // The ranks of each kind's subset, last kind first (the least significant digit).
        let mut digits = [0u64; 16];
        let mut lefts = [0u32; 16];
        let mut left = self.cells;
        for (i, &c) in counts.iter().enumerate() {
            lefts[i] = left;
            left -= c;
        }
        for i in (0..counts.len()).rev() {
            let radix = self.choose(lefts[i], counts[i]);
            digits[i] = index % radix;
            index /= radix;
        }
        let mut free = if self.cells == 64 { u64::MAX } else { (1u64 << self.cells) - 1 };
        if let Some(t) = self.small {
            let all = free;
            for (i, &c) in counts.iter().enumerate() {
                let chosen = t.unrank[t.start[c as usize] + digits[i] as usize] as u64;
                boards[i] = if free == all { chosen } else { t.place(chosen, free) };
                free &= !boards[i];
            }
            return;
        }
        for (i, &c) in counts.iter().enumerate() {
            // Colex unrank among `lefts[i]` free cells, then place on the free cells.
            let mut r = digits[i];
            let mut chosen = 0u64;
            let mut a = lefts[i];
            for j in (1..=c).rev() {
                a -= 1;
                while self.choose(a, j) > r {
                    a -= 1;
                }
                r -= self.choose(a, j);
                chosen |= 1u64 << a;
            }
            boards[i] = deposit(chosen, free);
            free &= !boards[i];
        }
    }
}

/// For boards of columns at most `h` high (gravity: Connect-Four), `t[w * n + m]` = in how
/// many ways `m` pieces fill `w` columns, for `w, m < n` (saturating at 2^64 - 1): the count
/// behind a gravity-aware numbering of a tier (column heights, then the colouring).
pub fn column_fills(h: usize, n: usize) -> Vec<u64> {
    let mut t = vec![0u64; n * n];
    t[0] = 1;
    for w in 1..n {
        for m in 0..n {
            let mut sum = 0u64;
            for v in 0..=h.min(m) {
                sum = sum.saturating_add(t[(w - 1) * n + m - v]);
            }
            t[w * n + m] = sum;
        }
    }
    t
}

/// The bits of `x` placed, in order, on the set bits of `mask` (what BMI2's `pdep` does).
fn deposit(mut x: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    while x != 0 && mask != 0 {
        let low = mask & mask.wrapping_neg();
        if x & 1 != 0 {
            out |= low;
        }
        x >>= 1;
        mask &= mask - 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every arrangement of 2 X and 2 O on 5 cells is numbered 0..30 exactly once, and
    /// unranks to itself (30 = 5!/(2!2!1!)).
    #[test]
    fn ranks_are_a_bijection() {
        let r = Ranker::new(5);
        assert_eq!(r.count(&[2, 2]), Some(30));
        let mut seen = [false; 30];
        for x in 0u64..32 {
            for o in 0u64..32 {
                if x & o != 0 || x.count_ones() != 2 || o.count_ones() != 2 {
                    continue;
                }
                let i = r.rank(&[x, o]) as usize;
                assert!(!seen[i], "rank {i} given twice");
                seen[i] = true;
                let mut back = [0u64; 2];
                r.unrank(&[2, 2], i as u64, &mut back);
                assert_eq!(back, [x, o]);
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// The tables of boards of at most 16 cells rank and unrank exactly as the loop over the
    /// cells does (the definition): every arrangement of 3 kinds on 7 cells, and a sample of
    /// two and three kinds on 16 and 11 cells.
    #[test]
    fn the_small_tables_agree_with_the_definition() {
        let check = |cells: u32, counts: &[u32], step: u64| {
            let (fast, plain) = (Ranker::new(cells), Ranker::plain(cells));
            assert!(fast.small.is_some() && plain.small.is_none());
            let total = plain.count(counts).unwrap();
            let (mut a, mut b) = ([0u64; 3], [0u64; 3]);
            let k = counts.len();
            let mut i = 0;
            while i < total {
                plain.unrank(counts, i, &mut a[..k]);
                fast.unrank(counts, i, &mut b[..k]);
                assert_eq!(a, b, "{cells} cells {counts:?} index {i}");
                assert_eq!(fast.rank(&a[..k]), i);
                assert_eq!(plain.rank(&a[..k]), i);
                i += step;
            }
        };
        for counts in [[1, 2, 3], [2, 2, 2], [3, 0, 4], [0, 0, 0], [7, 0, 0]] {
            check(7, &counts, 1);
        }
        check(16, &[5, 5], 7);
        check(16, &[8, 8], 13);
        check(16, &[16], 1);
        check(16, &[3, 6, 4], 101);
        check(11, &[4, 3, 2], 3);
    }

    #[test]
    fn counts_are_multinomials() {
        let r = Ranker::new(16);
        // 16! / (5! 5! 6!) = 2,018,016.
        assert_eq!(r.count(&[5, 5]), Some(2_018_016));
        assert_eq!(r.count(&[17]), None);
        assert_eq!(Ranker::new(25).count(&[]), Some(1));
    }
}
