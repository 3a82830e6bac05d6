//! The tier solver: a game with tiers ([`crate::game::tier`]) solved whole, one tier at a
//! time, into the array database ([`crate::db::array`]).
//!
//! The tiers are solved leaves first (a tier after every tier it moves to). Inside a tier:
//!
//! 1. **Scan** (on every core): each representative position (symmetry:
//!    [`TierSpace::canonical_index`]) is either primitive, or has children. A child in another
//!    tier is already solved: its record is read from that tier's array, loaded from the
//!    database for this tier and dropped after. A child in the same tier is an edge of the
//!    tier's graph, kept reversed (parent lists, as indices).
//! 2. **Retrograde analysis**, level by level of remoteness (each level on every core), with a counter of undecided
//!    children a position: a loss found at remoteness r makes its undecided parents wins at
//!    r + 1; a win decrements its parents' counters, and a parent whose children are all
//!    wins is a loss one move slower than its slowest child. Children in other tiers enter
//!    at their own level. Then ties, the same way; what is left goes round in circles: a
//!    draw.
//! 3. **Write** the tier's array (under a temporary name, then renamed). Only representatives
//!    have records; the other indices hold 0 (no record), which compresses to almost nothing:
//!    a lookup reads the record of the position's representative.
//!
//! **Tiers at once**: the next tiers in the order, up to the first that moves to one of them,
//! are solved at the same time, as many as fit the memory budget together
//! ([`TierOptions::memory`]), each on the threads of one pool ([`TierOptions::threads`]). The
//! arrays are the same byte for byte for any number of threads.
//!
//! **Threads**: every phase runs on the pool of [`TierOptions::threads`] (the scan, the
//! gathering of its chunks, the reversed edges, each level, the draws, the compression), so
//! the count given is the count used.
//!
//! **Slices** ([`solve_tier_sliced`]): a tier no move stays in ([`TierSpace::moves_within`])
//! that does not fit the memory budget whole is solved a range of its indices at a time,
//! each range written as it is done ([`crate::db::array::TierWriter`]): the same file, byte
//! for byte. A tier a move may stay in that does not fit whole is solved lean where the game
//! gives parents and 3 bytes an index fit ([`solve_tier_lean`]: the records and counters,
//! no lists), else in passes
//! ([`solve_tier_passes`]): only its records and its child tiers' arrays are held, and each
//! pass asks the game again for the children of the positions still undecided; the same file
//! too. [`fit_bytes`] is the least a tier needs, whole, in slices or in passes.
//!
//! A tier whose array is already saved (and checks out whole: this game's, its size, every
//! block's checksum) is not solved again, so a killed solve resumes at the first tier left
//! unsolved; a damaged one is solved again. The solver knows nothing of any particular game.
//!
//! **Parent positions**: where the game gives them ([`TierSpace::has_parents`]) the solver
//! keeps no reversed edges: the parents of a position decided in the retrograde analysis are
//! asked of the game ([`TierSpace::parents_at`], those in the same tier), and the counters
//! count each position's distinct children in the tier. `GAMESMAN_TIER_PARENTS=off` solves
//! with reversed edges all the same.
//!
//! **Grundy values** ([`TierOptions::grundy`], an impartial game under normal play): once a
//! tier's values are known, its positions are taken in waves, a position once every child
//! in the tier has its Grundy value (Kahn's order of the tier's graph, the counters of
//! same-tier children counted down through the same parents), each wave on every core: a
//! position's Grundy value is the mex of its children's (children in other tiers read from
//! their arrays), 0 at a loss with no moves (or a primitive loss). Where it is undefined,
//! a position has none ([`crate::db::array::NO_GRUNDY`]): a primitive that is not a loss, a
//! position on a loop within the tier (never reached by the waves) or with a child that has
//! none. A tier where no position has one is written without a Grundy column, as a game
//! that is not impartial.

use crate::db::array::{ArrayDb, MAX_REMOTENESS, Rec, TierArray, rec, unrec};
use crate::game::tier::{Tier, TierSpace, tier_order};
use crate::game::{GameError, GameResult, Value};
use crate::progress::Progress;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64};

/// What a tier solve did.
#[derive(Clone, Debug, Default)]
pub struct TierStats {
    /// Tiers reachable from the root's tier.
    pub tiers: usize,
    /// Tiers solved in this run (the rest were saved before).
    pub solved: usize,
    /// Positions (indices) of every tier, symmetric ones included.
    pub positions: u64,
    /// Representatives solved in this run.
    pub representatives: u64,
    /// Bytes the arrays take on disk.
    pub bytes: u64,
}

/// Positions a scan job takes at once.
const CHUNK: usize = 1 << 14;

/// Positions of one level of the retrograde analysis a job takes at once.
const LEVEL_CHUNK: usize = 1 << 12;

/// Decide an undecided record (0) as `r`: whether this call did (and no other thread first).
fn claim(slot: &AtomicU16, r: Rec) -> bool {
    slot.load(Relaxed) == 0 && slot.compare_exchange(0, r, Relaxed, Relaxed).is_ok()
}

/// Environment variable: stop after solving this many tiers (to test resuming).
pub const STOP_AFTER_ENV: &str = "GAMESMAN_STOP_AFTER_TIERS";

/// Environment variable: set (to anything but `0`), each tier solved prints the seconds of its
/// phases on standard error (`tier NAME: N indices, load …, scan …, gather …, edges …,
/// propagate …, finish …`), the write after it (`write …`).
pub const PHASES_ENV: &str = "GAMESMAN_TIER_PHASES";

/// Whether [`PHASES_ENV`] asks for the phases' seconds.
fn phases_shown() -> bool {
    std::env::var(PHASES_ENV).is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0")
}

/// The seconds of each phase of a tier's solve, printed where [`PHASES_ENV`] asks.
pub(crate) struct Phases {
    shown: bool,
    last: std::time::Instant,
    line: String,
}

impl Phases {
    pub(crate) fn new(head: impl FnOnce() -> String) -> Phases {
        let shown = phases_shown();
        Phases { shown, last: std::time::Instant::now(), line: if shown { head() } else { String::new() } }
    }

