//! The tier solver on many machines, over MPI (the cargo feature `mpi`; docs/mpi.md).
//!
//! Run as `mpirun -np N gamesman solve GAME --save --mpi`. Rank 0 is the **manager**: it alone
//! reads and writes the array database ([`ArrayDb`]), finds which tiers are saved already,
//! and hands each idle worker a tier whose child tiers are all solved. Ranks 1..N are
//! **workers**: each solves the tier it is given with all its threads, by the same per-tier
//! solver as the one-process solve ([`super::tier::solve_tier_full`]), and sends back the tier's
//! file, made as the database writes it ([`crate::db::array::encode_tier_with`]: compressed blocks,
//! each with its CRC-32, and a checksummed header). The manager checks every block and writes
//! the file as it came, so the database is the one-process solve's, byte for byte.
//!
//! No shared disk: the manager sends with each tier the files of the child tiers that the
//! worker does not hold yet (compressed, as on disk); a worker keeps the tiers it was sent and
//! the tiers it solved, and drops one when the manager says that every tier that moves to it
//! is solved. Every message carries a CRC-32 of its bytes, and the tier files in it carry
//! their own, checked on arrival in both directions.
//!
//! Faults: a worker that fails (an error in the game, a message that fails its check) tells
//! the manager, which lets the other workers finish the tiers they hold, saves them, stops
//! every rank and reports the error. A worker that dies (killed, out of memory) makes mpirun
//! end the whole job; the manager then says how many tiers are saved before it goes. Every
//! tier saved is whole (written under a temporary name and renamed), so the same command
//! resumes from them. With one rank, the manager solves every tier itself (the one-process
//! solver).

