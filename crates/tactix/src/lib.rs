//! TacTix nimsums: the solver behind `gamesman tactix`, the native TacTix module of
//! `gamesman`, and the lean `contest` binary. No dependencies but the workspace's `gridkit`
//! (itself without any), so that the contest binary builds for a PlayStation 2 (MIPS R5900)
//! as well.

pub mod bits;
pub mod large;
pub mod memory;
pub use gridkit::pbm;
pub mod solver;
pub mod wide;

use std::io::Read;
use std::time::{Duration, Instant};

pub use solver::{SolveError, Solver};

/// Bytes kept aside from the memory budget for the program itself, its stack and buffers.
pub const RESERVE: usize = 4 << 20;

/// Read a PBM board from `input` and compute its nimsum within `budget` bytes and `limit`.
/// `Err` is the message for a board that is refused or could not be finished.
pub fn nimsum(input: impl Read, budget: usize, limit: Option<Duration>) -> Result<u64, String> {
    nimsum_with_stats(input, budget, limit).0
}

/// [`nimsum`], and what the solver did.
pub fn nimsum_with_stats(
    input: impl Read,
    budget: usize,
    limit: Option<Duration>,
) -> (Result<u64, String>, solver::Stats) {
    let started = Instant::now();
    let mut usable = budget.saturating_sub(RESERVE).max(1 << 16);
    // Under an address-space limit (`prlimit --as`), what is left of it is the real budget:
    // asking for more would end in an allocation failure, not a -1. 8 MiB of it stay aside for
    // what the solver allocates beside its tables (its maps of shapes, the allocator's own
    // overhead), which address space counts in full.
    if let Some(left) = memory::address_space_left() {
        usable = usable.min(left.saturating_sub(8 << 20)).max(1 << 16);
    }
    // The board must fit in half of what is usable, one bit per cell.
    let max_cells = (usable / 2 * 8) as u64;
    let mut board = match pbm::read(input, max_cells) {
        Ok(b) => b,
        Err(e) => return (Err(e.0), solver::Stats::default()),
    };
    // A board of n tokens has components of t tokens with Σ t = n, so at most Σ 2^t ≤ 2^n
    // keys: a small board does not zero a table it cannot fill.
    let tables = usable.saturating_sub(board.bytes()).max(1 << 16).min(table_bytes_for(board.count()));
    let mut solver = Solver::for_board(tables, limit.map(|l| started + l), board.width, board.height);
    let result = solver.board(&mut board).map_err(|e| e.to_string());
    (result, solver.stats)
}

/// The command line shared by `contest` and `gamesman tactix`: `[--max-memory MIB]
/// [--time-limit SECONDS] [FILE]`. Returns the budget, the time limit and the file.
pub fn parse_args(args: &[String], default_mib: usize) -> Result<(usize, Option<Duration>, Option<String>), String> {
    let mut budget = default_mib << 20;
    let mut limit = None;
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| args.get(i + 1).ok_or_else(|| format!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--max-memory" => {
                let v = value(i)?;
                let mib: usize =
                    v.parse().map_err(|_| format!("--max-memory takes a whole number of MiB, not {v:?}"))?;
                budget =
                    mib.checked_shl(20).filter(|_| mib > 0 && mib < 1 << 30).ok_or("--max-memory is out of range")?;
                i += 1;
            }
            "--time-limit" => {
                let v = value(i)?;
                let s: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("--time-limit takes a positive number of seconds, not {v:?}"))?;
                limit = time_limit(s);
                i += 1;
            }
            f if !f.starts_with('-') || f == "-" => {
                if file.replace(f.to_string()).is_some() {
                    return Err("give at most one board file".into());
                }
            }
            other => return Err(format!("unknown option {other:?}")),
        }
        i += 1;
    }
    Ok((budget, limit, file))
}

/// A time limit of `seconds` (positive and finite): `None`, no limit, from a billion seconds
/// (about 32 years) on, which no `Duration` added to an `Instant` could hold in every case.
pub fn time_limit(seconds: f64) -> Option<Duration> {
    (seconds < 1e9).then(|| Duration::from_secs_f64(seconds))
}

/// A connected group of tokens, as [`for_each_component`] hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Component {
    /// A group that fits 8×8, as a normalized bitboard (see [`bits`]).
    Small(u64),
    /// A straight bar of this many tokens (in one row or one column): its nimsum is its length.
    Bar(usize),
    /// Any other group of at most [`solver::MAX_COMPONENT`] tokens, as its cells.
    Cells(Vec<(usize, usize)>),
}