    /// The phase `what` ends now.
    pub(crate) fn end(&mut self, what: &str) {
        if self.shown {
            let now = std::time::Instant::now();
            self.line.push_str(&format!(", {what} {:.3}", (now - self.last).as_secs_f64()));
            self.last = now;
        }
    }

    pub(crate) fn print(self) {
        if self.shown {
            eprintln!("{}", self.line);
        }
    }
}

/// Environment variable: `off` (or `0`) solves with reversed edges even where the game
/// gives parent positions (to compare the two).
pub const PARENTS_ENV: &str = "GAMESMAN_TIER_PARENTS";

/// How a tier solve runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierOptions {
    /// Compute each position's Grundy value where it is defined: for an impartial game under
    /// normal play (the caller knows the game's kind; the solver does not).
    pub grundy: bool,
    /// Ask the game for parent positions instead of keeping reversed edges.
    pub parents: bool,
    /// Threads the tiers are solved on (0: those of the pool the caller runs in).
    pub threads: usize,
    /// Bytes the tiers solved at once may take together ([`tier_bytes`] each): tiers that do
    /// not move to one another are solved at the same time within it (0: one at a time).
    pub memory: u64,
}

/// Bytes the solver holds an index of the tier it solves, at most (24–27 measured on
/// Connect-Four).
pub const TIER_BYTES_AN_INDEX: u64 = 32;

/// Bytes the solver holds an index of a tier that a move may stay in, solved whole, at least:
/// [`TIER_BYTES_AN_INDEX`] and the tier's own edges (37–40 measured on Quixo 4×4).
pub const WITHIN_BYTES_AN_INDEX: u64 = 48;

/// Bytes solving `tier` whole takes, about: its own state and its child tiers' arrays (2
/// bytes an index).
pub fn tier_bytes(space: &dyn TierSpace, tier: Tier) -> u64 {
    let each = if space.moves_within(tier) { within_bytes_an_index(space) } else { TIER_BYTES_AN_INDEX };
    space.tier_size(tier).saturating_mul(each).saturating_add(child_bytes(space, tier))
}

/// Bytes an index of a tier a move may stay in takes, solved whole, foreseen: where the game
/// gives parents, [`TIER_BYTES_AN_INDEX`] (no edges are kept); else
/// [`WITHIN_BYTES_AN_INDEX`]. A game whose positions have many moves within their tier
/// takes more: the scan counts the edges it keeps (12 bytes each, with the rows they become)
/// and gives the tier up to passes once they pass the room the budget leaves
/// ([`TierOptions::memory`]).
pub fn within_bytes_an_index(space: &dyn TierSpace) -> u64 {
    if TierOptions::for_space(space, false).parents { TIER_BYTES_AN_INDEX } else { WITHIN_BYTES_AN_INDEX }
}

/// Bytes of the arrays of `tier`'s child tiers (2 bytes an index), held while it is solved.
fn child_bytes(space: &dyn TierSpace, tier: Tier) -> u64 {
    space.child_tiers(tier).iter().map(|&c| space.tier_size(c).saturating_mul(2)).sum()
}

/// Environment variable: solve every tier that no move stays in ([`TierSpace::moves_within`])
/// in slices of this many indices (rounded up to a multiple of 16,384), whatever the memory
/// budget: to test and measure the slices.
pub const SLICE_ENV: &str = "GAMESMAN_TIER_SLICE";

/// The fewest indices a slice holds (a slice is a whole number of scan chunks).
pub const SLICE_MIN: u64 = CHUNK as u64;

/// The indices of a slice where there is no memory budget (a tier past 2^32 indices).
const SLICE_UNBOUNDED: u64 = 1 << 26;

/// The least memory solving `tier` takes: [`tier_bytes`], or where no move stays in the tier,
/// its child tiers' arrays and the smallest slice ([`SLICE_MIN`] indices).
pub fn fit_bytes(space: &dyn TierSpace, tier: Tier) -> u64 {
    let whole = tier_bytes(space, tier);
    if space.moves_within(tier) {
        let passes = space.tier_size(tier).saturating_mul(PASS_BYTES_AN_INDEX).saturating_add(PASS_SLACK);
        return whole.min(child_bytes(space, tier).saturating_add(passes));
    }
    let slice = space.tier_size(tier).min(SLICE_MIN).saturating_mul(TIER_BYTES_AN_INDEX);
    whole.min(child_bytes(space, tier).saturating_add(slice))
}

/// Bytes a tier that a move may stay in takes an index when it is solved in passes
/// ([`solve_tier_passes`]): its records, and nothing else.
pub const PASS_BYTES_AN_INDEX: u64 = 2;

/// Bytes a pass takes besides the records and the child tiers' arrays, at most: each thread's
/// list of children and the writer's block.
const PASS_SLACK: u64 = 4 << 20;

/// The indices of each slice `tier` is solved in under the budget of `opts` (as many as the
/// room left by its child tiers' arrays holds at [`TIER_BYTES_AN_INDEX`], a multiple of
/// [`SLICE_MIN`]); `None` to solve it whole: it fits, or Grundy values are asked for. A tier
/// past 2^32 indices is always sliced. A tier a move may stay in is solved in passes
/// ([`solve_tier_passes`]), each pass taking the tier a slice at a time. [`SLICE_ENV`] forces
/// slices.
pub fn slice_of(space: &dyn TierSpace, tier: Tier, opts: TierOptions) -> Option<u64> {
    if opts.grundy {
        return None;
    }
    let size = space.tier_size(tier);
    let forced: Option<u64> = std::env::var(SLICE_ENV).ok().and_then(|v| v.trim().parse().ok());
    let slice = match forced {
        Some(k) => k.max(1).div_ceil(SLICE_MIN) * SLICE_MIN,
        // Past 2^32 indices a tier is solved only in slices (64-bit indices).
        None if size > u32::MAX as u64 || (opts.memory > 0 && tier_bytes(space, tier) > opts.memory) => {
            if opts.memory == 0 { SLICE_UNBOUNDED } else { slice_in(space, tier, opts.memory) }
        }
        None => return None,
    };
    // A tier a move may stay in is solved in passes whenever slices are asked for.
    (slice < size || space.moves_within(tier)).then_some(slice)
}

