//! Breadth-first exploration with the expansions done on worker threads, each with its own
//! copy of the game: the main thread hands out the discovered positions in chunks, in order,
//! and merges what comes back in the same order, exactly as the one-thread explorer would.

use super::graph::Node;
use crate::game::{Footprint, Game, GameError, GameResult, Replica, Value, Wire};
use crate::progress::Progress;
use crate::solve::graph::{Builder, Graph};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

/// Positions a worker expands per job.
const CHUNK: usize = 64;

/// A node as it crosses back: the end value, and the children.
type WireNode = (Option<Value>, bool, Vec<Wire>);

/// A chunk's expansions as they come back: (chunk, the bytes its children hold, the nodes;
/// fewer than the chunk's positions when the worker left the rest).
type Done = (usize, usize, GameResult<Vec<WireNode>>);

/// The workers, as the merging thread sees them.
struct Pool<'a> {
    threads: usize,
    jobs: &'a mpsc::Sender<(usize, Vec<Wire>)>,
    done: &'a mpsc::Receiver<Done>,
    /// Bytes the workers' expansions hold, not yet merged.
    held: &'a AtomicUsize,
}

/// How a worker expands one position of `G`: `(game, position, memory budget)`.
pub type Expand<G> = fn(&G, &<G as Game>::Pos, usize) -> GameResult<Node<<G as Game>::Pos>>;