use super::tier::{STOP_AFTER_ENV, TierOptions, TierStats, slice_of, solve_tier_full, solve_tier_part};
use crate::db::array::{
    ArrayDb, BLOCK_RECORDS, PackedBlock, TierArray, assemble_tier, check_block, compress_blocks, decode_tier,
    decode_tier_full, encode_tier_with,
};
use crate::game::tier::{Tier, TierSpace, tier_order};
use crate::game::{GameError, GameResult};
use crate::progress::Progress;
use mpi::Threading;
use mpi::point_to_point::{MatchedReceiveVec, Message, Status};
use mpi::topology::{Rank, SimpleCommunicator};
use mpi::traits::*;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Environment variable, a test hook: the worker of rank 1 exits, as if killed (no word to
/// the manager, no MPI finalize), in the middle of the tier after it has solved this many.
pub const DIE_AFTER_ENV: &str = "GAMESMAN_MPI_DIE_AFTER_TIERS";

/// Environment variable, a test hook: the worker of rank 1 changes one byte of the file of
/// the tier it solves after this many (after the file's checksums are made, before the
/// message's), as a fault of memory or of the wire would: the manager must refuse it.
pub const DAMAGE_AFTER_ENV: &str = "GAMESMAN_MPI_DAMAGE_AFTER_TIERS";

/// Manager to worker.
const TAG_WORK: i32 = 1;
/// Worker to manager.
const TAG_REPLY: i32 = 2;

const WORK_SOLVE: u8 = 1;
const WORK_STOP: u8 = 2;
const WORK_PART: u8 = 3;
const REPLY_HELLO: u8 = 1;
const REPLY_DONE: u8 = 2;
const REPLY_FAILED: u8 = 3;
const REPLY_PART: u8 = 4;

/// Environment variable: split every tier that no move stays in into this many parts (at
/// most one a block of its file), whatever its size: to test and measure the split.
pub const SPLIT_ENV: &str = "GAMESMAN_MPI_SPLIT";

/// A tier no move stays in of at least this many indices is split into one part a worker.
const SPLIT_FROM: u64 = 1 << 21;

/// The parts a tier is solved in (each a run of whole blocks of its file, solved by one
/// worker in slices, its blocks sent compressed), or `None` to solve it whole on one worker:
/// a tier a move may stay in (its positions wait on one another), or Grundy values asked for.
/// A tier no move stays in is split into one part a worker from [`SPLIT_FROM`] indices (as
/// [`SPLIT_ENV`] says, if set), and solved as one part where the one-process solver would
/// slice it (past 2^32 indices).
fn parts_of(space: &dyn TierSpace, tier: Tier, opts: TierOptions, workers: usize) -> Option<u64> {
    if opts.grundy || space.moves_within(tier) {
        return None;
    }
    let n = space.tier_size(tier);
    let forced: Option<u64> = std::env::var(SPLIT_ENV).ok().and_then(|v| v.trim().parse().ok());
    let want = forced.unwrap_or(if n >= SPLIT_FROM { workers as u64 } else { 1 });
    let parts = want.clamp(1, n.div_ceil(BLOCK_RECORDS as u64).max(1));
    (parts > 1 || slice_of(space, tier, opts).is_some()).then_some(parts)
}

/// The indices of part `k` of `parts` of a tier of `n` indices: whole blocks of its file.
fn part_range(n: u64, parts: u64, k: u64) -> std::ops::Range<u64> {
    let blocks = n.div_ceil(BLOCK_RECORDS as u64);
    let at = |k: u64| (blocks * k / parts * BLOCK_RECORDS as u64).min(n);
    at(k)..at(k + 1)
}

/// The most bytes one MPI send carries (MPI counts are `int`): longer messages go in pieces.
const PIECE: usize = 1 << 28;

/// The largest message a rank accepts (a tier file is at most 2 bytes a position, 2^32
/// positions, before compression).
const MAX_MESSAGE: u64 = 1 << 34;

/// Solve every tier reachable from `root` over MPI. On the manager (rank 0), the database
/// (`open_db` is called there only) gets every tier and the result is `Some(stats)`; on a
/// worker the result is `None` once the manager has stopped it. `identity` names the game's
/// definition: every rank must run the same one. A worker solves with `threads` threads, as
/// `opts` says (Grundy values, parent positions).
pub fn solve(
    space: &dyn TierSpace,
    root: Tier,
    identity: &str,
    open_db: &dyn Fn() -> GameResult<ArrayDb>,
    threads: usize,
    opts: TierOptions,
    progress: &Progress,
) -> GameResult<Option<TierStats>> {
    let Some((universe, _)) = mpi::initialize_with_threading(Threading::Funneled) else {
        return Err(GameError::Unsupported("MPI was initialized already in this process".into()));
    };
    let world = universe.world();
    let order = tier_order(space, root);
    let result = if world.rank() == 0 {
        if world.size() == 1 {
            eprintln!(
                "gamesman: note: one MPI rank: the manager solves every tier itself (use -np 2 or more for workers)"
            );
            let db = open_db()?;
            super::tier::solve_with(space, root, &db, progress, opts).map(Some)
        } else {
            manage(&world, space, root, &order, identity, open_db, opts, progress).map(Some)
        }
    } else {
        work(&world, space, root, &order, identity, threads, opts).map(|()| None)
    };
    // Dropping the universe finalizes MPI: every rank gets here once the manager has stopped
    // every worker.
    drop(universe);
    result
}

// --- Messages ---

/// Send `bytes` with its length and CRC-32 first, in pieces of at most [`PIECE`].
fn send(world: &SimpleCommunicator, to: Rank, tag: i32, bytes: &[u8]) {
    let p = world.process_at_rank(to);
    let mut head = [0u8; 12];
    head[..8].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    head[8..].copy_from_slice(&crc32fast::hash(bytes).to_le_bytes());
    p.send_with_tag(&head[..], tag);
    for piece in bytes.chunks(PIECE) {
        p.send_with_tag(piece, tag);
    }
}

/// Wait for the head of a message (from `from`, or from anyone), sleeping between looks so
/// that a waiting rank leaves the cores to the ranks that work.
fn wait(world: &SimpleCommunicator, from: Option<Rank>) -> (Message, Status) {
    let mut pause = Duration::from_micros(50);
    loop {
        let got = match from {
            Some(r) => world.process_at_rank(r).immediate_matched_probe(),
            None => world.any_process().immediate_matched_probe(),
        };
        if let Some(m) = got {
            return m;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// The rest of a message whose head was matched: its bytes, checked against its CRC-32.
fn receive(world: &SimpleCommunicator, head: (Message, Status)) -> (Rank, Result<Vec<u8>, String>) {
    let (head, status) = head.matched_receive_vec::<u8>();
    let from = status.source_rank();
    if head.len() != 12 {
        return (from, Err(format!("a message from rank {from} has a head of {} bytes, not 12", head.len())));
    }
    let len = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(head[8..].try_into().expect("4 bytes"));
    if len > MAX_MESSAGE {
        return (from, Err(format!("a message from rank {from} says it holds {len} bytes, past {MAX_MESSAGE}")));
    }
    let source = world.process_at_rank(from);
    let mut bytes = Vec::with_capacity(len as usize);
    // The pieces follow, in order (MPI does not reorder messages of one sender and tag).
    while (bytes.len() as u64) < len {
        let (piece, _) = source.receive_vec_with_tag::<u8>(status.tag());
        if piece.is_empty() || bytes.len() as u64 + piece.len() as u64 > len {
            return (from, Err(format!("a message from rank {from} does not add up to its {len} bytes")));
        }
        bytes.extend_from_slice(&piece);
    }
    if crc32fast::hash(&bytes) != crc {
        return (from, Err(format!("a message of {len} bytes from rank {from} fails its checksum")));
    }
    (from, Ok(bytes))
}

/// Writes a message.
#[derive(Default)]
struct Out(Vec<u8>);

impl Out {
    fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn bytes(self, b: &[u8]) -> Self {
        let mut s = self.u64(b.len() as u64);
        s.0.extend_from_slice(b);
        s
    }
}

/// Reads a message; every read is checked against its end.
struct In<'a>(&'a [u8]);

impl<'a> In<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8], String> {
        if n > self.0.len() as u64 {
            return Err(format!("a message ends {} bytes early", n - self.0.len() as u64));
        }
        let (a, b) = self.0.split_at(n as usize);
        self.0 = b;
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.u64()?;
        self.take(n)
    }
}

// --- The worker ---

/// A worker: say hello, then solve tiers until the manager says stop.
fn work(
    world: &SimpleCommunicator,
    space: &dyn TierSpace,
    root: Tier,
    order: &[Tier],
    identity: &str,
    threads: usize,
    opts: TierOptions,
) -> GameResult<()> {
    let rank = world.rank();
    let hello = Out::default().u8(REPLY_HELLO).bytes(identity.as_bytes()).u64(root).u64(order.len() as u64);
    send(world, 0, TAG_REPLY, &hello.0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| GameError::Unsupported(format!("rank {rank}: cannot start {threads} threads: {e}")))?;
    let die_after: Option<usize> = std::env::var(DIE_AFTER_ENV).ok().and_then(|v| v.trim().parse().ok());
    let damage_after: Option<usize> = std::env::var(DAMAGE_AFTER_ENV).ok().and_then(|v| v.trim().parse().ok());
    // The tier files this rank holds (compressed, as on disk).
    let mut held: HashMap<Tier, Vec<u8>> = HashMap::new();
    let mut solved = 0usize;
    loop {
        let head = wait(world, Some(0));
        let (_, msg) = receive(world, head);
        let job = msg.and_then(|bytes| {
            let mut r = In(&bytes);
            let job = match r.u8()? {
                WORK_STOP => return Ok(None),
                WORK_SOLVE => (r.u64()?, None),
                WORK_PART => (r.u64()?, Some(r.u64()?..r.u64()?)),
                k => return Err(format!("a message of unknown kind {k}")),
            };
            for _ in 0..r.u64()? {
                held.remove(&r.u64()?);
            }
            for _ in 0..r.u64()? {
                let t = r.u64()?;
                held.insert(t, r.bytes()?.to_vec());
            }
            Ok(Some(job))
        });
        let (tier, part) = match job {
            Ok(None) => return Ok(()),
            Ok(Some(job)) => job,
            Err(e) => {
                let why = format!("rank {rank} received a damaged message from the manager: {e}");
                send(world, 0, TAG_REPLY, &Out::default().u8(REPLY_FAILED).u64(u64::MAX).bytes(why.as_bytes()).0);
                continue;
            }
        };
        if rank == 1 && die_after == Some(solved) {
            eprintln!(
                "gamesman: rank 1 exits in the middle of tier {} after {solved} tiers, as {DIE_AFTER_ENV} asks",
                space.tier_name(tier)
            );
            // As if killed: no word to the manager, no MPI finalize.
            unsafe { libc::_exit(3) };
        }
        let mut load = |c: Tier| -> GameResult<TierArray> {
            let bytes = held.get(&c).ok_or_else(|| {
                GameError::Database(format!("rank {rank}: the manager did not send child tier {}", space.tier_name(c)))
            })?;
            decode_tier_full(bytes, c, identity).map_err(|e| {
                GameError::Database(format!(
                    "tier {} as rank {rank} received it from the manager: {e}",
                    space.tier_name(c)
                ))
            })
        };
        let damage = rank == 1 && damage_after == Some(solved);
        let result = match part.clone() {
            // The reply, and a whole tier's file to keep: the tiers above it need it next.
            None => pool.install(|| -> GameResult<(Vec<u8>, Option<Vec<u8>>)> {
                let (array, reps) = solve_tier_full(space, tier, opts, &mut load)?;
                let mut file = encode_tier_with(tier, identity, &array.records, array.grundy.as_deref())
                    .map_err(|e| GameError::Database(format!("rank {rank}: {e}")))?;
                if damage {
                    let last = file.len() - 1;
                    file[last] ^= 0x20;
                }
                Ok((Out::default().u8(REPLY_DONE).u64(tier).u64(reps).bytes(&file).0, Some(file)))
            }),
            Some(range) => pool.install(|| -> GameResult<(Vec<u8>, Option<Vec<u8>>)> {
                // Slices of whole blocks, as many indices as the one-process solver's.
                let block = BLOCK_RECORDS as u64;
                let slice =
                    slice_of(space, tier, opts).unwrap_or(range.end - range.start).div_ceil(block).max(1) * block;
                let mut blocks: Vec<PackedBlock> = Vec::new();
                let reps = solve_tier_part(space, tier, opts, range.clone(), slice, &mut load, &mut |recs| {
                    blocks.extend(compress_blocks(recs).map_err(|e| GameError::Database(format!("rank {rank}: {e}")))?);
                    Ok(())
                })?;
                if damage && let Some(b) = blocks.last_mut() {
                    let last = b.bytes.len() - 1;
                    b.bytes[last] ^= 0x20;
                }
                let mut out =
                    Out::default().u8(REPLY_PART).u64(tier).u64(range.start).u64(reps).u64(blocks.len() as u64);
                for b in &blocks {
                    out = out.u64(b.flags as u64).u64(b.crc as u64).bytes(&b.bytes);
                }
                Ok((out.0, None))
            }),
        };
        match result {
            Ok((reply, file)) => {
                send(world, 0, TAG_REPLY, &reply);
                if let Some(file) = file {
                    held.insert(tier, file);
                }
                solved += 1;
            }
            Err(e) => {
                let why = format!("rank {rank}, tier {}: {e}", space.tier_name(tier));
                send(world, 0, TAG_REPLY, &Out::default().u8(REPLY_FAILED).u64(tier).bytes(why.as_bytes()).0);
            }
        }
    }
}

// --- The manager ---

/// Tiers saved and tiers in all, for the message of a manager that mpirun stops.
static SAVED: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static DIR: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// When a worker dies, mpirun ends the job: the manager gets SIGTERM. It says what is saved
/// (with only what a signal handler may do: atomics, a stack buffer, `write`, `_exit`).
extern "C" fn stopped(_: libc::c_int) {
    let mut buf = [0u8; 2048];
    let mut n = 0;
    let mut put = |b: &[u8]| {
        for &c in b {
            if n < buf.len() {
                buf[n] = c;
                n += 1;
            }
        }
    };
    let num = |v: usize, put: &mut dyn FnMut(&[u8])| {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut v = v;
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        put(&digits[i..]);
    };
    put(b"gamesman: error: the MPI job was stopped before the solve finished (a worker rank died, or mpirun was \
interrupted: mpirun says which); ");
    num(SAVED.load(Ordering::Relaxed), &mut put);
    put(b" of ");
    num(TOTAL.load(Ordering::Relaxed), &mut put);
    put(b" tiers are saved in ");
    put(DIR.get().map_or(&b"the database"[..], |d| &d[..]));
    put(b": run the same command again to resume from them\n");
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
        libc::_exit(1);
    }
}