/// Bytes the lean solve of `tier` takes on `threads` threads ([`solve_tier_lean`]): 3 an
/// index, the child tiers' arrays, and each thread's lists of one chunk of the scan (at most
/// 32 bytes an index of the chunk).
pub fn lean_bytes(space: &dyn TierSpace, tier: Tier, threads: usize) -> u64 {
    space
        .tier_size(tier)
        .saturating_mul(LEAN_BYTES_AN_INDEX)
        .saturating_add(child_bytes(space, tier))
        .saturating_add(threads as u64 * CHUNK as u64 * 32)
}

/// Whether `tier` is solved lean ([`solve_tier_lean`]) under `opts`: a tier a move may stay
/// in, of a game that gives parents, without Grundy values, that would go to passes (it does
/// not fit whole, or has more than 2^32 indices) and fits the budget at
/// [`LEAN_BYTES_AN_INDEX`]. Slices forced by [`SLICE_ENV`] keep the passes.
pub fn lean_of(space: &dyn TierSpace, tier: Tier, opts: TierOptions) -> bool {
    opts.parents
        && !opts.grundy
        && space.moves_within(tier)
        && std::env::var(SLICE_ENV).is_err()
        && slice_of(space, tier, opts).is_some()
        && (opts.memory == 0 || lean_bytes(space, tier, opts.pool_threads()) <= opts.memory)
}

/// The indices of a slice of `tier` under a budget of `memory` bytes: as many as the room
/// left by its child tiers' arrays holds at [`TIER_BYTES_AN_INDEX`], a multiple of
/// [`SLICE_MIN`].
fn slice_in(space: &dyn TierSpace, tier: Tier, memory: u64) -> u64 {
    let room = memory.saturating_sub(child_bytes(space, tier)) / TIER_BYTES_AN_INDEX;
    (room / SLICE_MIN).max(1) * SLICE_MIN
}

impl TierOptions {
    /// The threads a solve under these options runs on.
    pub fn pool_threads(&self) -> usize {
        if self.threads == 0 { rayon::current_num_threads() } else { self.threads }
    }

    /// For `space`: parents where the game gives them (unless [`PARENTS_ENV`] is `off`),
    /// Grundy values when `grundy`.
    pub fn for_space(space: &dyn TierSpace, grundy: bool) -> TierOptions {
        let off = std::env::var(PARENTS_ENV).is_ok_and(|v| matches!(v.trim(), "off" | "0" | "no"));
        TierOptions { grundy, parents: space.has_parents() && !off, threads: 0, memory: 0 }
    }
}

/// Solve every tier reachable from `root` into `db` (skipping tiers saved already), without
/// Grundy values.
pub fn solve(space: &dyn TierSpace, root: Tier, db: &ArrayDb, progress: &Progress) -> GameResult<TierStats> {
    solve_with(space, root, db, progress, TierOptions::for_space(space, false))
}

/// The tiers below `root` in the order they are solved: a tier after every tier it moves to,
/// lowest first (its height: the longest way down to a tier with no child tier), so that the
/// tiers that can be solved at once stand together.
fn solve_order(space: &dyn TierSpace, root: Tier) -> GameResult<Vec<Tier>> {
    let mut order = tier_order(space, root);
    if let Some(e) = space.failure() {
        return Err(e);
    }
    // A tier must come after every tier it moves to: a game whose child tiers go round in a
    // circle (a script's `child_tiers`) is refused before anything is solved.
    let place: HashMap<Tier, usize> = order.iter().enumerate().map(|(k, &t)| (t, k)).collect();
    for (k, &t) in order.iter().enumerate() {
        if let Some(&c) = space.child_tiers(t).iter().find(|c| place.get(c).is_some_and(|&j| j >= k)) {
            return Err(GameError::Definition(format!(
                "the tiers go round in a circle: tier {} moves to tier {}, which moves back to it (child tiers \
                 must never lead back)",
                space.tier_name(t),
                space.tier_name(c)
            )));
        }
    }
    let mut height: HashMap<Tier, usize> = HashMap::new();
    for &t in &order {
        let h = space.child_tiers(t).iter().filter_map(|c| height.get(c)).max().map_or(0, |h| h + 1);
        height.insert(t, h);
    }
    order.sort_by_key(|t| height[t]);
    Ok(order)
}

