//! Win / lose / tie / draw and remoteness, GAMESMAN's way.
//!
//! - A primitive position has remoteness 0.
//! - A win is 1 + the smallest remoteness of its losing children (win as fast as you can).
//! - A loss is 1 + the largest remoteness of its children (lose as slowly as you can).
//! - A tie is 1 + the smallest remoteness of its tying children.
//!
//! For an impartial game under normal play that does not `split`, the same search also
//! computes Grundy values (the mex of the children's), so one pass over the game gives both.
//!
//! A game that packs its positions into keys ([`Game::packed_play`]) is searched on its keys
//! ([`super::value_packed`]), the same search natively; the search over the game's own
//! positions below is the fallback (no keys, or keys whose play loops).
//!
//! Acyclic games are solved by an iterative depth-first search (an explicit stack, so a game a
//! million moves deep needs no call stack). When the search meets a position that is already
//! on its own stack the game is loopy: the solver then enumerates the reachable graph and runs
//! retrograde analysis, which also finds the draws (positions neither side can force).

use super::Solution;
use super::graph::{Graph, Node};
use super::memo::{Memo, Stored, value_code, value_of};
use super::value_packed::{Keyed, PackedValues, Stop as PackedStop};
use crate::game::{Footprint, Game, GameError, GameResult, Value};
use crate::progress::Progress;
use hashbrown::{HashMap, HashSet};

/// A memo entry: the solution and, when computed alongside, the Grundy value.
#[derive(Clone, Copy, Debug)]
struct Entry {
    sol: Solution,
    grundy: Option<u64>,
}

impl Stored for Entry {
    const BYTES: usize = 13;
    fn store(self, out: &mut [u8]) {
        let flags = u8::from(self.sol.remoteness.is_some()) << 2 | u8::from(self.grundy.is_some()) << 3;
        out[0] = value_code(self.sol.value) | flags;
        self.sol.remoteness.unwrap_or(0).store(&mut out[1..5]);
        self.grundy.unwrap_or(0).store(&mut out[5..13]);
    }
    fn load(b: &[u8]) -> Self {
        let sol = Solution { value: value_of(b[0]), remoteness: (b[0] & 4 != 0).then(|| u32::load(&b[1..5])) };
        Entry { sol, grundy: (b[0] & 8 != 0).then(|| u64::load(&b[5..13])) }
    }
}

/// What a position's children have shown so far.
#[derive(Default)]
struct Acc {
    lose_min: Option<u32>,
    tie_min: Option<u32>,
    win_max: u32,
    draw: bool,
    /// Children's Grundy values, when they are being computed.
    seen: Option<Vec<u64>>,
}

impl Acc {
    fn new(with_grundy: bool, children: usize) -> Acc {
        Acc { seen: with_grundy.then(|| Vec::with_capacity(children)), ..Acc::default() }
    }

    fn fold(&mut self, child: Entry) {
        if let Some(seen) = self.seen.as_mut() {
            match child.grundy {
                Some(g) => seen.push(g),
                None => self.seen = None,
            }
        }
        let child = child.sol;
        let r = child.remoteness.unwrap_or(0);
        match child.value {
            Value::Lose => self.lose_min = Some(self.lose_min.map_or(r, |m| m.min(r))),
            Value::Tie => self.tie_min = Some(self.tie_min.map_or(r, |m| m.min(r))),
            Value::Win => self.win_max = self.win_max.max(r),
            Value::Draw => self.draw = true,
        }
    }

    fn finish(&self) -> Entry {
        Entry { sol: self.solution(), grundy: self.seen.as_deref().map(super::grundy::mex) }
    }

    fn solution(&self) -> Solution {
        if let Some(r) = self.lose_min {
            Solution { value: Value::Win, remoteness: Some(r + 1) }
        } else if let Some(r) = self.tie_min {
            Solution { value: Value::Tie, remoteness: Some(r + 1) }
        } else if self.draw {
            Solution { value: Value::Draw, remoteness: None }
        } else {
            Solution { value: Value::Lose, remoteness: Some(self.win_max + 1) }
        }
    }
}