/// The manager: hand out tiers, save what comes back, stop every worker.
#[allow(clippy::too_many_arguments)]
fn manage(
    world: &SimpleCommunicator,
    space: &dyn TierSpace,
    root: Tier,
    order: &[Tier],
    identity: &str,
    open_db: &dyn Fn() -> GameResult<ArrayDb>,
    opts: TierOptions,
    progress: &Progress,
) -> GameResult<TierStats> {
    let workers = world.size() - 1;
    // Every worker says hello first: the same definition and the same root.
    let mut problem: Option<GameError> = None;
    for _ in 0..workers {
        let head = wait(world, None);
        let (from, msg) = receive(world, head);
        let check = msg.and_then(|bytes| {
            let mut r = In(&bytes);
            if r.u8()? != REPLY_HELLO {
                return Err("its first message is not a hello".into());
            }
            let (id, t, n) = (r.bytes()?.to_vec(), r.u64()?, r.u64()?);
            if id != identity.as_bytes() {
                return Err("it runs another definition of the game (another script, engine, --misere or gamesman \
                            version): every rank must run the same"
                    .into());
            }
            if t != root || n != order.len() as u64 {
                return Err("it solves from another position (give every rank the same command)".into());
            }
            Ok(())
        });
        if let Err(e) = check {
            problem.get_or_insert(GameError::Unsupported(format!("MPI rank {from}: {e}")));
        }
    }
    let result = match problem {
        Some(e) => Err(e),
        None => open_db().and_then(|db| schedule(world, space, order, identity, &db, opts, progress)),
    };
    // No worker holds a tier now: stop them all.
    for w in 1..=workers {
        send(world, w, TAG_WORK, &Out::default().u8(WORK_STOP).0);
    }
    result
}

