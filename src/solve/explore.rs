//! Breadth-first exploration with the expansions done on worker threads, each with its own
//! copy of the game: the main thread hands out the discovered positions in chunks, in order,
//! and merges what comes back in the same order, exactly as the one-thread explorer would.

use super::graph::Node;
use crate::game::{Footprint, Game, GameError, GameResult, Replica, Value, Wire};
use crate::progress::Progress;
use crate::solve::graph::Graph;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

/// Positions a worker expands per job.
const CHUNK: usize = 64;

/// A node as it crosses back: the end value, and the children.
type WireNode = (Option<Value>, bool, Vec<Wire>);

/// How a worker expands one position of `G`: `(game, position, memory budget)`.
pub type Expand<G> = fn(&G, &<G as Game>::Pos, usize) -> GameResult<Node<<G as Game>::Pos>>;

/// Explore everything reachable from `root` level by level: each level's positions are
/// expanded (by `expand`) on `threads` workers, each with its own copy of the game, and
/// merged in order, so the graph is the one a single thread builds. A level too small to
/// share out is expanded here, with `game`.
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
) -> GameResult<Graph<G::Pos>> {
    let Replica { make, send, receive } = replica;
    let (job_tx, job_rx) = mpsc::channel::<(usize, Vec<Wire>)>();
    let job_rx = Arc::new(Mutex::new(job_rx));
    let stop = AtomicBool::new(false);
    let (done_tx, done_rx) = mpsc::channel::<(usize, GameResult<Vec<WireNode>>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (make, job_rx, done_tx, stop) = (make.clone(), job_rx.clone(), done_tx.clone(), &stop);
            scope.spawn(move || {
                let game = match make() {
                    Ok(g) => g,
                    Err(e) => {
                        let _ = done_tx.send((usize::MAX, Err(e)));
                        return;
                    }
                };
                loop {
                    let job = job_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((id, wires))) = job else { return };
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let out: GameResult<Vec<WireNode>> = wires
                        .into_iter()
                        .map(|w| {
                            let pos = receive(w);
                            Ok(match expand(&game, &pos, budget)? {
                                Node::End(v) => (Some(v), false, Vec::new()),
                                Node::Inner(kids) => (None, false, kids.iter().map(send).collect()),
                                Node::EndWith(v, kids) => (Some(v), true, kids.iter().map(send).collect()),
                            })
                        })
                        .collect();
                    if done_tx.send((id, out)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let here = |p: &G::Pos| expand(game, p, budget);
        let result = merge(root, budget, progress, &job_tx, &done_rx, send, receive, visited, here);
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
    jobs: &mpsc::Sender<(usize, Vec<Wire>)>,
    done: &mpsc::Receiver<(usize, GameResult<Vec<WireNode>>)>,
    send: fn(&P) -> Wire,
    receive: fn(Wire) -> P,
    visited: &mut u64,
    mut here: impl FnMut(&P) -> GameResult<Node<P>>,
) -> GameResult<Graph<P>> {
    let mut b = Graph::builder(root);
    let stopped = || GameError::Definition("a worker thread stopped".into());
    while b.next() < b.len() {
        // Every position found so far and not yet expanded, in order, in chunks.
        let (from, to) = (b.next(), b.len());
        if to - from < CHUNK {
            // Too few to share out (a narrow level): a round trip to the workers would
            // cost more than the work.
            for i in from..to {
                let pos = b.node(i).clone();
                *visited += 1;
                b.add(here(&pos)?, budget, progress)?;
            }
            continue;
        }
        let chunks: Vec<(usize, usize)> = (from..to).step_by(CHUNK).map(|s| (s, (s + CHUNK).min(to))).collect();
        for (id, &(s, e)) in chunks.iter().enumerate() {
            let wires = (s..e).map(|i| send(b.node(i))).collect();
            jobs.send((id, wires)).map_err(|_| stopped())?;
        }
        // Merge in order as the chunks come back.
        let mut waiting: BTreeMap<usize, Vec<WireNode>> = BTreeMap::new();
        let mut want = 0;
        while want < chunks.len() {
            let (id, out) = done.recv().map_err(|_| stopped())?;
            if id == usize::MAX {
                return Err(out.err().unwrap_or_else(stopped));
            }
            waiting.insert(id, out?);
            while let Some(nodes) = waiting.remove(&want) {
                for (end, with, kids) in nodes {
                    *visited += 1;
                    let kids: Vec<P> = kids.into_iter().map(receive).collect();
                    let node = match (end, with) {
                        (Some(v), false) => Node::End(v),
                        (Some(v), true) => Node::EndWith(v, kids),
                        (None, _) => Node::Inner(kids),
                    };
                    b.add(node, budget, progress)?;
                }
                want += 1;
            }
        }
    }
    Ok(b.finish())
}