/// [`solve`] as `opts` says (Grundy values, parent positions).
pub fn solve_with(
    space: &dyn TierSpace,
    root: Tier,
    db: &ArrayDb,
    progress: &Progress,
    opts: TierOptions,
) -> GameResult<TierStats> {
    let order = solve_order(space, root)?;
    let stop_after: Option<usize> = std::env::var(STOP_AFTER_ENV).ok().and_then(|v| v.trim().parse().ok());
    let pool = match opts.threads {
        0 => None,
        n => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| GameError::Unsupported(format!("cannot start {n} threads: {e}")))?,
        ),
    };
    let mut stats = TierStats {
        tiers: order.len(),
        positions: order.iter().map(|&t| space.tier_size(t)).sum(),
        ..TierStats::default()
    };
    // A tier saved before is trusted once it is checked whole (this game's, its size, every
    // block's checksum); a damaged one is solved again.
    let saved = |tier: Tier| -> GameResult<bool> {
        match db.verify(tier, space.tier_size(tier)) {
            Ok(true) => Ok(true),
            Ok(false) => Ok(false),
            Err(e @ crate::db::DbError::Damaged { .. }) => {
                progress.suspend(|| eprintln!("gamesman: note: {e}: solving the tier again"));
                db.remove(tier)?;
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    };
    let mut k = 0;
    while k < order.len() {
        if saved(order[k])? {
            k += 1;
            continue;
        }
        if stop_after.is_some_and(|s| stats.solved >= s) {
            return Err(GameError::Unsupported(format!(
                "stopped after {} tiers, as {STOP_AFTER_ENV} asks (run again to resume)",
                stats.solved
            )));
        }
        if progress.expired() {
            return Err(GameError::TimeLimit(format!(
                "the time limit ran out after {} of {} tiers (the solved tiers are saved: run again to resume)",
                order.iter().take_while(|&&t| db.has(t, space.tier_size(t)).unwrap_or(false)).count(),
                order.len()
            )));
        }
        // A batch of tiers solved at once: the unsaved tiers from here on, up to the first
        // that moves to one of them, as many as fit the memory budget together.
        let most = stop_after.map_or(usize::MAX, |s| s - stats.solved);
        let mut batch = vec![order[k]];
        let mut need = tier_bytes(space, order[k]);
        // A tier solved in slices takes the budget alone.
        let alone = slice_of(space, order[k], opts).is_some();
        k += 1;
        while k < order.len() && batch.len() < most && !alone {
            let t = order[k];
            if saved(t)? {
                k += 1;
                continue;
            }
            let more = tier_bytes(space, t);
            if need.saturating_add(more) > opts.memory
                || space.child_tiers(t).iter().any(|c| batch.contains(c))
                || slice_of(space, t, opts).is_some()
            {
                break;
            }
            need += more;
            batch.push(t);
            k += 1;
        }
        let run = || -> GameResult<u64> {
            batch
                .par_iter()
                .map(|&tier| {
                    let mut load = |c: Tier| -> GameResult<TierArray> { Ok(db.load_full(c, space.tier_size(c))?) };
                    if lean_of(space, tier, opts) {
                        let (records, reps) = solve_tier_lean(space, tier, &mut load)?;
                        db.write_full(tier, &records, None)?;
                        return Ok(reps);
                    }
                    if let Some(slice) = slice_of(space, tier, opts) {
                        let mut w = db.writer(tier, space.tier_size(tier))?;
                        let mut sink = |r: &[Rec]| -> GameResult<()> { Ok(w.push(r)?) };
                        let reps = if space.moves_within(tier) {
                            solve_tier_passes(space, tier, slice, &mut load, &mut sink)?
                        } else {
                            solve_tier_sliced(space, tier, opts, slice, &mut load, &mut sink)?
                        };
                        db.finish(w)?;
                        return Ok(reps);
                    }
                    // The budget less what the batch's other tiers are foreseen to take.
                    let own =
                        TierOptions { memory: opts.memory.saturating_sub(need - tier_bytes(space, tier)), ..opts };
                    let Some((array, reps)) = solve_tier_whole(space, tier, own, &mut load)? else {
                        // Its moves within it would pass the budget: in passes.
                        let mut w = db.writer(tier, space.tier_size(tier))?;
                        let mut sink = |r: &[Rec]| -> GameResult<()> { Ok(w.push(r)?) };
                        let slice = slice_in(space, tier, own.memory);
                        let reps = solve_tier_passes(space, tier, slice, &mut load, &mut sink)?;
                        db.finish(w)?;
                        return Ok(reps);
                    };
                    let mut phases = Phases::new(|| format!("tier {}", space.tier_name(tier)));
                    db.write_full(tier, &array.records, array.grundy.as_deref())?;
                    phases.end("write");
                    phases.print();
                    Ok(reps)
                })
                .sum()
        };
        stats.representatives += match &pool {
            Some(pool) => pool.install(run)?,
            None => run()?,
        };
        stats.solved += batch.len();
        progress.tick(stats.representatives, 0)?;
    }
    stats.bytes = db.bytes();
    Ok(stats)
}

/// What the scan learns of one position from its children in other tiers.
#[derive(Default)]
struct Outside {
    lose_min: Option<u32>,
    tie_min: Option<u32>,
    /// One more than the slowest win (0: no child in another tier).
    win_max1: u32,
    draw: bool,
}

/// Solve one tier, given the records of each of its child tiers (`child`, asked once a child
/// tier): its records, and how many representatives it has. The one-process solver reads the
/// child tiers from the database; the MPI solver (`tier_mpi`, with the feature `mpi`) from what
/// the manager sent.
pub fn solve_tier(
    space: &dyn TierSpace,
    tier: Tier,
    child: &mut dyn FnMut(Tier) -> GameResult<Vec<Rec>>,
) -> GameResult<(Vec<Rec>, u64)> {
    let opts = TierOptions::for_space(space, false);
    let (array, reps) =
        solve_tier_full(space, tier, opts, &mut |c| Ok(TierArray { records: child(c)?, grundy: None }))?;
    Ok((array.records, reps))
}

/// Where the solver finds the parents in the tier of a position: the reversed edges, kept as
/// compressed rows (the parents of j are `parents[start[j]..start[j + 1]]`), or the game.
enum Up<'a> {
    /// No move stays in the tier.
    None,
    Rows {
        start: Vec<u32>,
        parents: Vec<u32>,
    },
    Game(&'a dyn TierSpace, Tier),
}

impl Up<'_> {
    /// The parents of `p` in the tier (from the game: each once).
    fn of<'b>(&'b self, p: u32, buf: &'b mut Vec<u32>, scratch: &mut Vec<(Tier, u64)>) -> &'b [u32] {
        match self {
            Up::None => &[],
            Up::Rows { start, parents } => &parents[start[p as usize] as usize..start[p as usize + 1] as usize],
            Up::Game(space, tier) => {
                scratch.clear();
                space.parents_at(*tier, p as u64, scratch);
                buf.clear();
                buf.extend(scratch.iter().filter(|&&(t, _)| t == *tier).map(|&(_, i)| i as u32));
                buf.sort_unstable();
                buf.dedup();
                buf
            }
        }
    }
}

/// [`solve_tier`] as `opts` says, the child tiers given with their Grundy values (where they
/// have them): the tier's records and Grundy values, and how many representatives it has.
/// Three phases: `scan` every representative against its children in other tiers;
/// `propagate` wins and losses, then ties, level by level back up the tier's own moves; what
/// is left undecided goes round in circles and is a draw.
pub fn solve_tier_full(
    space: &dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    child: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
) -> GameResult<(TierArray, u64)> {
    solve_tier_whole(space, tier, opts, child)?.ok_or_else(|| {
        GameError::OutOfMemory(format!(
            "tier {}: its moves within it take more than the memory budget of {} MiB",
            space.tier_name(tier),
            opts.memory >> 20
        ))
    })
}