struct Frame<P> {
    pos: P,
    children: Vec<P>,
    /// What the frame holds (its position and children), counted against the budget.
    bytes: usize,
    acc: Acc,
    /// `visited` when the frame was pushed: the difference at the end is its work.
    start: u64,
}

enum Expanded<P> {
    Leaf(Entry),
    Inner(Vec<P>),
}

enum Stop {
    Loop,
    /// The search has visited enough positions to be worth finishing on every core.
    Parallel,
    Error(GameError),
}

/// How long the depth-first search runs on one thread before a solve with more threads goes
/// over to exploring the whole game on all of them: a game solved by then (most are) pays
/// nothing for the threads, and a bigger one loses at most this.
pub const PARALLEL_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

impl From<GameError> for Stop {
    fn from(e: GameError) -> Self {
        Stop::Error(e)
    }
}

/// Solves positions of one game, remembering what it has solved.
pub struct ValueSolver<G: Game> {
    game: std::rc::Rc<G>,
    memo: Memo<G::Pos, Entry>,
    /// Every reachable position, once the whole game has been analysed (a loopy game, or a
    /// solve on several threads).
    complete: HashMap<G::Pos, Entry>,
    budget: usize,
    visited: u64,
    with_grundy: bool,
    progress: Progress,
    threads: usize,
    /// How long the search runs on one thread first (see [`PARALLEL_AFTER`]).
    parallel_after: std::time::Duration,
    /// When the depth-first search stops to go over to all threads.
    parallel_at: Option<std::time::Instant>,
    /// The search on keys, where the game packs its positions (off after
    /// [`ValueSolver::without_keys`]).
    packed: Keyed<PackedValues<G::Pos>>,
    /// Positions known to be reachable from the next root solved (see
    /// [`ValueSolver::reaching_at_least`]).
    at_least: u64,
}

impl<G: Game> ValueSolver<G> {
    /// A solver whose tables use at most about `budget` bytes. With `with_grundy`, it also
    /// computes Grundy values (only meaningful for impartial games under normal play that
    /// are searched whole).
    pub fn new(game: std::rc::Rc<G>, budget: usize, with_grundy: bool) -> Self {
        ValueSolver {
            game,
            // The memo three quarters, the path from the root the rest: both at once must keep
            // to the budget (a misère sum of 1000 heaps held a full memo and a path of the
            // whole budget again: 1.75 GB at 1 GiB).
            memo: Memo::new(budget / 4 * 3),
            complete: HashMap::new(),
            budget,
            visited: 0,
            with_grundy,
            progress: Progress::default(),
            threads: 1,
            parallel_after: PARALLEL_AFTER,
            parallel_at: None,
            packed: Keyed::default(),
            at_least: 0,
        }
    }

    /// Search the game's own positions even where it packs them into keys (the fallback of
    /// [`Game::packed_play`], as a second implementation to test the first against).
    pub fn without_keys(mut self) -> Self {
        self.packed.turn_off();
        self
    }

    /// The key of `pos` where the game packs it (see [`Game::packed_play`]), with the search
    /// of its space ready (a new one, with its own table, when `pos` is in another space).
    fn packed_key(&mut self, pos: &G::Pos) -> Option<u128> {
        let (game, budget, with_grundy, progress) = (&self.game, self.budget, self.with_grundy, &self.progress);
        self.packed.key(
            pos,
            || game.packed_play(pos),
            |space| PackedValues::new(space, budget / 4 * 3, with_grundy, game.stalemate(), progress.clone()),
        )
    }

    /// At least `n` positions are reachable from the next position solved (another search
    /// expanded that many there): an exploration on several threads under a time limit gives
    /// up as soon as it cannot expand them in time (see [`super::explore::parallel`]).
    pub fn reaching_at_least(&mut self, n: u64) {
        self.at_least = n;
    }

