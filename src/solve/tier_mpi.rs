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

use super::tier::passes::{Ctx, Pass, Stage, finished, is_decided, new_records, next_stage};
use super::tier::{
    Phases, SLICE_MIN, STOP_AFTER_ENV, TierOptions, TierStats, slice_of, solve_tier_full, solve_tier_part,
};
use crate::db::array::{
    ArrayDb, BLOCK_RECORDS, PackedBlock, Rec, TierArray, assemble_tier, check_block, compress_blocks, decode_tier,
    decode_tier_full, encode_tier, encode_tier_with,
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
const WORK_GROUP: u8 = 4;
const WORK_PASS: u8 = 5;
const WORK_FINISH: u8 = 6;
const WORK_ABORT: u8 = 7;
const REPLY_HELLO: u8 = 1;
const REPLY_DONE: u8 = 2;
const REPLY_FAILED: u8 = 3;
const REPLY_PART: u8 = 4;
const REPLY_PASS: u8 = 5;
const REPLY_RECORDS: u8 = 6;

/// Environment variable: split every tier into this many parts (at most one a block of its
/// file where no move stays in it), whatever its size: to test and measure the split.
pub const SPLIT_ENV: &str = "GAMESMAN_MPI_SPLIT";

/// A tier of at least this many indices is split into one part a worker.
const SPLIT_FROM: u64 = 1 << 21;

/// How a tier is handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// Whole, to one worker.
    Whole,
    /// In this many parts, each a run of whole blocks of its file, each solved by one worker
    /// (whenever one is free) in slices and sent as compressed blocks: a tier no move stays
    /// in.
    Parts(u64),
    /// In passes ([`crate::solve::tier::solve_tier_passes`]) by up to this many workers at
    /// once, each passing over its part (a range of indices) and sending what it decided to
    /// the others between passes, and at the end its part's records: a tier a move may stay
    /// in.
    Group(u64),
}

/// How tier `tier` is handed out to `workers` workers: Grundy values are solved whole; a
/// tier of [`SPLIT_FROM`] indices or more is split into one part a worker (as many as
/// [`SPLIT_ENV`] says, if set; at most one a block of its file where no move stays in it, one
/// an index where one may); a tier no move stays in that the one-process solver would slice
/// (past 2^32 indices) goes as one part.
fn plan_of(space: &dyn TierSpace, tier: Tier, opts: TierOptions, workers: usize) -> Plan {
    if opts.grundy {
        return Plan::Whole;
    }
    let n = space.tier_size(tier);
    let forced: Option<u64> = std::env::var(SPLIT_ENV).ok().and_then(|v| v.trim().parse().ok());
    let want = forced.unwrap_or(if n >= SPLIT_FROM { workers as u64 } else { 1 });
    if space.moves_within(tier) {
        let parts = want.clamp(1, n.max(1));
        return if parts > 1 { Plan::Group(parts) } else { Plan::Whole };
    }
    let parts = want.clamp(1, n.div_ceil(BLOCK_RECORDS as u64).max(1));
    if parts > 1 || slice_of(space, tier, opts).is_some() { Plan::Parts(parts) } else { Plan::Whole }
}