/// [`solve_tier_full`], or `None` where the budget ([`TierOptions::memory`], 0: none) cannot
/// hold the reversed edges of the tier's moves within it (12 bytes each, on top of
/// [`TIER_BYTES_AN_INDEX`] and 4 bytes an index, and the child tiers' arrays): the scan stops
/// once it has kept more (past it by at most a chunk's edges a thread), and the caller solves
/// the tier in passes instead.
fn solve_tier_whole(
    space: &dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    child: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
) -> GameResult<Option<(TierArray, u64)>> {
    let size = space.tier_size(tier);
    if size > u32::MAX as u64 {
        return Err(GameError::OutOfMemory(format!(
            "tier {} has {size} positions, more than the tier solver indexes (2^32)",
            space.tier_name(tier)
        )));
    }
    let n = size as usize;
    let name = space.tier_name(tier);
    let mut phases = Phases::new(|| format!("tier {name}: {n} indices"));
    // The child tiers' arrays, for this tier only.
    let mut children_of = load_children(space, tier, child)?;
    phases.end("load");
    let room = match opts.memory {
        0 => u64::MAX,
        m => m.saturating_sub(child_bytes(space, tier) + size * (TIER_BYTES_AN_INDEX + 4)),
    };
    let Some(chunks) = scan(space, tier, opts, &children_of, &name, room) else {
        return Ok(None);
    };
    phases.end("scan");
    if !opts.grundy {
        drop(std::mem::take(&mut children_of));
    }
    if let Some(e) = space.failure() {
        return Err(e);
    }
    if let Some(e) = chunks.iter().find_map(|c| c.error.clone()) {
        return Err(GameError::Definition(e));
    }
    let mut state = State::gather(&chunks, n, opts.grundy);
    phases.end("gather");
    let up = reversed_edges(space, tier, opts, &chunks, n, state.same_moves, state.edge_count);
    drop(chunks);
    phases.end(&format!("edges ({} kept)", state.edge_count));
    propagate(&mut state, &up, &name)?;
    phases.end("propagate");
    let State { recs, waiting, first_wave, same_left, reps, .. } = state;
    // What is left undecided goes round in circles: a draw.
    let draw = rec(Value::Draw, 0);
    waiting.par_chunks(LEVEL_CHUNK).for_each(|part| {
        for &i in part {
            let _ = recs[i as usize].compare_exchange(0, draw, Relaxed, Relaxed);
        }
    });
    drop(waiting);
    // The same allocation, its atomics taken as plain records.
    let recs: Vec<Rec> = recs.into_iter().map(AtomicU16::into_inner).collect();
    let grundy =
        if opts.grundy { grundy_values(space, tier, &recs, &children_of, &up, first_wave, same_left)? } else { None };
    phases.end("finish");
    phases.print();
    Ok(Some((TierArray { records: recs, grundy }, reps)))
}

/// The arrays of `tier`'s child tiers (`child`, asked once a child tier), held while it is
/// solved; an error the game met while listing them.
fn load_children(
    space: &dyn TierSpace,
    tier: Tier,
    child: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
) -> GameResult<HashMap<Tier, TierArray>> {
    let mut children_of = HashMap::new();
    for c in space.child_tiers(tier) {
        children_of.insert(c, child(c)?);
    }
    match space.failure() {
        Some(e) => Err(e),
        None => Ok(children_of),
    }
}

/// Solve a tier that no move stays in ([`TierSpace::moves_within`] is `false`) in slices of
/// `slice` indices (a multiple of [`SLICE_MIN`]), each handed to `sink` in order once solved
/// and then dropped: how many representatives it has. Only the child tiers' arrays and one
/// slice are held. With no move within the tier, a position's record follows from its
/// children in other tiers alone, as [`solve_tier_full`] finds it: a losing child at
/// remoteness r makes a win in r + 1; else a tying child a tie in r + 1; else a drawing child
/// a draw; else (all wins, the scan decides it) a loss one more than the slowest. So the
/// records are those of the tier solved whole, and the file written from them the same
/// byte for byte.
pub fn solve_tier_sliced(
    space: &dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    slice: u64,
    child: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
    sink: &mut dyn FnMut(&[Rec]) -> GameResult<()>,
) -> GameResult<u64> {
    solve_tier_part(space, tier, opts, 0..space.tier_size(tier), slice, child, sink)
}

/// [`solve_tier_sliced`] over the indices `part` of the tier only (its start a multiple of
/// [`SLICE_MIN`], its end one too or the tier's end): the records of `part`, handed to `sink`
/// a slice at a time, and how many representatives it holds. What an MPI worker solves of a
/// tier split across workers.
pub fn solve_tier_part(
    space: &dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    part: std::ops::Range<u64>,
    slice: u64,
    child: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
    sink: &mut dyn FnMut(&[Rec]) -> GameResult<()>,
) -> GameResult<u64> {
    let n = space.tier_size(tier);
    if slice == 0 || !slice.is_multiple_of(SLICE_MIN) {
        return Err(GameError::Unsupported(format!("a slice of {slice} indices is not a multiple of {SLICE_MIN}")));
    }
    if part.start > part.end
        || part.end > n
        || !part.start.is_multiple_of(SLICE_MIN)
        || !(part.end == n || part.end.is_multiple_of(SLICE_MIN))
    {
        return Err(GameError::Unsupported(format!(
            "indices {}..{} are not a part of a tier of {n} in whole chunks of {SLICE_MIN}",
            part.start, part.end
        )));
    }
    let name = space.tier_name(tier);
    let mut phases =
        Phases::new(|| format!("tier {name}: indices {}..{} of {n} in slices of {slice}", part.start, part.end));
    let children_of = load_children(space, tier, child)?;
    phases.end("load");
    let per = slice / SLICE_MIN;
    let chunks_all = part.end.div_ceil(SLICE_MIN);
    let mut reps = 0u64;
    let mut first = part.start / SLICE_MIN;
    while first < chunks_all {
        let last = (first + per).min(chunks_all);
        let (recs, r) = slice_records(space, tier, opts, &children_of, &name, first..last)?;
        reps += r;
        phases.end("scan");
        sink(&recs)?;
        phases.end("write");
        first = last;
    }
    phases.print();
    Ok(reps)
}