    /// Solve on `threads` threads where the game can be copied to them: a search still
    /// running after `after` (default [`PARALLEL_AFTER`]) explores the whole game on all of
    /// them and solves it by retrograde analysis. The answers are the same for any number of
    /// threads.
    pub fn with_threads(mut self, threads: usize, after: Option<std::time::Duration>) -> Self {
        self.threads = threads.max(1);
        self.parallel_after = after.unwrap_or(PARALLEL_AFTER);
        self
    }

    /// Report progress to `progress` as positions are visited.
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = progress;
        self
    }

    /// Is `pos` solved already (a look in the tables, no search)?
    pub fn knows(&mut self, pos: &G::Pos) -> GameResult<bool> {
        if let Some(key) = self.packed_key(pos) {
            return Ok(self.packed.search().knows(key));
        }
        let c = self.game.canonical(pos)?;
        Ok(self.lookup(&c).is_some())
    }

    /// Positions expanded so far (primitive checks and move generation).
    pub fn visited(&self) -> u64 {
        self.visited + self.packed.visited()
    }

    /// Memo entries dropped to keep to the memory budget.
    pub fn evicted(&self) -> u64 {
        self.memo.evicted() + self.packed.evicted()
    }

    /// The solution of `pos`, and its Grundy value when the solver computes them and it is
    /// defined (every primitive position a normal-play loss, no loops).
    pub fn solve(&mut self, pos: &G::Pos) -> GameResult<(Solution, Option<u64>)> {
        // For this root only, whichever search answers it.
        let at_least = std::mem::take(&mut self.at_least);
        if let Some(key) = self.packed_key(pos) {
            match self.packed.search().solve(key) {
                Ok(answer) => return Ok(answer),
                Err(PackedStop::Error(e)) => return Err(e),
                // The game's play loops after all: the search below finds its draws.
                Err(PackedStop::Loop) => {
                    self.packed.turn_off();
                }
            }
        }
        let root = self.game.canonical(pos)?;
        if let Some(e) = self.lookup(&root) {
            return Ok((e.sol, e.grundy));
        }
        let parallel = self.threads > 1 && self.game.replicate().is_some();
        self.parallel_at = parallel.then(|| std::time::Instant::now() + self.parallel_after);
        let visited_before = self.visited;
        let result = self.dfs(root.clone());
        self.parallel_at = None;
        match result {
            Ok(e) => Ok((e.sol, e.grundy)),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Loop) => self.solve_loopy(&root),
            // Only while the memo is small (a search that has filled much of the budget in a
            // quarter second has positions too big to hold the whole game at once), and where
            // positions are quick to expand (a search that expanded fewer than 1,000 in that
            // time would make the explorer crawl; the one-thread search may still end soon,
            // by an answer or by its memory budget).
            Err(Stop::Parallel)
                if self.memo.bytes() > self.budget / 8
                    || (!self.parallel_after.is_zero() && self.visited - visited_before < 1_000) =>
            {
                self.dfs_again(&root)
            }
            Err(Stop::Parallel) => match self.explore_parallel(&root, at_least) {
                Ok(()) => {
                    let e = self.complete[&root];
                    Ok((e.sol, e.grundy))
                }
                // The whole game does not fit the budget at once; the depth-first search on
                // one thread can still finish by forgetting positions.
                Err(GameError::OutOfMemory(_)) => {
                    self.progress.note(&format!(
                        "the search on {} threads keeps every position in memory at once, and the game outgrew the \
                         memory budget (--max-memory); going on with the one-thread search, which forgets positions to \
                         stay inside it (the count of positions starts again)",
                        self.threads
                    ));
                    self.dfs_again(&root)
                }
                // It could not finish before the time limit (a remoteness search's share of
                // time, or the command's): the one-thread search goes on, holding less.
                Err(GameError::TimeLimit(why)) if !self.progress.expired() => {
                    self.progress.note(&format!(
                        "{why}; going on with the one-thread search, which holds fewer positions in memory"
                    ));
                    self.dfs_again(&root)
                }
                Err(e) => Err(e),
            },
        }
    }

    /// The depth-first search on one thread, to the end.
    fn dfs_again(&mut self, root: &G::Pos) -> GameResult<(Solution, Option<u64>)> {
        match self.dfs(root.clone()) {
            Ok(e) => Ok((e.sol, e.grundy)),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Loop | Stop::Parallel) => self.solve_loopy(root),
        }
    }

    /// A loopy game: retrograde analysis of everything reachable from `root`.
    fn solve_loopy(&mut self, root: &G::Pos) -> GameResult<(Solution, Option<u64>)> {
        self.retrograde(root)?;
        let e = self.complete[root];
        Ok((e.sol, e.grundy))
    }

    fn lookup(&mut self, pos: &G::Pos) -> Option<Entry> {
        if let Some(e) = self.complete.get(pos) {
            return Some(*e);
        }
        self.memo.get(pos)
    }

    /// Explore everything reachable from `root` on every thread (each with its own copy of
    /// the game), then solve it by retrograde analysis, as [`ValueSolver::retrograde`] does
    /// on one thread, Grundy values too where they are computed.
    fn explore_parallel(&mut self, root: &G::Pos, at_least: u64) -> GameResult<()> {
        let Some(replica) = self.game.replicate() else { unreachable!("checked before the search") };
        // A quarter of the budget for the graph: the solutions it turns into, the copies of
        // the game on the workers, and the memo of the search so far need the rest.
        let budget = self.budget / 4;
        let mut visited = 0;
        let graph = super::explore::parallel(
            &*self.game,
            root.clone(),
            budget,
            &self.progress,
            self.threads,
            replica,
            &mut visited,
            expand_canonical::<G>,
            Some(at_least),
        );
        // Positions expanded count even when the exploration stops (its share of time, the
        // budget): they were visited.
        self.visited += visited;
        let graph = graph?;
        let solutions = graph.retrograde();
        // As the depth-first search gives them: none at all in a loopy game.
        let (grundy, acyclic) = graph.grundy_where_defined();
        let with_grundy = self.with_grundy && acyclic;
        for ((pos, sol), g) in graph.nodes.into_positions().zip(solutions).zip(grundy) {
            self.complete.insert(pos, Entry { sol, grundy: g.filter(|_| with_grundy) });
        }
        Ok(())
    }

    fn leaf(&self, value: Value) -> Entry {
        let grundy = (self.with_grundy && value == Value::Lose).then_some(0);
        Entry { sol: Solution::primitive(value), grundy }
    }

    fn expand(&mut self, pos: &G::Pos) -> GameResult<Expanded<G::Pos>> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        if let Some(v) = self.game.primitive(pos)? {
            return Ok(Expanded::Leaf(self.leaf(v)));
        }
        super::check_fanout(&*self.game, pos, self.budget)?;
        let children = self.game.children(pos)?;
        if children.is_empty() {
            return Ok(Expanded::Leaf(self.leaf(self.game.stalemate())));
        }
        let canon = children.iter().map(|c| self.game.canonical(c)).collect::<GameResult<Vec<_>>>()?;
        Ok(Expanded::Inner(canon))
    }

    /// Bytes a frame for `pos` with `children` holds.
    fn frame_bytes(pos: &G::Pos, children: &[G::Pos]) -> usize {
        let one = |p: &G::Pos| p.heap_bytes() + std::mem::size_of::<G::Pos>();
        2 * one(pos) + children.iter().map(one).sum::<usize>() + 64
    }

    fn dfs(&mut self, root: G::Pos) -> Result<Entry, Stop> {
        let mut stack: Vec<Frame<G::Pos>> = Vec::new();
        // The path from the root is held whole; with the memo it must keep to the budget.
        let mut stack_bytes = 0usize;
        let too_deep = |depth: usize| {
            Stop::Error(GameError::OutOfMemory(format!(
                "the search went {depth} moves deep, and the positions on its path need more than the memory \
                 budget (raise --max-memory; or the game may never end: a path of new positions with no \
                 end to it takes any budget)"
            )))
        };
        let mut on_stack: HashSet<G::Pos> = HashSet::new();
        match self.expand(&root)? {
            Expanded::Leaf(s) => {
                self.memo.insert(root, s, 1);
                return Ok(s);
            }
            Expanded::Inner(children) => {
                on_stack.insert(root.clone());
                let acc = Acc::new(self.with_grundy, children.len());
                let bytes = Self::frame_bytes(&root, &children);
                stack_bytes += bytes;
                stack.push(Frame { pos: root, children, bytes, acc, start: self.visited });
            }
        }
        loop {
            let top = stack.last_mut().expect("the stack holds the root until it is solved");
            if let Some(child) = top.children.pop() {
                if let Some(s) = self.lookup(&child) {
                    top.acc.fold(s);
                    continue;
                }
                if on_stack.contains(&child) {
                    return Err(Stop::Loop);
                }
                if self.parallel_at.is_some_and(|at| std::time::Instant::now() >= at) {
                    return Err(Stop::Parallel);
                }
                match self.expand(&child)? {
                    Expanded::Leaf(s) => {
                        self.memo.insert(child, s, 1);
                        top.acc.fold(s);
                    }
                    Expanded::Inner(children) => {
                        let bytes = Self::frame_bytes(&child, &children);
                        stack_bytes += bytes;
                        if stack_bytes > self.budget / 4 {
                            return Err(too_deep(stack.len() + 1));
                        }
                        on_stack.insert(child.clone());
                        let acc = Acc::new(self.with_grundy, children.len());
                        stack.push(Frame { pos: child, children, bytes, acc, start: self.visited });
                    }
                }
            } else {
                let frame = stack.pop().expect("non-empty");
                stack_bytes -= frame.bytes;
                let s = frame.acc.finish();
                on_stack.remove(&frame.pos);
                self.memo.insert(frame.pos, s, self.visited - frame.start);
                match stack.last_mut() {
                    Some(parent) => parent.acc.fold(s),
                    None => return Ok(s),
                }
            }
        }
    }

    /// Retrograde analysis of everything reachable from `root` (for loopy games).
    fn retrograde(&mut self, root: &G::Pos) -> GameResult<()> {
        let progress = self.progress.clone();
        let graph = Graph::explore(root.clone(), self.budget, &progress, |pos| {
            Ok(match self.expand(pos)? {
                Expanded::Leaf(e) => Node::End(e.sol.value),
                Expanded::Inner(children) => Node::Inner(children),
            })
        })?;
        let solutions = graph.retrograde();
        for (pos, sol) in graph.nodes.into_positions().zip(solutions) {
            self.complete.insert(pos, Entry { sol, grundy: None });
        }
        Ok(())
    }
}

/// One position as the search sees it, for a worker thread: its value if it is an end,
/// else the canonical forms of its children.
fn expand_canonical<G: Game>(game: &G, pos: &G::Pos, budget: usize) -> GameResult<Node<G::Pos>> {
    if let Some(v) = game.primitive(pos)? {
        return Ok(Node::End(v));
    }
    super::check_fanout(game, pos, budget)?;
    let children = game.children(pos)?;
    if children.is_empty() {
        return Ok(Node::End(game.stalemate()));
    }
    // Each canonical child once: positions that differ only by symmetry (a move on one of
    // many equal heaps) would otherwise cross between threads as many copies.
    let mut seen = HashSet::with_capacity(children.len());
    let mut canon = Vec::with_capacity(children.len());
    for c in &children {
        let c = game.canonical(c)?;
        if seen.insert(c.clone()) {
            canon.push(c);
        }
    }
    Ok(Node::Inner(canon))
}