/// The indices of part `k` of `parts` of a tier of `n` indices: whole blocks of its file, or
/// (`group`) any indices.
fn part_range(n: u64, parts: u64, k: u64, group: bool) -> std::ops::Range<u64> {
    let blocks = n.div_ceil(BLOCK_RECORDS as u64);
    let at = |k: u64| match group {
        true => (n as u128 * k as u128 / parts as u128) as u64,
        false => (blocks * k / parts * BLOCK_RECORDS as u64).min(n),
    };
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
                // A word for a group this rank has left (it failed): nothing to do.
                WORK_PASS | WORK_FINISH | WORK_ABORT => return Ok(Some((WORK_ABORT, 0, None))),
                WORK_SOLVE => (WORK_SOLVE, r.u64()?, None),
                k @ (WORK_PART | WORK_GROUP) => (k, r.u64()?, Some(r.u64()?..r.u64()?)),
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
        let (kind, tier, part) = match job {
            Ok(None) => return Ok(()),
            Ok(Some((WORK_ABORT, _, _))) => continue,
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
        // The reply, and a whole tier's file to keep: the tiers above it need it next.
        let result = match part.clone() {
            Some(range) if kind == WORK_GROUP => {
                match group_part(world, &pool, space, tier, range.clone(), &mut load, rank) {
                    Ok(GroupEnd::Aborted) => continue,
                    Ok(GroupEnd::Stopped) => return Ok(()),
                    Ok(GroupEnd::Done(recs, reps)) => records_reply(tier, range.start, reps, &recs, damage)
                        .map(|r| (r, None))
                        .map_err(|e| GameError::Database(format!("rank {rank}: {e}"))),
                    Err(e) => Err(e),
                }
            }
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
                Ok((part_reply(tier, range.start, reps, blocks, damage), None))
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

/// The reply for a part of `tier` from index `start`: its representatives and blocks (the
/// last block damaged where the test hook says).
fn part_reply(tier: Tier, start: u64, reps: u64, mut blocks: Vec<PackedBlock>, damage: bool) -> Vec<u8> {
    if damage && let Some(b) = blocks.last_mut() {
        let last = b.bytes.len() - 1;
        b.bytes[last] ^= 0x20;
    }
    let mut out = Out::default().u8(REPLY_PART).u64(tier).u64(start).u64(reps).u64(blocks.len() as u64);
    for b in &blocks {
        out = out.u64(b.flags as u64).u64(b.crc as u64).bytes(&b.bytes);
    }
    out.0
}

/// The reply for a group's part of `tier` from index `start`: its representatives and its
/// records, with their CRC-32, compressed (changed after the checksum where the test hook
/// says).
fn records_reply(tier: Tier, start: u64, reps: u64, recs: &[Rec], damage: bool) -> Result<Vec<u8>, String> {
    let mut raw: Vec<u8> = recs.iter().flat_map(|r| r.to_le_bytes()).collect();
    let crc = crc32fast::hash(&raw);
    if damage && let Some(b) = raw.last_mut() {
        *b ^= 0x20;
    }
    let packed = zstd::bulk::compress(&raw, 3).map_err(|e| format!("compressing records: {e}"))?;
    Ok(Out::default().u8(REPLY_RECORDS).u64(tier).u64(start).u64(reps).u64(crc as u64).bytes(&packed).0)
}

/// How a worker's part of a group ended: its records and representatives; the manager
/// ended the group early; or the manager stopped every rank.
enum GroupEnd {
    Done(Vec<Rec>, u64),
    Aborted,
    Stopped,
}

/// A worker's part `part` of a tier solved in passes by a group: the whole tier's records
/// are held, each pass goes over the part (on the pool) and sends the manager what it
/// decided, and the next message brings every member's decisions and the next pass, or the
/// end. MPI is called on this thread only. The part's records and representatives at the
/// end; `None` where the manager ended the group early.
fn group_part(
    world: &SimpleCommunicator,
    pool: &rayon::ThreadPool,
    space: &dyn TierSpace,
    tier: Tier,
    part: std::ops::Range<u64>,
    load: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
    rank: Rank,
) -> GameResult<GroupEnd> {
    use std::sync::atomic::Ordering::Relaxed;
    let n = space.tier_size(tier);
    let name = space.tier_name(tier);
    let damaged = |e: String| GameError::Database(format!("rank {rank}: a damaged message from the manager: {e}"));
    if part.start > part.end || part.end > n {
        return Err(damaged(format!("indices {}..{} are no part of tier {name}", part.start, part.end)));
    }
    let mut phases = Phases::new(|| {
        format!("rank {rank}, tier {name}: indices {}..{} of {n} in passes by a group", part.start, part.end)
    });
    let mut children_of = HashMap::new();
    for c in space.child_tiers(tier) {
        children_of.insert(c, load(c)?);
    }
    let recs = new_records(n)?;
    let mut passes = 0;
    let ctx = Ctx { space, tier, name: &name, recs: &recs, children_of: &children_of };
    let own = &recs[part.start as usize..part.end as usize];
    let slice = (part.end - part.start).div_ceil(SLICE_MIN).max(1) * SLICE_MIN;
    let (mut stage, mut reps) = (Stage::First, 0);
    loop {
        let before: Vec<Rec> = own.iter().map(|r| r.load(Relaxed)).collect();
        let p = pool.install(|| ctx.pass(stage, part.clone(), slice))?;
        reps += p.reps;
        passes += 1;
        let mut changes = Vec::new();
        for (k, (r, old)) in own.iter().zip(before).enumerate() {
            let r = r.load(Relaxed);
            if r != old && is_decided(r) {
                changes.extend_from_slice(&(part.start + k as u64).to_le_bytes());
                changes.extend_from_slice(&r.to_le_bytes());
            }
        }
        let out = Out::default().u8(REPLY_PASS).u64(tier).u8(p.changed as u8).u64(p.seen as u64).u64(p.reps);
        send(world, 0, TAG_REPLY, &out.bytes(&changes).0);
        let (_, msg) = receive(world, wait(world, Some(0)));
        let bytes = msg.map_err(damaged)?;
        let mut r = In(&bytes);
        match r.u8().map_err(damaged)? {
            WORK_PASS => {
                let (kind, s) = (r.u8().map_err(damaged)?, r.u64().map_err(damaged)?.min(u32::MAX as u64) as u32);
                stage = match kind {
                    1 => Stage::WinLose(s),
                    2 => Stage::Tie(s),
                    k => return Err(damaged(format!("a pass of unknown kind {k}"))),
                };
                let all = r.bytes().map_err(damaged)?;
                if !all.len().is_multiple_of(10) {
                    return Err(damaged(format!("{} bytes of decisions", all.len())));
                }
                for c in all.chunks_exact(10) {
                    let i = u64::from_le_bytes(c[..8].try_into().expect("8 bytes"));
                    let slot = recs.get(i as usize).ok_or_else(|| damaged(format!("index {i} is past tier {name}")))?;
                    slot.store(u16::from_le_bytes([c[8], c[9]]), Relaxed);
                }
            }
            WORK_FINISH => break,
            WORK_ABORT => {
                phases.print();
                return Ok(GroupEnd::Aborted);
            }
            WORK_STOP => return Ok(GroupEnd::Stopped),
            k => return Err(damaged(format!("a message of unknown kind {k} in the passes"))),
        }
    }
    phases.end(&format!("{passes} passes"));
    phases.print();
    drop(children_of);
    Ok(GroupEnd::Done(own.iter().map(|r| finished(r.load(Relaxed))).collect(), reps))
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
        let Some((i, part)) = sched.busy.get(w).copied().flatten() else {
            sched
                .failure
                .get_or_insert(GameError::Unsupported(format!("MPI rank {from} answered with no tier to solve")));
            continue;
        };
        let want = part.map(|k| sched.splits[&i].range(space.tier_size(order[i]), k));
        let reply = match read_reply(msg, space, order[i], want, identity) {
            Ok(Ok(Reply::Pass(p, changes))) => {
                sched.pass_done(world, w, i, p, &changes);
                continue;
            }
            Ok(Ok(x)) => x,
            Ok(Err(why)) => {
                sched.busy[w] = None;
                sched.failure.get_or_insert(GameError::Unsupported(format!("an MPI worker failed: {why}")));
                sched.abort_group(world, i);
                continue;
            }
            Err(e) => {
                sched.failure.get_or_insert(GameError::Database(format!("MPI rank {from}: {e}")));
                sched.let_go(world, w, i);
                continue;
            }
        };
        sched.busy[w] = None;
        let (reps, file, holder) = match (reply, part) {
            (Reply::Whole(reps, file), None) => (reps, file, Some(w)),
            (Reply::Part(reps, piece), Some(k)) => {
                let split = sched.splits.get_mut(&i).expect("a split tier");
                split.pieces[k as usize] = Some(piece);
                split.reps += reps;
                if split.pieces.iter().any(Option::is_none) {
                    continue;
                }
                let split = sched.splits.remove(&i).expect("a split tier");
                let reps = split.reps;
                match split.file(order[i], identity, space.tier_size(order[i])) {
                    Ok(file) => (reps, file, None),
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
                sched.let_go(world, w, i);
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

/// A tier split into parts: each part once its worker has sent it (blocks of the tier's file,
/// or a group's records), the representatives of the parts in, and whether a group solves
/// it.
struct Split {
    pieces: Vec<Option<Piece>>,
    reps: u64,
    group: bool,
}

/// A part of a tier as a worker sent it.
enum Piece {
    Blocks(Vec<PackedBlock>),
    Records(Vec<Rec>),
}

impl Split {
    fn new(parts: usize, group: bool) -> Split {
        Split { pieces: (0..parts).map(|_| None).collect(), reps: 0, group }
    }

    /// The indices of part `k` of a tier of `n`.
    fn range(&self, n: u64, k: u64) -> std::ops::Range<u64> {
        part_range(n, self.pieces.len() as u64, k, self.group)
    }

    /// The tier's file, once every part is in.
    fn file(self, tier: Tier, identity: &str, n: u64) -> Result<Vec<u8>, String> {
        let pieces = self.pieces.into_iter().flatten();
        if self.group {
            let mut records = Vec::with_capacity(n as usize);
            for p in pieces {
                let Piece::Records(r) = p else { return Err("blocks for a part of records".into()) };
                records.extend(r);
            }
            return encode_tier(tier, identity, &records);
        }
        let mut blocks = Vec::new();
        for p in pieces {
            let Piece::Blocks(b) = p else { return Err("records for a part of blocks".into()) };
            blocks.extend(b);
        }
        assemble_tier(tier, identity, n, &blocks)
    }
}

/// A tier solved in passes by a group of workers, each over its part: the members (ranks;
/// member k solves part k), the pass they are on, which have sent it, what they found so far
/// and every record they decided in it (10 bytes each: index, record), and whether the group
/// is over before its end (a member failed).
struct Group {
    members: Vec<usize>,
    stage: Stage,
    replied: Vec<bool>,
    joined: Pass,
    changes: Vec<u8>,
    failed: bool,
}

/// A pass's stage in a message: its kind and its s.
fn stage_code(stage: Stage) -> (u8, u32) {
    match stage {
        Stage::First => (0, 0),
        Stage::WinLose(s) => (1, s),
        Stage::Tie(s) => (2, s),
    }
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
    groups: HashMap<usize, Group>,
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
            groups: HashMap::new(),
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
    /// (split first where [`plan_of`] says; a tier solved in passes by a group goes to as
    /// many idle workers as it has parts, two at least, else whole to one), with the child
    /// tiers it lacks and the tiers it may drop.
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
            if let Some((i, k)) = self.queue.pop_front() {
                self.give(world, space, order, db, w, i, Some(k), WORK_PART);
                continue;
            }
            // The ready tier of whose child tiers this worker holds the most (then the first).
            let (kids, held) = (&self.kids, &self.held);
            let i = *self
                .ready
                .iter()
                .max_by_key(|&&i| (kids[i].iter().filter(|c| held[w].contains(c)).count(), std::cmp::Reverse(i)))
                .expect("a ready tier");
            self.ready.remove(&i);
            let idle: Vec<usize> = (1..=workers).filter(|&v| self.busy[v].is_none()).collect();
            match plan_of(space, order[i], self.opts, workers) {
                Plan::Parts(parts) => {
                    self.splits.insert(i, Split::new(parts as usize, false));
                    self.queue.extend((1..parts).map(|k| (i, k)));
                    self.give(world, space, order, db, w, i, Some(0), WORK_PART);
                }
                Plan::Group(parts) if idle.len() >= 2 => {
                    let members: Vec<usize> = idle.into_iter().take(parts as usize).collect();
                    self.splits.insert(i, Split::new(members.len(), true));
                    let group = Group {
                        replied: vec![false; members.len()],
                        members: members.clone(),
                        stage: Stage::First,
                        joined: Pass::default(),
                        changes: Vec::new(),
                        failed: false,
                    };
                    self.groups.insert(i, group);
                    for (k, m) in members.into_iter().enumerate() {
                        self.give(world, space, order, db, m, i, Some(k as u64), WORK_GROUP);
                        if self.failure.is_some() {
                            break;
                        }
                    }
                }
                _ => self.give(world, space, order, db, w, i, None, WORK_SOLVE),
            }
        }
    }

    /// Send worker `w` its job, `kind`, on tier `i` (part `part` of it), with the tiers it may
    /// drop and the child tiers it lacks.
    #[allow(clippy::too_many_arguments)]
    fn give(
        &mut self,
        world: &SimpleCommunicator,
        space: &dyn TierSpace,
        order: &[Tier],
        db: &ArrayDb,
        w: usize,
        i: usize,
        part: Option<u64>,
        kind: u8,
    ) {
        let mut msg = Out::default().u8(kind).u64(order[i]);
        if let Some(k) = part {
            let r = self.splits[&i].range(space.tier_size(order[i]), k);
            msg = msg.u64(r.start).u64(r.end);
        }
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
                    self.failure.get_or_insert(e.into());
                    // A group's other members are let go; the group is over.
                    self.abort_group(world, i);
                    return;
                }
            }
        }
        self.drop_list[w].clear();
        self.held[w].extend(send_kids);
        send(world, w as Rank, TAG_WORK, &msg.0);
        self.busy[w] = Some((i, part));
    }

    /// A pass of the group solving tier `i` done by its member `w`: once every member's is,
    /// the next pass (with every decision of this one) or the end of the passes.
    fn pass_done(&mut self, world: &SimpleCommunicator, w: usize, i: usize, p: Pass, changes: &[u8]) {
        let Some(g) = self.groups.get_mut(&i) else {
            self.failure.get_or_insert(GameError::Database(format!("MPI rank {w} sent a pass of no group")));
            self.busy[w] = None;
            return;
        };
        let k = g.members.iter().position(|&m| m == w).expect("a member");
        if g.failed {
            send(world, w as Rank, TAG_WORK, &Out::default().u8(WORK_ABORT).0);
            self.busy[w] = None;
            g.replied[k] = true;
            if g.replied.iter().all(|&r| r) {
                self.groups.remove(&i);
            }
            return;
        }
        g.replied[k] = true;
        g.joined = g.joined.join(p);
        g.changes.extend_from_slice(changes);
        if !g.replied.iter().all(|&r| r) {
            return;
        }
        let msg = match next_stage(g.stage, g.joined) {
            Some(stage) => {
                g.stage = stage;
                let (kind, s) = stage_code(stage);
                Out::default().u8(WORK_PASS).u8(kind).u64(s as u64).bytes(&g.changes)
            }
            None => Out::default().u8(WORK_FINISH),
        };
        for &m in &g.members {
            send(world, m as Rank, TAG_WORK, &msg.0);
        }
        g.replied.iter_mut().for_each(|r| *r = false);
        g.joined = Pass::default();
        g.changes.clear();
        if matches!(msg.0[0], WORK_FINISH) {
            self.groups.remove(&i);
        }
    }

    /// Worker `w`, whose reply on tier `i` could not be used: a member of a group solving it
    /// may be waiting for the next pass, so it is told the group is over (a worker not in a
    /// group ignores that word); then the group is over for the others too.
    fn let_go(&mut self, world: &SimpleCommunicator, w: usize, i: usize) {
        if self.groups.get(&i).is_some_and(|g| g.members.contains(&w)) {
            send(world, w as Rank, TAG_WORK, &Out::default().u8(WORK_ABORT).0);
        }
        self.busy[w] = None;
        self.abort_group(world, i);
    }

    /// The group solving tier `i` (if any) is over: the members waiting for the next pass are
    /// let go now, the others when they send theirs.
    fn abort_group(&mut self, world: &SimpleCommunicator, i: usize) {
        let Some(g) = self.groups.get_mut(&i) else { return };
        g.failed = true;
        for (k, &m) in g.members.iter().enumerate() {
            if self.busy[m] != Some((i, Some(k as u64))) {
                // Let go already (it failed, or was never sent its part).
                g.replied[k] = true;
            } else if g.replied[k] {
                send(world, m as Rank, TAG_WORK, &Out::default().u8(WORK_ABORT).0);
                self.busy[m] = None;
            }
        }
        if g.replied.iter().all(|&r| r) {
            self.groups.remove(&i);
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
    Part(u64, Piece),
    /// A pass of a group: what it found, and what it decided (10 bytes each).
    Pass(Pass, Vec<u8>),
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
                Ok(Ok(Reply::Part(reps, Piece::Blocks(blocks))))
            }
            (REPLY_RECORDS, Some(range)) => {
                let (start, reps, crc, packed) = (r.u64()?, r.u64()?, r.u64()?, r.bytes()?);
                if start != range.start {
                    return Err(format!("it sent the part of tier {name} from index {start}, not {}", range.start));
                }
                let size = ((range.end - range.start) * 2) as usize;
                let raw = zstd::bulk::decompress(packed, size)
                    .map_err(|e| format!("the records of tier {name} from index {start} do not decompress: {e}"))?;
                if raw.len() != size || crc32fast::hash(&raw) != crc as u32 {
                    return Err(format!(
                        "tier {name} fails its check on arrival: the records from index {start} fail their checksum"
                    ));
                }
                let records = raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
                Ok(Ok(Reply::Part(reps, Piece::Records(records))))
            }
            (REPLY_PASS, Some(_)) => {
                let (changed, seen, reps) = (r.u8()? != 0, r.u64()?, r.u64()?);
                let changes = r.bytes()?;
                if !changes.len().is_multiple_of(10) {
                    return Err(format!("a pass of tier {name} with {} bytes of decisions", changes.len()));
                }
                Ok(Ok(Reply::Pass(Pass { changed, seen: seen.min(u32::MAX as u64) as u32, reps }, changes.to_vec())))
            }
            (k, _) => Err(format!("a reply of kind {k} for tier {name}, not the one asked for")),
        }
    })
}