/// The records of the scan chunks `chunks` (chunk c: indices c × 16,384 up to the next
/// chunk's or the tier's end) of a tier no move stays in, and how many representatives they
/// hold: one slice of [`solve_tier_sliced`]. Indices are 64-bit all the way.
fn slice_records(
    space: &dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    children_of: &HashMap<Tier, TierArray>,
    name: &str,
    chunks: std::ops::Range<u64>,
) -> GameResult<(Vec<Rec>, u64)> {
    let too_far = || {
        GameError::Unsupported(format!("a remoteness in tier {name} passes {MAX_REMOTENESS}, more than a record holds"))
    };
    let n = space.tier_size(tier);
    let base = chunks.start * SLICE_MIN;
    let end = (chunks.end * SLICE_MIN).min(n);
    let scanned: Vec<Chunk> = (chunks.start as usize..chunks.end as usize)
        .into_par_iter()
        .map(|c| scan_chunk(space, tier, opts, children_of, name, c))
        .collect();
    if let Some(e) = space.failure() {
        return Err(e);
    }
    if let Some(e) = scanned.iter().find_map(|c| c.error.clone()) {
        return Err(GameError::Definition(e));
    }
    if scanned.iter().any(|c| c.same_moves > 0) {
        return Err(GameError::Definition(format!(
            "tier {name} has a move within itself, though the game says no move stays in it (moves_within)"
        )));
    }
    let mut recs: Vec<Rec> = vec![0; (end - base) as usize];
    // Chunk k of the slice is part k of the records; a position is its offset in the chunk.
    recs.par_chunks_mut(CHUNK).zip(&scanned).try_for_each(|(part, c)| {
        for &(i, r) in &c.decided {
            part[i as usize] = r;
        }
        let draw = rec(Value::Draw, 0);
        for &(i, _, _, _) in &c.waiting {
            part[i as usize] = draw;
        }
        for &(l, i) in &c.tie_events {
            part[i as usize] = rec(Value::Tie, (l + 1).min(MAX_REMOTENESS));
        }
        for &(l, i) in &c.lose_events {
            part[i as usize] = rec(Value::Win, l + 1);
            if l + 1 >= MAX_REMOTENESS {
                return Err(too_far());
            }
        }
        // The retrograde analysis refuses a win or loss at the last remoteness a record holds.
        if c.decided
            .iter()
            .any(|&(_, r)| matches!(unrec(r), Some((Value::Win | Value::Lose, Some(x))) if x >= MAX_REMOTENESS))
        {
            return Err(too_far());
        }
        Ok(())
    })?;
    Ok((recs, scanned.iter().map(|c| c.reps).sum()))
}

/// What the scan learns of one chunk of a tier's indices. A position is named by its offset
/// from the chunk's first index (`base`), so that a tier past 2^32 indices (solved in slices)
/// is numbered in full; the edges, kept only by a whole solve (at most 2^32 indices), name
/// positions by their index.
struct Chunk {
    /// The chunk's first index.
    base: u64,
    /// (parent, child) edges inside the tier (none kept when the game gives parents).
    edges: Vec<(u32, u32)>,
    /// Moves inside the tier.
    same_moves: u64,
    /// (offset, record) decided by the scan: primitives, stalemates, and positions all of
    /// whose children are in other tiers and are wins.
    decided: Vec<(u32, Rec)>,
    /// (offset, same-tier children, blocked, win_max1): positions waiting on the tier.
    waiting: Vec<(u32, u8, bool, u16)>,
    /// (level, offset): a losing child in another tier at that level.
    lose_events: Vec<(u32, u32)>,
    tie_events: Vec<(u32, u32)>,
    reps: u64,
    error: Option<String>,
}

/// The scan, on every core: each representative of the tier against its children in other
/// tiers (`children_of`), chunk by chunk; `None` once the edges kept take more than `room`
/// bytes (12 an edge).
fn scan(
    space: &dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    children_of: &HashMap<Tier, TierArray>,
    name: &str,
    room: u64,
) -> Option<Vec<Chunk>> {
    let chunks = space.tier_size(tier).div_ceil(CHUNK as u64) as usize;
    let kept = AtomicU64::new(0);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            if kept.load(Relaxed) > room {
                return None;
            }
            let chunk = scan_chunk(space, tier, opts, children_of, name, c);
            let bytes = chunk.edges.len() as u64 * 12;
            (kept.fetch_add(bytes, Relaxed) + bytes <= room).then_some(chunk)
        })
        .collect()
}

/// [`scan`] of the indices of chunk `c`.
fn scan_chunk(
    space: &dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    children_of: &HashMap<Tier, TierArray>,
    name: &str,
    c: usize,
) -> Chunk {
    let n = space.tier_size(tier);
    let base = c as u64 * CHUNK as u64;
    let mut out = Chunk {
        base,
        edges: Vec::new(),
        same_moves: 0,
        decided: Vec::new(),
        waiting: Vec::new(),
        lose_events: Vec::new(),
        tie_events: Vec::new(),
        reps: 0,
        error: None,
    };
    let mut kids = Vec::with_capacity(64);
    let mut same_kids: Vec<u64> = Vec::new();
    for i in base..(base + CHUNK as u64).min(n) {
        if space.canonical_index(tier, i) != i {
            continue;
        }
        out.reps += 1;
        let off = (i - base) as u32;
        if let Some(v) = space.primitive_at(tier, i) {
            out.decided.push((off, rec(v, 0)));
            continue;
        }
        kids.clear();
        space.children_at(tier, i, &mut kids);
        if kids.is_empty() {
            out.decided.push((off, rec(space.stalemate_value(), 0)));
            continue;
        }
        let mut same = 0u32;
        let mut o = Outside::default();
        same_kids.clear();
        for &(t, j) in &kids {
            if t == tier {
                if opts.parents {
                    same_kids.push(j);
                } else {
                    out.edges.push((i as u32, j as u32));
                    same += 1;
                }
                continue;
            }
            let Some(arr) = children_of.get(&t) else {
                out.error = Some(format!("a move from tier {name} goes to a tier it does not list ({t:x})"));
                return out;
            };
            let Some((v, r)) = arr.records.get(j as usize).and_then(|&r| unrec(r)) else {
                out.error = Some(format!("a child of tier {name} is missing from tier {t:x}"));
                return out;
            };
            let r = r.unwrap_or(0);
            match v {
                Value::Lose => o.lose_min = Some(o.lose_min.map_or(r, |m| m.min(r))),
                Value::Tie => o.tie_min = Some(o.tie_min.map_or(r, |m| m.min(r))),
                Value::Win => o.win_max1 = o.win_max1.max(r + 1),
                Value::Draw => o.draw = true,
            }
        }
        if opts.parents {
            // Counted down once a parent the game lists: distinct children.
            same_kids.sort_unstable();
            same_kids.dedup();
            same = same_kids.len() as u32;
        }
        out.same_moves += same as u64;
        // The counter keeps its top bit for "blocked" (a child elsewhere that is not a win).
        if same > 0x7f {
            out.error = Some(format!("a position of tier {name} has more than 127 moves within its tier"));
            return out;
        }
        if let Some(l) = o.lose_min {
            out.lose_events.push((l, off));
        }
        if let Some(t) = o.tie_min {
            out.tie_events.push((t, off));
        }
        let blocked = o.lose_min.is_some() || o.tie_min.is_some() || o.draw;
        if same == 0 && !blocked {
            out.decided.push((off, rec(Value::Lose, o.win_max1)));
        } else {
            out.waiting.push((off, same as u8, blocked, o.win_max1 as u16));
        }
    }
    out
}