/// Explore everything reachable from `root` level by level: each level's positions are
/// expanded (by `expand`) on `threads` workers, each with its own copy of the game, and
/// merged in order, so the graph is the one a single thread builds. A level too small to
/// share out is expanded here, with `game`.
///
/// `give_up`: `Some(n)` where at least `n` positions are known to be reachable from `root`:
/// under a time limit, stop with [`GameError::TimeLimit`] before the limit as soon as the
/// exploration cannot finish by it: when the positions it must still expand (those found and
/// not yet expanded, or the rest of the `n`, whichever is more) would take more than twice the
/// time left at the rate it has kept so far (checked after its first half second). The whole
/// graph is held until it is complete, so an exploration that cannot complete only holds
/// memory.
#[allow(clippy::too_many_arguments)]
pub fn parallel<G: Game>(
    game: &G,
    root: G::Pos,
    budget: usize,
    progress: &Progress,
    threads: usize,
    replica: Replica<'_, G>,
    visited: &mut u64,
    expand: Expand<G>,
    give_up: Option<u64>,
) -> GameResult<Graph<G::Pos>> {
    let Replica { make, send, receive } = replica;
    let (job_tx, job_rx) = mpsc::channel::<(usize, Vec<Wire>)>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let stop = AtomicBool::new(false);
    // What the workers may hold between them (expanded, not yet merged): a quarter of the
    // budget, counted in `held`; the graph keeps to the rest. A worker expands one position
    // within its share of that quarter; a position with more children is left to this thread.
    let held = AtomicUsize::new(0);
    let (held, all) = (&held, budget / 4);
    let share = all / threads.max(1);
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (make, job_rx, done_tx, stop) = (make.clone(), job_rx.clone(), done_tx.clone(), &stop);
            scope.spawn(move || {
                let game = match make() {
                    Ok(g) => g,
                    Err(e) => {
                        let _ = done_tx.send((usize::MAX, 0, Err(e)));
                        return;
                    }
                };
                loop {
                    let job = job_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((id, wires))) = job else { return };
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    // The chunk's expansions while the workers hold less than their quarter of
                    // the budget: past it, the rest of the chunk is left to the merging thread
                    // (a chunk of 64 positions with thousands of large children each would
                    // otherwise hold many times the budget before the graph could count it).
                    let mut out = Vec::new();
                    let mut bytes = 0;
                    let mut failed = None;
                    for w in wires {
                        if held.load(Ordering::Relaxed) > all {
                            break;
                        }
                        let pos = receive(w);
                        let node = match expand(&game, &pos, share) {
                            Ok(n) => n,
                            Err(GameError::OutOfMemory(_)) => break,
                            Err(e) => {
                                failed = Some(e);
                                break;
                            }
                        };
                        let kids = match &node {
                            Node::End(_) => &[][..],
                            Node::Inner(k) | Node::EndWith(_, k) => &k[..],
                        };
                        let b = kids.iter().map(|k| std::mem::size_of_val(k) + k.heap_bytes()).sum::<usize>();
                        held.fetch_add(b, Ordering::Relaxed);
                        bytes += b;
                        out.push(match node {
                            Node::End(v) => (Some(v), false, Vec::new()),
                            Node::Inner(kids) => (None, false, kids.iter().map(send).collect()),
                            Node::EndWith(v, kids) => (Some(v), true, kids.iter().map(send).collect()),
                        });
                    }
                    let out = match failed {
                        Some(e) => Err(e),
                        None => Ok(out),
                    };
                    if done_tx.send((id, bytes, out)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let here = |p: &G::Pos| expand(game, p, budget);
        let pool = Pool { threads, jobs: &job_tx, done: &done_rx, held };
        let result = merge(root, budget, progress, pool, send, receive, visited, here, give_up);
        if result.is_err() {
            // Stopped early (an error, the time limit): the chunks still queued are not
            // expanded; each worker stops after the one it holds.
            stop.store(true, Ordering::Relaxed);
        }
        drop(job_tx); // the workers stop
        result
    })
}

#[allow(clippy::too_many_arguments)]
fn merge<P: Clone + Eq + std::hash::Hash + Footprint>(
    root: P,
    budget: usize,
    progress: &Progress,
    pool: Pool<'_>,
    send: fn(&P) -> Wire,
    receive: fn(Wire) -> P,
    visited: &mut u64,
    mut here: impl FnMut(&P) -> GameResult<Node<P>>,
    give_up: Option<u64>,
) -> GameResult<Graph<P>> {
    let mut b = Graph::builder(root);
    let late = Late { on: give_up, threads: pool.threads, started: std::time::Instant::now() };
    let stopped = || GameError::Definition("a worker thread stopped".into());
    while b.next() < b.len() {
        // Every position found so far and not yet expanded, in order, in chunks.
        let (from, to) = (b.next(), b.len());
        if to - from < CHUNK {
            // Too few to share out (a narrow level): a round trip to the workers would
            // cost more than the work.
            for i in from..to {
                let pos = b.node(i).into_owned();
                *visited += 1;
                b.add(here(&pos)?, budget, progress)?;
            }
            continue;
        }
        let chunks: Vec<(usize, usize)> = (from..to).step_by(CHUNK).map(|s| (s, (s + CHUNK).min(to))).collect();
        // A few chunks in flight a worker (not the whole level at once: what comes back
        // out of order waits here, and must stay within the workers' share of the budget).
        let mut sent = 0;
        let send_next = |b: &Builder<P>, sent: &mut usize| -> GameResult<()> {
            if let Some(&(s, e)) = chunks.get(*sent) {
                let wires = (s..e).map(|i| send(&b.node(i))).collect();
                pool.jobs.send((*sent, wires)).map_err(|_| stopped())?;
                *sent += 1;
            }
            Ok(())
        };
        for _ in 0..2 * pool.threads.max(1) {
            send_next(&b, &mut sent)?;
        }
        // Merge in order as the chunks come back.
        let mut waiting: BTreeMap<usize, (usize, Vec<WireNode>)> = BTreeMap::new();
        let mut want = 0;
        while want < chunks.len() {
            let (id, bytes, out) = pool.done.recv().map_err(|_| stopped())?;
            if id == usize::MAX {
                return Err(out.err().unwrap_or_else(stopped));
            }
            waiting.insert(id, (bytes, out?));
            while let Some((bytes, nodes)) = waiting.remove(&want) {
                let (s, e) = chunks[want];
                let returned = nodes.len();
                for (end, with, kids) in nodes {
                    *visited += 1;
                    let kids: Vec<P> = kids.into_iter().map(receive).collect();
                    let node = match (end, with) {
                        (Some(v), false) => Node::End(v),
                        (Some(v), true) => Node::EndWith(v, kids),
                        (None, _) => Node::Inner(kids),
                    };
                    b.add(node, budget.saturating_sub(pool.held.load(Ordering::Relaxed)), progress)?;
                }
                pool.held.fetch_sub(bytes, Ordering::Relaxed);
                // The rest of a chunk its worker left (past its share of the budget).
                for i in s + returned..e {
                    let pos = b.node(i).into_owned();
                    *visited += 1;
                    b.add(here(&pos)?, budget, progress)?;
                }
                want += 1;
            }
            late.check(&b, progress)?;
            send_next(&b, &mut sent)?;
        }
    }
    Ok(b.finish())
}

/// When an exploration with a time limit gives up (see [`parallel`]'s `give_up`).
struct Late {
    /// Positions known to be reachable (`None`: never give up).
    on: Option<u64>,
    threads: usize,
    started: std::time::Instant,
}

/// Seconds an exploration runs before its rate is trusted.
const LATE_AFTER: f64 = 0.5;

impl Late {
    /// `Err(TimeLimit)` when the positions the exploration must still expand before it can
    /// finish (those found and not yet expanded, or the rest of the positions known to be
    /// reachable, whichever is more: a lower bound on the work left) would take more than
    /// twice the time left at the rate it has kept so far.
    fn check<P: Clone + Eq + std::hash::Hash + Footprint>(
        &self,
        b: &Builder<P>,
        progress: &Progress,
    ) -> GameResult<()> {
        let Some(at_least) = self.on else { return Ok(()) };
        let Some(left) = progress.time_left() else { return Ok(()) };
        let ran = self.started.elapsed().as_secs_f64();
        if ran < LATE_AFTER {
            return Ok(());
        }
        let rate = b.next() as f64 / ran;
        let ahead = (b.len() - b.next()).max((at_least as usize).saturating_sub(b.next())) as f64;
        if ahead > 2.0 * rate * left.as_secs_f64() {
            return Err(GameError::TimeLimit(format!(
                "the search on {} threads could not finish in the {:.1} s left: it had {} positions to expand \
                 and expanded {:.0} a second",
                self.threads,
                left.as_secs_f64(),
                ahead,
                rate
            )));
        }
        Ok(())
    }
}