/// Hand out every unsolved tier and save what comes back; returns once no worker holds a
/// tier (after an error too, saving what the others finish).
fn schedule(
    world: &SimpleCommunicator,
    space: &dyn TierSpace,
    order: &[Tier],
    identity: &str,
    db: &ArrayDb,
    opts: TierOptions,
    progress: &Progress,
) -> GameResult<TierStats> {
    let n = order.len();
    let workers = (world.size() - 1) as usize;
    let mut sched = Schedule::new(space, order, db, workers, opts)?;
    let saved_before = sched.solved.iter().filter(|&&s| s).count();
    SAVED.store(saved_before, Ordering::Relaxed);
    TOTAL.store(n, Ordering::Relaxed);
    let _ = DIR.set(db.path().display().to_string().into_bytes());
    // SAFETY: the handler does only what a signal handler may.
    unsafe {
        libc::signal(libc::SIGTERM, stopped as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, stopped as *const () as libc::sighandler_t);
    }
    let stop_after: Option<usize> = std::env::var(STOP_AFTER_ENV).ok().and_then(|v| v.trim().parse().ok());
    loop {
        sched.check_stop(progress, stop_after);
        sched.hand_out(world, space, order, db, stop_after);
        if sched.busy.iter().all(Option::is_none) {
            break;
        }
        let head = wait(world, None);
        let (from, msg) = receive(world, head);
        let w = from as usize;
        let Some((i, part)) = sched.busy.get_mut(w).and_then(Option::take) else {
            sched
                .failure
                .get_or_insert(GameError::Unsupported(format!("MPI rank {from} answered with no tier to solve")));
            continue;
        };
        let want = part.map(|k| part_range(space.tier_size(order[i]), sched.splits[&i].blocks.len() as u64, k));
        let reply = match read_reply(msg, space, order[i], want, identity) {
            Ok(Ok(x)) => x,
            Ok(Err(why)) => {
                sched.failure.get_or_insert(GameError::Unsupported(format!("an MPI worker failed: {why}")));
                continue;
            }
            Err(e) => {
                sched.failure.get_or_insert(GameError::Database(format!("MPI rank {from}: {e}")));
                continue;
            }
        };
        let (reps, file, holder) = match (reply, part) {
            (Reply::Whole(reps, file), None) => (reps, file, Some(w)),
            (Reply::Part(reps, blocks), Some(k)) => {
                let split = sched.splits.get_mut(&i).expect("a split tier");
                split.blocks[k as usize] = Some(blocks);
                split.reps += reps;
                if split.blocks.iter().any(Option::is_none) {
                    continue;
                }
                let split = sched.splits.remove(&i).expect("a split tier");
                let blocks: Vec<PackedBlock> = split.blocks.into_iter().flatten().flatten().collect();
                match assemble_tier(order[i], identity, space.tier_size(order[i]), &blocks) {
                    Ok(file) => (split.reps, file, None),
                    Err(e) => {
                        let e = format!("tier {} from its parts: {e}", space.tier_name(order[i]));
                        sched.failure.get_or_insert(GameError::Database(e));
                        continue;
                    }
                }
            }
            _ => {
                let e = format!("MPI rank {from} answered a part for a whole tier, or the other way round");
                sched.failure.get_or_insert(GameError::Database(e));
                continue;
            }
        };
        if let Err(e) = db.write_bytes(order[i], &file) {
            sched.failure.get_or_insert(e.into());
            continue;
        }
        sched.settle(holder, i, reps, progress);
    }
    unsafe {
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
    if let Some(e) = sched.failure {
        return Err(e);
    }
    if let Some(i) = (0..n).find(|&i| !sched.solved[i]) {
        return Err(GameError::Unsupported(format!(
            "tier {} was never ready (its child tiers form a cycle?)",
            space.tier_name(order[i])
        )));
    }
    let mut stats = sched.stats;
    stats.bytes = db.bytes();
    Ok(stats)
}

/// A tier split into parts: each part's blocks once its worker has sent them, and the
/// representatives of the parts in.
struct Split {
    blocks: Vec<Option<Vec<PackedBlock>>>,
    reps: u64,
}

/// The coordinator's state while it schedules: the tiers (by their index in the order), their
/// child and parent tiers, which are solved and ready, the tiers split into parts and the
/// parts not yet handed out, and per worker (index = rank) the tiers it holds, the tiers it
/// may drop and its job now (a tier, and which part of it).
struct Schedule {
    kids: Vec<Vec<usize>>,
    parents: Vec<Vec<usize>>,
    solved: Vec<bool>,
    /// Unsolved child tiers a tier waits for; unsolved parent tiers that still need a tier.
    kids_left: Vec<usize>,
    parents_left: Vec<usize>,
    ready: BTreeSet<usize>,
    held: Vec<HashSet<usize>>,
    drop_list: Vec<Vec<usize>>,
    busy: Vec<Option<(usize, Option<u64>)>>,
    splits: HashMap<usize, Split>,
    queue: VecDeque<(usize, u64)>,
    opts: TierOptions,
    stats: TierStats,
    failure: Option<GameError>,
}

impl Schedule {
    /// The tiers' graph, and which are solved already (in the database) and ready.
    fn new(
        space: &dyn TierSpace,
        order: &[Tier],
        db: &ArrayDb,
        workers: usize,
        opts: TierOptions,
    ) -> GameResult<Schedule> {
        let n = order.len();
        let at: HashMap<Tier, usize> = order.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        let mut kids: Vec<Vec<usize>> = Vec::with_capacity(n);
        for &t in order {
            let mut k: Vec<usize> = space.child_tiers(t).iter().filter_map(|c| at.get(c).copied()).collect();
            k.sort_unstable();
            k.dedup();
            kids.push(k);
        }
        let mut parents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, k) in kids.iter().enumerate() {
            for &c in k {
                parents[c].push(i);
            }
        }
        let solved: Vec<bool> = order.iter().map(|&t| db.has(t, space.tier_size(t))).collect::<Result<_, _>>()?;
        let kids_left: Vec<usize> = kids.iter().map(|k| k.iter().filter(|&&c| !solved[c]).count()).collect();
        let parents_left: Vec<usize> = parents.iter().map(|p| p.iter().filter(|&&q| !solved[q]).count()).collect();
        let ready: BTreeSet<usize> = (0..n).filter(|&i| !solved[i] && kids_left[i] == 0).collect();
        let mut stats = TierStats { tiers: n, ..TierStats::default() };
        stats.positions = order.iter().map(|&t| space.tier_size(t)).sum();
        Ok(Schedule {
            kids,
            parents,
            solved,
            kids_left,
            parents_left,
            ready,
            held: vec![HashSet::new(); workers + 1],
            drop_list: vec![Vec::new(); workers + 1],
            busy: vec![None; workers + 1],
            splits: HashMap::new(),
            queue: VecDeque::new(),
            opts,
            stats,
            failure: None,
        })
    }

    /// Stop handing out tiers on an error, at the time limit, or where the test hook says.
    fn check_stop(&mut self, progress: &Progress, stop_after: Option<usize>) {
        if self.failure.is_some() {
            return;
        }
        if progress.expired() {
            self.failure = Some(GameError::TimeLimit(format!(
                "the time limit ran out after {} of {} tiers (the solved tiers are saved: run again to resume)",
                SAVED.load(Ordering::Relaxed),
                self.solved.len()
            )));
        } else if stop_after.is_some_and(|k| self.stats.solved >= k) && self.solved.iter().any(|&s| !s) {
            self.failure = Some(GameError::Unsupported(format!(
                "stopped after {} tiers, as {STOP_AFTER_ENV} asks (run again to resume)",
                self.stats.solved
            )));
        }
    }

    /// Give each idle worker a part of a split tier not yet handed out, or else a ready tier
    /// (split into parts first where [`parts_of`] says), with the child tiers it lacks and the
    /// tiers it may drop.
    fn hand_out(
        &mut self,
        world: &SimpleCommunicator,
        space: &dyn TierSpace,
        order: &[Tier],
        db: &ArrayDb,
        stop_after: Option<usize>,
    ) {
        let workers = self.busy.len() - 1;
        while self.failure.is_none()
            && let Some(w) = (1..=workers).find(|&w| self.busy[w].is_none())
            && !(self.ready.is_empty() && self.queue.is_empty())
            && stop_after.is_none_or(|k| self.stats.solved + self.busy.iter().flatten().count() < k)
        {
            let (i, part) = match self.queue.pop_front() {
                Some((i, k)) => (i, Some(k)),
                None => {
                    // The ready tier of whose child tiers this worker holds the most (then the first).
                    let (kids, held) = (&self.kids, &self.held);
                    let i = *self
                        .ready
                        .iter()
                        .max_by_key(|&&i| {
                            (kids[i].iter().filter(|c| held[w].contains(c)).count(), std::cmp::Reverse(i))
                        })
                        .expect("a ready tier");
                    self.ready.remove(&i);
                    match parts_of(space, order[i], self.opts, workers) {
                        None => (i, None),
                        Some(parts) => {
                            self.splits.insert(i, Split { blocks: (0..parts).map(|_| None).collect(), reps: 0 });
                            self.queue.extend((1..parts).map(|k| (i, k)));
                            (i, Some(0))
                        }
                    }
                }
            };
            let mut msg = match part {
                None => Out::default().u8(WORK_SOLVE).u64(order[i]),
                Some(k) => {
                    let r = part_range(space.tier_size(order[i]), self.splits[&i].blocks.len() as u64, k);
                    Out::default().u8(WORK_PART).u64(order[i]).u64(r.start).u64(r.end)
                }
            };
            msg = msg.u64(self.drop_list[w].len() as u64);
            for &d in &self.drop_list[w] {
                msg = msg.u64(order[d]);
            }
            let send_kids: Vec<usize> = self.kids[i].iter().copied().filter(|c| !self.held[w].contains(c)).collect();
            msg = msg.u64(send_kids.len() as u64);
            for &c in &send_kids {
                match db.file_bytes(order[c], space.tier_size(order[c])) {
                    Ok(file) => msg = msg.u64(order[c]).bytes(&file),
                    Err(e) => {
                        self.failure = Some(e.into());
                        break;
                    }
                }
            }
            if self.failure.is_some() {
                break;
            }
            self.drop_list[w].clear();
            self.held[w].extend(send_kids);
            send(world, w as Rank, TAG_WORK, &msg.0);
            self.busy[w] = Some((i, part));
        }
    }

    /// Tier `i`, saved (from worker `w`, which holds it, where it solved it whole): count it,
    /// make ready the parents it completes, and let the holders drop the child tiers no
    /// unsolved tier needs now.
    fn settle(&mut self, w: Option<usize>, i: usize, reps: u64, progress: &Progress) {
        if let Some(w) = w {
            self.held[w].insert(i);
        }
        self.solved[i] = true;
        SAVED.fetch_add(1, Ordering::Relaxed);
        self.stats.solved += 1;
        self.stats.representatives += reps;
        if let Err(e) = progress.tick(self.stats.representatives, 0) {
            self.failure.get_or_insert(e);
        }
        for &p in &self.parents[i] {
            self.kids_left[p] -= 1;
            if self.kids_left[p] == 0 && !self.solved[p] {
                self.ready.insert(p);
            }
        }
        // A child tier whose parents are all solved is needed no more: its holders drop it.
        let workers = self.held.len() - 1;
        for &c in &self.kids[i] {
            self.parents_left[c] -= 1;
            if self.parents_left[c] == 0 {
                for v in 1..=workers {
                    if self.held[v].remove(&c) {
                        self.drop_list[v].push(c);
                    }
                }
            }
        }
    }
}