/// Put `i` in the list of `level`.
fn push(v: &mut Vec<Vec<u32>>, level: u32, i: u32) {
    let l = level as usize;
    if v.len() <= l {
        v.resize_with(l + 1, Vec::new);
    }
    v[l].push(i);
}

/// The tier's state while it is solved.
struct State {
    /// Records (0: undecided).
    recs: Vec<AtomicU16>,
    /// Counters of undecided same-tier children (the top bit: never a loss).
    left: Vec<AtomicU8>,
    /// The slowest outside win (+1) a waiting position has.
    win_max1: hashbrown::HashMap<u32, u16>,
    /// The positions decided at each level (wins and losses), and the ties.
    levels: Vec<Vec<u32>>,
    ties: Vec<Vec<u32>>,
    /// Positions with a losing (tying) child in another tier, by that child's level.
    lose_at: Vec<Vec<u32>>,
    tie_at: Vec<Vec<u32>>,
    /// The positions the scan left waiting.
    waiting: Vec<u32>,
    /// For the Grundy values: the positions with no child in the tier (the first wave), and
    /// every position's count of children in the tier.
    first_wave: Vec<u32>,
    same_left: Vec<u8>,
    reps: u64,
    edge_count: usize,
    same_moves: u64,
}

impl State {
    /// The chunks of the scan gathered into the state of a tier of `n` indices: the arrays of
    /// an index filled on every core (chunk `c` of the scan holds indices
    /// `c × CHUNK .. (c + 1) × CHUNK`), the lists in the chunks' order.
    fn gather(chunks: &[Chunk], n: usize, grundy: bool) -> State {
        let recs: Vec<AtomicU16> = std::iter::repeat_with(|| AtomicU16::new(0)).take(n).collect();
        let left: Vec<AtomicU8> = std::iter::repeat_with(|| AtomicU8::new(0)).take(n).collect();
        let mut same_left: Vec<u8> = if grundy { vec![0; n] } else { Vec::new() };
        // Each chunk's indices lie in its own range: the stores never meet.
        chunks.par_iter().for_each(|c| {
            let b = c.base as usize;
            for &(i, r) in &c.decided {
                recs[b + i as usize].store(r, Relaxed);
            }
            for &(i, same, blocked, _) in &c.waiting {
                left[b + i as usize].store(same | if blocked { 0x80 } else { 0 }, Relaxed);
            }
        });
        if grundy {
            same_left.par_chunks_mut(CHUNK).zip(chunks).for_each(|(part, c)| {
                for &(i, same, _, _) in &c.waiting {
                    part[i as usize] = same;
                }
            });
        }
        let mut st = State {
            recs,
            left,
            win_max1: hashbrown::HashMap::new(),
            levels: Vec::new(),
            ties: Vec::new(),
            lose_at: Vec::new(),
            tie_at: Vec::new(),
            waiting: Vec::new(),
            first_wave: Vec::new(),
            same_left,
            reps: 0,
            edge_count: 0,
            same_moves: 0,
        };
        for c in chunks {
            // The tier is solved whole: its indices fit 32 bits.
            let b = c.base as u32;
            st.waiting.extend(c.waiting.iter().map(|w| b + w.0));
            st.reps += c.reps;
            st.edge_count += c.edges.len();
            st.same_moves += c.same_moves;
            if grundy {
                st.first_wave.extend(c.decided.iter().map(|d| b + d.0));
                st.first_wave.extend(c.waiting.iter().filter(|w| w.1 == 0).map(|w| b + w.0));
            }
            for &(i, r) in &c.decided {
                let i = b + i;
                let (v, rem) = unrec(r).expect("a record");
                match v {
                    Value::Tie => push(&mut st.ties, 0, i),
                    _ => push(&mut st.levels, rem.unwrap_or(0), i),
                }
            }
            for &(i, _, _, w) in &c.waiting {
                if w > 0 {
                    st.win_max1.insert(b + i, w);
                }
            }
            for &(l, i) in &c.lose_events {
                push(&mut st.lose_at, l, b + i);
            }
            for &(l, i) in &c.tie_events {
                push(&mut st.tie_at, l, b + i);
            }
        }
        st
    }
}