impl Component {
    /// How many tokens.
    pub fn len(&self) -> usize {
        match self {
            Component::Small(b) => b.count_ones() as usize,
            Component::Bar(n) => *n,
            Component::Cells(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The group as a shape (a bar longer than a shape is worth is not one).
    pub fn cells(&self) -> Vec<(usize, usize)> {
        match self {
            Component::Small(b) => (0..64).filter(|i| b >> i & 1 == 1).map(|i| (i / 8, i % 8)).collect(),
            Component::Bar(n) => (0..*n).map(|c| (0, c)).collect(),
            Component::Cells(c) => c.clone(),
        }
    }
}

/// Take the components out of a board one at a time (the board is emptied as it goes), so
/// that only one component's cells are held at once, and never more than
/// [`solver::MAX_COMPONENT`] of them: a bar is counted, not stored, and any other group that
/// grows past the limit stops the walk with [`SolveError::TooLarge`] before it costs memory.
pub fn for_each_component<E: From<SolveError>>(
    board: &mut pbm::Board,
    mut each: impl FnMut(Component) -> Result<(), E>,
) -> Result<(), E> {
    let (height, width) = (board.height, board.width);
    let mut stack = Vec::new();
    let mut cells = Vec::new();
    for r in 0..height {
        for c in 0..width {
            if !board.get(r, c) {
                continue;
            }
            cells.clear();
            let (mut r0, mut r1, mut c0, mut c1) = (r, r, c, c);
            let mut count = 0usize;
            board.set(r, c, false);
            stack.push((r, c));
            while let Some((r, c)) = stack.pop() {
                count += 1;
                (r0, r1, c0, c1) = (r0.min(r), r1.max(r), c0.min(c), c1.max(c));
                if count <= solver::MAX_COMPONENT {
                    cells.push((r, c));
                } else if r0 != r1 && c0 != c1 {
                    return Err(SolveError::TooLarge(count).into());
                } else if !cells.is_empty() {
                    cells = Vec::new(); // a bar: counting is enough
                }
                for (dr, dc) in [(usize::MAX, 0), (1, 0), (0, usize::MAX), (0, 1)] {
                    let (nr, nc) = (r.wrapping_add(dr), c.wrapping_add(dc));
                    if nr < height && nc < width && board.get(nr, nc) {
                        board.set(nr, nc, false);
                        stack.push((nr, nc));
                    }
                }
            }
            let component = if r0 == r1 || c0 == c1 {
                Component::Bar(count)
            } else if r1 - r0 < 8 && c1 - c0 < 8 {
                Component::Small(cells.iter().fold(0u64, |b, &(r, c)| b | 1 << (8 * (r - r0) + (c - c0))))
            } else {
                Component::Cells(std::mem::take(&mut cells))
            };
            each(component)?;
        }
    }
    Ok(())
}

/// The components of a board (the board is emptied), or the first that is too large.
pub fn components(board: &mut pbm::Board) -> Result<Vec<Component>, SolveError> {
    let mut out = Vec::new();
    for_each_component(board, |c| {
        out.push(c);
        Ok::<(), SolveError>(())
    })?;
    Ok(out)
}

/// The nimsum of a board using `threads` threads (`budget` bytes in all).
///
/// The threads share one memo table (half the budget; see [`solver::Table`]). Each big
/// component that fits 8×8 is solved by all the threads at once, each visiting the children
/// in a different order ("lazy SMP": what one thread finds, the others read from the table),
/// and the first to finish stops the others. The other components are shared out among the
/// threads, largest first. (Sharing out one component's moves between threads that each had
/// their own table was tried earlier: each redid the other's work, no faster.)
pub fn nimsum_parallel(
    board: &mut pbm::Board,
    budget: usize,
    deadline: Option<Instant>,
    threads: usize,
) -> Result<u64, SolveError> {
    let threads = threads.max(1);
    let (width, height) = (board.width, board.height);
    // The components waiting to be solved, and the kinds of small groups seen an odd number
    // of times, are held within an eighth of the budget: past it, what is held is solved as
    // a batch and let go. (A random 10,000 × 10,000 board holds tens of millions of tokens in
    // groups beyond 8×8: collected whole, they took 858 MB with --max-memory 64.)
    let held_cap = (budget / 8).max(1 << 20);
    let tables = budget.saturating_sub(held_cap).max(1 << 16);
    // Bars add their length; equal small groups cancel in pairs, so only one of each kind
    // with an odd count is kept (a random board has millions of small groups, few kinds).
    let mut total = 0u64;
    let mut odd_small: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    let mut comps: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut held = 0usize;
    let solve = |comps: Vec<Vec<(usize, usize)>>, budget: usize| -> Result<u64, SolveError> {
        let budget = budget.min(table_bytes_needed(&comps));
        solve_batch(comps, budget, deadline, threads, width, height)
    };
    for_each_component(board, |c| {
        match c {
            Component::Bar(n) => total ^= n as u64,
            Component::Small(b) => {
                // Counted as what it becomes when the batch is solved: its cells.
                let bytes = HELD_PER_SMALL + HELD_PER_COMPONENT + b.count_ones() as usize * CELL;
                let key = bits::canonical(bits::normalize(b));
                if odd_small.remove(&key).is_none() {
                    odd_small.insert(key, b);
                    held += bytes;
                } else {
                    held -= bytes;
                }
            }
            Component::Cells(cells) => {
                held += HELD_PER_COMPONENT + cells.len() * CELL;
                comps.push(cells);
            }
        }
        if held > held_cap {
            comps.extend(odd_small.drain().map(|(_, b)| Component::Small(b).cells()));
            total ^= solve(std::mem::take(&mut comps), tables)?;
            odd_small = std::collections::HashMap::new();
            held = 0;
        }
        Ok::<(), SolveError>(())
    })?;
    comps.extend(odd_small.into_values().map(|b| Component::Small(b).cells()));
    Ok(total ^ solve(comps, tables)?)
}

/// Bytes a component waiting to be solved holds beside its cells (its vector, the
/// allocator's header).
const HELD_PER_COMPONENT: usize = 48;
/// Bytes a kind of small group held in the map of odd counts takes (key, value, the map's
/// control byte and slack).
const HELD_PER_SMALL: usize = 40;
/// Bytes a cell of a component waiting to be solved takes.
const CELL: usize = std::mem::size_of::<(usize, usize)>();

/// The nimsum of some components, largest first (see [`nimsum_parallel`]).
fn solve_batch(
    mut comps: Vec<Vec<(usize, usize)>>,
    budget: usize,
    deadline: Option<Instant>,
    threads: usize,
    width: usize,
    height: usize,
) -> Result<u64, SolveError> {
    comps.sort_by_key(|c| std::cmp::Reverse(c.len()));
    #[cfg(not(target_has_atomic = "64"))]
    let threads = 1;
    if threads == 1 || comps.is_empty() {
        let mut s = Solver::for_board(budget, deadline, width, height);
        return comps.iter().try_fold(0, |acc, c| Ok(acc ^ s.component(c)? as u64));
    }
    #[cfg(target_has_atomic = "64")]
    {
        shared::nimsum(comps, budget, deadline, threads, width.min(height) <= 4)
    }
    #[cfg(not(target_has_atomic = "64"))]
    unreachable!("one thread without 64-bit atomics")
}

/// At most the bytes a memo table can use on these components: a component of t tokens has
/// at most 2^t subsets, so the table never holds more keys than the sum of 2^t (8 bytes an
/// entry, and 2 MiB at least for the front cache and the maps of shapes). A small board then
/// gets a small table: zeroing all of a 128 MiB table cost a 4×5 board more than solving it.
pub fn table_bytes_needed(comps: &[Vec<(usize, usize)>]) -> usize {
    let keys = comps.iter().fold(0usize, |a, c| a.saturating_add(subsets(c.len())));
    keys.saturating_mul(8).max(2 << 20)
}

/// 2^t, or `usize::MAX` where that does not fit.
fn subsets(tokens: usize) -> usize {
    u32::try_from(tokens).ok().and_then(|t| 1usize.checked_shl(t)).unwrap_or(usize::MAX)
}

/// At most the bytes a memo table can use on `tokens` tokens (one component or several): 2^n
/// keys of 8 bytes, and 2 MiB at least (see [`table_bytes_needed`]).
pub fn table_bytes_for(tokens: usize) -> usize {
    subsets(tokens).saturating_mul(8).max(2 << 20)
}

#[cfg(target_has_atomic = "64")]
mod shared {
    use super::{Instant, SolveError, Solver, large::Shape, solver::Table};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Components of at least this many cells are solved by all the threads together.
    const TOGETHER: usize = 16;

    /// A solver thread, with the main thread's stack size: the general path recurses once per
    /// token taken (about 600 bytes a level, up to 4096 levels), more than the 2 MiB a thread
    /// gets by default. Only the pages used are ever touched.
    fn spawn<'scope, T: Send + 'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        f: impl FnOnce() -> T + Send + 'scope,
    ) -> std::thread::ScopedJoinHandle<'scope, T> {
        std::thread::Builder::new().stack_size(8 << 20).spawn_scoped(scope, f).expect("a solver thread")
    }

    pub fn nimsum(
        comps: Vec<Vec<(usize, usize)>>,
        budget: usize,
        deadline: Option<Instant>,
        threads: usize,
        narrow: bool,
    ) -> Result<u64, SolveError> {
        // A board at most 4 across one way has only narrow components (see `Table::narrow`).
        let table = Arc::new(if narrow { Table::narrow(budget / 2) } else { Table::new(budget / 2) });
        let each = budget / 2 / threads;
        let solver = |t: usize, stop: &Arc<AtomicBool>| {
            Solver::sharing(Arc::clone(&table), Arc::clone(stop), (t, threads), each, deadline)
        };
        let mut total = 0u64;
        let (big, rest): (Vec<_>, Vec<_>) =
            comps.into_iter().partition(|c| c.len() >= TOGETHER && Shape::from_cells(c).to_small().is_some());
        for c in big {
            let b = Shape::from_cells(&c).to_small().expect("fits 8×8");
            let stop = Arc::new(AtomicBool::new(false));
            let results: Vec<Result<u32, SolveError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let mut s = solver(t, &stop);
                        let stop = Arc::clone(&stop);
                        spawn(scope, move || {
                            let r = s.small(b);
                            if r.is_ok() {
                                stop.store(true, Ordering::Relaxed);
                            }
                            r
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap_or(Err(SolveError::Timeout))).collect()
            });
            // The first to finish is right (every thread computes the same value); a thread
            // that was stopped says so, and any other error (the time limit) is the answer.
            let g = match results.iter().find_map(|r| r.as_ref().ok()) {
                Some(&g) => g,
                None => return Err(results.into_iter().find_map(Result::err).unwrap_or(SolveError::Timeout)),
            };
            total ^= g as u64;
        }
        let mut shares: Vec<Vec<Vec<(usize, usize)>>> = vec![Vec::new(); threads];
        let mut load = vec![0usize; threads];
        for c in rest {
            let t = (0..threads).min_by_key(|&t| load[t]).expect("threads");
            load[t] += c.len() * c.len();
            shares[t].push(c);
        }
        let never = Arc::new(AtomicBool::new(false));
        let results: Vec<Result<u64, SolveError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .iter()
                .enumerate()
                .map(|(t, share)| {
                    let mut s = solver(t, &never);
                    spawn(scope, move || share.iter().try_fold(0u64, |acc, c| Ok(acc ^ s.component(c)? as u64)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(Err(SolveError::Timeout))).collect()
        });
        results.into_iter().try_fold(total, |acc, r| Ok(acc ^ r?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_board_asks_for_a_small_table() {
        let block = |r: usize, c: usize| (0..r).flat_map(|i| (0..c).map(move |j| (i, j))).collect::<Vec<_>>();
        // 4×5: 20 tokens, at most 2^20 subsets of 8 bytes.
        assert_eq!(table_bytes_needed(&[block(4, 5)]), 8 << 20);
        assert_eq!(table_bytes_needed(&[block(4, 5), block(4, 5)]), 16 << 20);
        // Tiny boards keep 2 MiB; a component of 64 tokens or more asks for everything.
        assert_eq!(table_bytes_needed(&[block(3, 3)]), 2 << 20);
        assert_eq!(table_bytes_needed(&[block(8, 8)]), usize::MAX);
        assert_eq!(table_bytes_needed(&[]), 2 << 20);
        // A whole board's bound: 2^n for n tokens however they are split.
        assert_eq!(table_bytes_for(20), 8 << 20);
        assert_eq!(table_bytes_for(9), 2 << 20);
        assert_eq!(table_bytes_for(64), usize::MAX);
        assert_eq!(table_bytes_for(1 << 40), usize::MAX);
    }
}