/// What a worker sent back: a whole tier's representatives and file, or a part's
/// representatives and blocks.
enum Reply {
    Whole(u64, Vec<u8>),
    Part(u64, Vec<PackedBlock>),
}

/// A worker's reply for tier `want` (the indices `part` of it, for a part), checked: each
/// file and block against its checksums and sizes; or the worker's own failure (`Ok(Err)`),
/// or a reply that cannot be read (`Err`).
fn read_reply(
    msg: Result<Vec<u8>, String>,
    space: &dyn TierSpace,
    want: Tier,
    part: Option<std::ops::Range<u64>>,
    identity: &str,
) -> Result<Result<Reply, String>, String> {
    let name = space.tier_name(want);
    msg.and_then(|bytes| {
        let mut r = In(&bytes);
        let kind = r.u8()?;
        if kind == REPLY_FAILED {
            let _ = r.u64()?;
            return Ok(Err(String::from_utf8_lossy(r.bytes()?).into_owned()));
        }
        let t = r.u64()?;
        if t != want {
            return Err(format!("it sent tier {t:x} for tier {name}"));
        }
        match (kind, part) {
            (REPLY_DONE, None) => {
                let (reps, file) = (r.u64()?, r.bytes()?);
                decode_tier(file, t, identity).map_err(|e| format!("tier {name} fails its check on arrival: {e}"))?;
                Ok(Ok(Reply::Whole(reps, file.to_vec())))
            }
            (REPLY_PART, Some(range)) => {
                let (start, reps, n) = (r.u64()?, r.u64()?, r.u64()?);
                if start != range.start {
                    return Err(format!("it sent the part of tier {name} from index {start}, not {}", range.start));
                }
                let block = BLOCK_RECORDS as u64;
                if n != (range.end - range.start).div_ceil(block) {
                    return Err(format!(
                        "it sent {n} blocks for indices {}..{} of tier {name}",
                        range.start, range.end
                    ));
                }
                let mut blocks = Vec::with_capacity(n as usize);
                for b in 0..n {
                    let (flags, crc) = (r.u64()?, r.u64()?);
                    let packed = PackedBlock { flags: flags as u32, crc: crc as u32, bytes: r.bytes()?.to_vec() };
                    let records = (range.end - range.start - b * block).min(block) as usize;
                    check_block(&packed, records).map_err(|e| {
                        format!("tier {name} fails its check on arrival: block {} {e}", range.start / block + b)
                    })?;
                    blocks.push(packed);
                }
                Ok(Ok(Reply::Part(reps, blocks)))
            }
            (k, _) => Err(format!("a reply of kind {k} for tier {name}, not the one asked for")),
        }
    })
}