/// The reversed edges, as compressed rows: the parents of j are
/// `parents[start[j]..start[j + 1]]`; none kept where the game gives parents, or where no move
/// stays in the tier.
fn reversed_edges<'a>(
    space: &'a dyn TierSpace,
    tier: Tier,
    opts: TierOptions,
    chunks: &[Chunk],
    n: usize,
    same_moves: u64,
    edge_count: usize,
) -> Up<'a> {
    if same_moves == 0 {
        return Up::None;
    }
    if opts.parents {
        return Up::Game(space, tier);
    }
    // Counted and placed on every core; then each row sorted, so that a row lists its
    // parents in increasing order whatever the threads did.
    let count: Vec<AtomicU32> = std::iter::repeat_with(|| AtomicU32::new(0)).take(n + 1).collect();
    chunks.par_iter().for_each(|c| {
        for &(_, j) in &c.edges {
            count[j as usize + 1].fetch_add(1, Relaxed);
        }
    });
    let mut start: Vec<u32> = count.into_iter().map(AtomicU32::into_inner).collect();
    for j in 0..n {
        start[j + 1] += start[j];
    }
    let fill: Vec<AtomicU32> = start.iter().map(|&s| AtomicU32::new(s)).collect();
    let parents: Vec<AtomicU32> = std::iter::repeat_with(|| AtomicU32::new(0)).take(edge_count).collect();
    chunks.par_iter().for_each(|c| {
        for &(i, j) in &c.edges {
            parents[fill[j as usize].fetch_add(1, Relaxed) as usize].store(i, Relaxed);
        }
    });
    drop(fill);
    let mut parents: Vec<u32> = parents.into_iter().map(AtomicU32::into_inner).collect();
    // Rows in groups of CHUNK, each group's slice of `parents` apart from the others'.
    let mut groups: Vec<(usize, &mut [u32])> = Vec::with_capacity(n.div_ceil(CHUNK));
    let mut rest: &mut [u32] = &mut parents;
    for g in (0..n).step_by(CHUNK) {
        let end = (g + CHUNK).min(n);
        let (here, after) = rest.split_at_mut((start[end] - start[g]) as usize);
        groups.push((g, here));
        rest = after;
    }
    groups.into_par_iter().for_each(|(g, here)| {
        let base = start[g];
        for j in g..(g + CHUNK).min(n) {
            here[(start[j] - base) as usize..(start[j + 1] - base) as usize].sort_unstable();
        }
    });
    Up::Rows { start, parents }
}

/// Wins and losses, level by level, each level on every core; then ties likewise. A level's
/// outcome does not depend on the order its positions are taken in: a parent becomes a win at
/// the first level one of its children is a loss (claimed once, by compare-and-swap), and a
/// loss when its last child becomes a win (the counter reaches 0 once); a parent with a losing
/// child never counts down to 0. So the arrays are the same for any number of threads.
fn propagate(st: &mut State, up: &Up, name: &str) -> GameResult<()> {
    let too_far = || {
        GameError::Unsupported(format!("a remoteness in tier {name} passes {MAX_REMOTENESS}, more than a record holds"))
    };
    let not_a_parent = |q: u32, p: u32| {
        GameError::Definition(format!(
            "tier {name}: the game lists index {q} as a parent of index {p} (parents_at), but it has no move to it \
             (children_at)"
        ))
    };
    let (recs, left, win_max1) = (&st.recs, &st.left, &st.win_max1);
    let mut level = 0usize;
    while level < st.levels.len() || level < st.lose_at.len() {
        if level as u32 >= MAX_REMOTENESS {
            return Err(too_far());
        }
        let next = level as u32 + 1;
        let win = rec(Value::Win, next);
        if let Some(list) = st.lose_at.get_mut(level).map(std::mem::take) {
            for i in list {
                if claim(&recs[i as usize], win) {
                    push(&mut st.levels, next, i);
                }
            }
        }
        let here = st.levels.get_mut(level).map(std::mem::take).unwrap_or_default();
        let found = here
            .par_chunks(LEVEL_CHUNK)
            .map_init(
                || (Vec::<u32>::new(), Vec::<(Tier, u64)>::new()),
                |(buf, scratch), part| -> GameResult<Vec<(u32, u32)>> {
                    // (level, position) decided here.
                    let mut out = Vec::new();
                    for &p in part {
                        let lost = unrec(recs[p as usize].load(Relaxed)).map(|(v, _)| v) == Some(Value::Lose);
                        for &q in up.of(p, buf, scratch) {
                            let qi = q as usize;
                            if recs[qi].load(Relaxed) != 0 {
                                continue;
                            }
                            if lost {
                                if claim(&recs[qi], win) {
                                    out.push((next, q));
                                }
                                continue;
                            }
                            let before = left[qi].fetch_sub(1, Relaxed);
                            if before & 0x7f == 0 {
                                return Err(not_a_parent(q, p));
                            }
                            if before == 1 {
                                let r = next.max(win_max1.get(&q).copied().unwrap_or(0) as u32);
                                if r > MAX_REMOTENESS {
                                    return Err(too_far());
                                }
                                recs[qi].store(rec(Value::Lose, r), Relaxed);
                                out.push((r, q));
                            }
                        }
                    }
                    Ok(out)
                },
            )
            .collect::<GameResult<Vec<_>>>()?;
        for (r, q) in found.into_iter().flatten() {
            push(&mut st.levels, r, q);
        }
        level += 1;
    }
    // Ties, level by level (each on every core); the undecided that reach no tie are draws.
    let mut level = 0usize;
    while level < st.ties.len() || level < st.tie_at.len() {
        let next = (level as u32 + 1).min(MAX_REMOTENESS);
        let tie = rec(Value::Tie, next);
        if let Some(list) = st.tie_at.get_mut(level).map(std::mem::take) {
            for i in list {
                if claim(&recs[i as usize], tie) {
                    push(&mut st.ties, next, i);
                }
            }
        }
        let here = st.ties.get_mut(level).map(std::mem::take).unwrap_or_default();
        let found: Vec<Vec<u32>> = here
            .par_chunks(LEVEL_CHUNK)
            .map_init(
                || (Vec::<u32>::new(), Vec::<(Tier, u64)>::new()),
                |(buf, scratch), part| {
                    let mut out = Vec::new();
                    for &p in part {
                        for &q in up.of(p, buf, scratch) {
                            if claim(&recs[q as usize], tie) {
                                out.push(q);
                            }
                        }
                    }
                    out
                },
            )
            .collect();
        for q in found.into_iter().flatten() {
            push(&mut st.ties, next, q);
        }
        level += 1;
    }
    st.left = Vec::new();
    st.win_max1 = hashbrown::HashMap::new();
    Ok(())
}

mod grundy;
use grundy::grundy_values;
pub mod lean;
pub use lean::{LEAN_BYTES_AN_INDEX, solve_tier_lean};
pub mod passes;
pub use passes::solve_tier_passes;

#[cfg(test)]
mod tests;
