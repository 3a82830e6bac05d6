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
//! [`ValueSearch`] is the depth-first search of an acyclic game, written once over a
//! [`Space`]: an iterative search with an explicit stack (a game a million moves deep needs
//! no call stack), the children of every position on the path in one buffer and the Grundy
//! values of their children in another, remembered in a [`Memo`] of 8-byte entries.
//! [`ValueSolver`] runs it on a game's keys where the game packs its positions
//! ([`GameExt::packed_play`]), else on its own positions. When the search meets a position
//! already on its own path the game is loopy: the solver then enumerates the reachable graph
//! and runs retrograde analysis, which also finds the draws (positions neither side can
//! force). A large search on several threads goes over to exploring the whole game on all
//! of them ([`super::explore`]).

use super::graph::{Graph, Node};
use super::memo::{Memo, Stored, value_code, value_of};
use super::solution::Solution;
use super::space::{GameSpace, KeySearch, KeySpace, Keyed, Path, Space, Stop};
use crate::game::{Footprint, Game, GameError, GameExt, GameResult, Value};
use crate::progress::Progress;
use hashbrown::{HashMap, HashSet};
use std::time::Instant;

/// A table entry in 8 bytes: the value's code (bits 0–1), whether there is a Grundy value
/// (bit 2), the remoteness (bits 3–31; none for a draw), the Grundy value (bits 32–63: a
/// Grundy value is at most the number of a position's moves, and no search lists 2^32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rec(u64);

const HAS_GRUNDY: u64 = 4;

impl Rec {
    fn new(value: Value, remoteness: u32, grundy: Option<u64>) -> Rec {
        let g = grundy.map_or(0, |g| (g.min(u64::from(u32::MAX)) << 32) | HAS_GRUNDY);
        Rec(u64::from(value_code(value)) | u64::from(remoteness.min((1 << 29) - 1)) << 3 | g)
    }
    fn of(sol: Solution, grundy: Option<u64>) -> Rec {
        Rec::new(sol.value, sol.remoteness.unwrap_or(0), grundy)
    }
    #[inline]
    fn value(self) -> Value {
        value_of(self.0 as u8)
    }
    #[inline]
    fn remoteness(self) -> u32 {
        (self.0 as u32) >> 3
    }
    fn grundy(self) -> Option<u64> {
        (self.0 & HAS_GRUNDY != 0).then_some(self.0 >> 32)
    }
    fn answer(self) -> (Solution, Option<u64>) {
        let value = self.value();
        let remoteness = (value != Value::Draw).then(|| self.remoteness());
        (Solution { value, remoteness }, self.grundy())
    }
}

impl Stored for Rec {
    const BYTES: usize = 8;
    fn store(self, out: &mut [u8]) {
        self.0.store(out)
    }
    fn load(b: &[u8]) -> Self {
        Rec(u64::load(b))
    }
}

/// A position on the path: its key, where its children start in the shared buffer, what
/// its children have shown so far.
struct Frame<K> {
    key: K,
    kids: usize,
    seen: usize,
    /// The smallest remoteness of a losing child and of a tying child (`u32::MAX`: none),
    /// the largest of a winning child; whether a child draws.
    lose_min: u32,
    tie_min: u32,
    win_max: u32,
    draw: bool,
    /// Every child so far has a Grundy value.
    grundy: bool,
    /// Bytes the frame holds (its position, twice, and its children), counted against the
    /// budget.
    bytes: usize,
    /// `visited` when it was expanded: the difference at the end is its work.
    start: u64,
}

impl<K> Frame<K> {
    #[inline]
    fn fold(&mut self, child: Rec, seen: &mut Vec<u64>) {
        let r = child.remoteness();
        match child.value() {
            Value::Lose => self.lose_min = self.lose_min.min(r),
            Value::Tie => self.tie_min = self.tie_min.min(r),
            Value::Win => self.win_max = self.win_max.max(r),
            Value::Draw => self.draw = true,
        }
        if self.grundy {
            match child.grundy() {
                Some(g) => seen.push(g),
                None => self.grundy = false,
            }
        }
    }

    fn finish(&self, seen: &[u64]) -> Rec {
        let grundy = self.grundy.then(|| super::grundy::mex(seen));
        if self.lose_min != u32::MAX {
            Rec::new(Value::Win, self.lose_min + 1, grundy)
        } else if self.tie_min != u32::MAX {
            Rec::new(Value::Tie, self.tie_min + 1, grundy)
        } else if self.draw {
            Rec::new(Value::Draw, 0, grundy)
        } else {
            Rec::new(Value::Lose, self.win_max + 1, grundy)
        }
    }
}

/// The values and remoteness of the positions of one [`Space`], by a depth-first search.
pub struct ValueSearch<S: Space> {
    space: S,
    memo: Memo<S::Key, Rec>,
    /// Every position reachable from a root solved whole (by retrograde analysis, or on
    /// several threads): looked up before the memo, never forgotten.
    complete: HashMap<S::Key, Rec>,
    with_grundy: bool,
    visited: u64,
    progress: Progress,
    /// The children of every position on the path, each frame's from its `kids` on.
    kids: Vec<S::Key>,
    /// The Grundy values of the children solved so far, each frame's from its `seen` on.
    seen: Vec<u64>,
    stack: Vec<Frame<S::Key>>,
    path: Path<S>,
    /// When the search stops to go over to every thread ([`Stop::Parallel`]).
    parallel_at: Option<Instant>,
}

impl<P> KeySearch for ValueSearch<KeySpace<P>> {
    type Pos = P;
    fn pack(&self, pos: &P) -> Option<u128> {
        self.space.pack(pos)
    }
    fn visited(&self) -> u64 {
        self.visited
    }
    fn evicted(&self) -> u64 {
        self.memo.evicted()
    }
}

impl<S: Space> ValueSearch<S> {
    /// A search of `space` whose tables keep to about `budget` bytes; `with_grundy` computes
    /// Grundy values too (an impartial game under normal play).
    pub fn new(space: S, budget: usize, with_grundy: bool, progress: Progress) -> Self {
        ValueSearch {
            space,
            // The memo three quarters, the path from the root the rest: both at once must keep
            // to the budget (a misère sum of 1000 heaps held a full memo and a path of the
            // whole budget again: 1.75 GB at 1 GiB).
            memo: Memo::new(budget / 4 * 3),
            complete: HashMap::new(),
            with_grundy,
            visited: 0,
            progress,
            kids: Vec::new(),
            seen: Vec::new(),
            stack: Vec::new(),
            path: Path::new(budget),
            parallel_at: None,
        }
    }

    /// Positions expanded so far.
    pub fn visited(&self) -> u64 {
        self.visited
    }

    /// Memo entries dropped to keep to the budget.
    pub fn evicted(&self) -> u64 {
        self.memo.evicted()
    }

    #[inline]
    fn lookup(&self, key: &S::Key) -> Option<Rec> {
        if let Some(r) = self.complete.get(key) {
            return Some(*r);
        }
        self.memo.get(key)
    }

    /// The answer for `key` (canonical) if it is solved already (a look in the tables).
    pub fn known(&self, key: &S::Key) -> Option<(Solution, Option<u64>)> {
        self.lookup(key).map(Rec::answer)
    }

    fn leaf(&self, value: Value) -> Rec {
        Rec::new(value, 0, (self.with_grundy && value == Value::Lose).then_some(0))
    }

    /// Expand `key` (canonical): its record if it is an end, else `None` with its canonical
    /// children on the buffer from the returned length on.
    #[inline]
    fn open(&mut self, key: &S::Key) -> GameResult<Result<Rec, usize>> {
        self.visited += 1;
        self.progress.tick(self.visited, self.memo.bytes())?;
        if let Some(v) = self.space.primitive(key)? {
            return Ok(Ok(self.leaf(v)));
        }
        let kids = self.kids.len();
        self.space.children(key, &mut self.kids)?;
        if self.kids.len() == kids {
            return Ok(Ok(self.leaf(self.space.stalemate())));
        }
        for i in kids..self.kids.len() {
            self.kids[i] = self.space.canonical(&self.kids[i])?;
        }
        Ok(Err(kids))
    }

    /// Push the frame of `key`, opened with its children on the buffer from `kids` on.
    fn push(&mut self, key: S::Key, kids: usize) -> Result<(), Stop> {
        let bytes = self.path.enter(self.stack.len(), &key, &self.kids[kids..])?;
        self.stack.push(Frame {
            key,
            kids,
            seen: self.seen.len(),
            lose_min: u32::MAX,
            tie_min: u32::MAX,
            win_max: 0,
            draw: false,
            grundy: self.with_grundy,
            bytes,
            start: self.visited,
        });
        Ok(())
    }

    /// The solution of `root`'s position (canonical), and its Grundy value where it is
    /// computed and defined. The search stops at `parallel_at` where one is given.
    pub fn solve(&mut self, root: S::Key, parallel_at: Option<Instant>) -> Result<(Solution, Option<u64>), Stop> {
        if let Some(r) = self.lookup(&root) {
            return Ok(r.answer());
        }
        self.stack.clear();
        self.kids.clear();
        self.seen.clear();
        self.path.clear();
        self.parallel_at = parallel_at;
        match self.open(&root)? {
            Ok(r) => {
                self.memo.insert(root, r, 1);
                return Ok(r.answer());
            }
            Err(kids) => self.push(root, kids)?,
        }
        loop {
            let top = self.stack.last_mut().expect("the stack holds the root until it is solved");
            if self.kids.len() > top.kids {
                let child = self.kids.pop().expect("a child");
                if let Some(r) = self.lookup(&child) {
                    let top = self.stack.last_mut().expect("the parent");
                    top.fold(r, &mut self.seen);
                    continue;
                }
                if self.path.holds(&child) {
                    return Err(Stop::Loop);
                }
                if self.parallel_at.is_some_and(|at| Instant::now() >= at) {
                    return Err(Stop::Parallel);
                }
                match self.open(&child)? {
                    Ok(r) => {
                        self.memo.insert(child, r, 1);
                        let top = self.stack.last_mut().expect("the parent");
                        top.fold(r, &mut self.seen);
                    }
                    Err(kids) => self.push(child, kids)?,
                }
            } else {
                let frame = self.stack.pop().expect("non-empty");
                let r = frame.finish(&self.seen[frame.seen..]);
                self.seen.truncate(frame.seen);
                self.path.leave(&frame.key, frame.bytes);
                self.memo.insert(frame.key, r, self.visited - frame.start + 1);
                match self.stack.last_mut() {
                    Some(parent) => parent.fold(r, &mut self.seen),
                    None => return Ok(r.answer()),
                }
            }
        }
    }

    /// `key` (canonical) as a node of the game's graph: its value if it is an end, else its
    /// canonical children (for an exploration of the whole game).
    pub fn node(&mut self, key: &S::Key) -> GameResult<Node<S::Key>> {
        self.kids.clear();
        Ok(match self.open(key)? {
            Ok(r) => Node::End(r.value()),
            Err(kids) => Node::Inner(self.kids.drain(kids..).collect()),
        })
    }

    /// Solve everything reachable from `root` by retrograde analysis (a game whose play
    /// loops): the graph within `budget`, each position then remembered for good.
    pub fn solve_whole(&mut self, root: &S::Key, budget: usize) -> GameResult<(Solution, Option<u64>)>
    where
        S::Key: Clone + Eq + std::hash::Hash + Footprint,
    {
        let progress = self.progress().clone();
        let graph = Graph::explore(root.clone(), budget, &progress, |k| self.node(k))?;
        let solutions = graph.retrograde();
        self.complete.reserve(graph.len());
        for (k, sol) in graph.nodes.into_positions().zip(solutions) {
            self.complete(k, sol, None);
        }
        Ok(self.known(root).expect("the whole game is solved"))
    }

    /// Remember `sol` (and `grundy`) for `key` for good: a position of a game solved whole.
    pub fn complete(&mut self, key: S::Key, sol: Solution, grundy: Option<u64>) {
        self.complete.insert(key, Rec::of(sol, grundy));
    }

    /// Bytes the memo holds.
    pub fn memo_bytes(&self) -> usize {
        self.memo.bytes()
    }

    /// Count `n` positions expanded elsewhere (an exploration on several threads).
    pub fn count_visited(&mut self, n: u64) {
        self.visited += n;
    }

    /// Where the search reports its progress.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }
}

/// How long the depth-first search runs on one thread before a solve with more threads goes
/// over to exploring the whole game on all of them: a game solved by then (most are) pays
/// nothing for the threads, and a bigger one loses at most this.
pub const PARALLEL_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

/// Solves positions of one game, remembering what it has solved: on its keys where it packs
/// its positions, else on its own positions.
pub struct ValueSolver<G: Game> {
    game: std::rc::Rc<G>,
    search: ValueSearch<GameSpace<G>>,
    budget: usize,
    with_grundy: bool,
    threads: usize,
    /// How long the search runs on one thread first (see [`PARALLEL_AFTER`]).
    parallel_after: std::time::Duration,
    /// The search on keys, where the game packs its positions (off after
    /// [`ValueSolver::without_keys`]).
    packed: Keyed<ValueSearch<KeySpace<G::Pos>>>,
    /// Positions known to be reachable from the next root solved (see
    /// [`ValueSolver::reaching_at_least`]).
    at_least: u64,
}

impl<G: Game> ValueSolver<G> {
    /// A solver whose tables use at most about `budget` bytes. With `with_grundy`, it also
    /// computes Grundy values (only meaningful for impartial games under normal play that
    /// are searched whole).
    pub fn new(game: std::rc::Rc<G>, budget: usize, with_grundy: bool) -> Self {
        let space = GameSpace::new(game.clone(), budget);
        ValueSolver {
            game,
            search: ValueSearch::new(space, budget, with_grundy, Progress::default()),
            budget,
            with_grundy,
            threads: 1,
            parallel_after: PARALLEL_AFTER,
            packed: Keyed::default(),
            at_least: 0,
        }
    }

    /// Search the game's own positions even where it packs them into keys (the fallback of
    /// [`GameExt::packed_play`], as a second implementation to test the first against).
    pub fn without_keys(mut self) -> Self {
        self.packed.turn_off();
        self
    }

    /// The key of `pos` where the game packs it (see [`GameExt::packed_play`]), with the search
    /// of its space ready (a new one, with its own table, when `pos` is in another space).
    fn packed_key(&mut self, pos: &G::Pos) -> Option<u128> {
        let (game, budget, with_grundy, progress) = (&self.game, self.budget, self.with_grundy, self.search.progress());
        self.packed.key(
            pos,
            || game.packed_play(pos),
            |space| ValueSearch::new(KeySpace::new(space, game.stalemate()), budget, with_grundy, progress.clone()),
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
        self.search.progress = progress;
        self
    }

    /// Is `pos` solved already (a look in the tables, no search)?
    pub fn knows(&mut self, pos: &G::Pos) -> GameResult<bool> {
        if let Some(key) = self.packed_key(pos) {
            let search = self.packed.search();
            return Ok(search.known(&search.space.canonical(&key)?).is_some());
        }
        let c = self.game.canonical(pos)?;
        Ok(self.search.known(&c).is_some())
    }

    /// Positions expanded so far (primitive checks and move generation).
    pub fn visited(&self) -> u64 {
        self.search.visited() + self.packed.visited()
    }

    /// Of [`ValueSolver::visited`], the positions expanded as keys (see
    /// [`GameExt::packed_play`]), loopy games' explorations included.
    pub fn visited_on_keys(&self) -> u64 {
        self.packed.visited()
    }

    /// Memo entries dropped to keep to the memory budget.
    pub fn evicted(&self) -> u64 {
        self.search.evicted() + self.packed.evicted()
    }

    /// The solution of `pos`, and its Grundy value when the solver computes them and it is
    /// defined (every primitive position a normal-play loss, no loops).
    pub fn solve(&mut self, pos: &G::Pos) -> GameResult<(Solution, Option<u64>)> {
        // For this root only, whichever search answers it.
        let at_least = std::mem::take(&mut self.at_least);
        if let Some(key) = self.packed_key(pos) {
            let search = self.packed.search();
            let root = search.space.canonical(&key)?;
            match search.solve(root, None) {
                Ok(answer) => return Ok(answer),
                Err(Stop::Error(e)) => return Err(e),
                // The game's play loops: retrograde analysis of everything reachable, on
                // the keys, as `solve_loopy` does on positions.
                // The search on keys runs on one thread (it is given no time to go parallel),
                // and so does this exploration: keys are cheap to expand, and the answers are
                // the same for any number of threads. The memory budget bounds the graph, the
                // time limit and progress are those of the search.
                Err(Stop::Loop) => return search.solve_whole(&root, self.budget),
                Err(Stop::Parallel) => {
                    self.packed.turn_off();
                }
            }
        }
        let root = self.game.canonical(pos)?;
        let parallel = self.threads > 1 && self.game.replicate().is_some();
        let parallel_at = parallel.then(|| Instant::now() + self.parallel_after);
        let visited_before = self.search.visited();
        match self.search.solve(root.clone(), parallel_at) {
            Ok(answer) => Ok(answer),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Loop) => self.solve_loopy(&root),
            // Only while the memo is small (a search that has filled much of the budget in a
            // quarter second has positions too big to hold the whole game at once), and where
            // positions are quick to expand (a search that expanded fewer than 1,000 in that
            // time would make the explorer crawl; the one-thread search may still end soon,
            // by an answer or by its memory budget).
            Err(Stop::Parallel)
                if self.search.memo_bytes() > self.budget / 8
                    || (!self.parallel_after.is_zero() && self.search.visited() - visited_before < 1_000) =>
            {
                self.dfs_again(&root)
            }
            Err(Stop::Parallel) => match self.explore_parallel(&root, at_least) {
                Ok(()) => Ok(self.search.known(&root).expect("the whole game is solved")),
                // The whole game does not fit the budget at once; the depth-first search on
                // one thread can still finish by forgetting positions.
                Err(GameError::OutOfMemory(_)) => {
                    self.search.progress().note(&format!(
                        "the search on {} threads keeps every position in memory at once, and the game outgrew the \
                         memory budget (--max-memory); going on with the one-thread search, which forgets positions to \
                         stay inside it (the count of positions starts again)",
                        self.threads
                    ));
                    self.dfs_again(&root)
                }
                // It could not finish before the time limit (a remoteness search's share of
                // time, or the command's): the one-thread search goes on, holding less.
                Err(GameError::TimeLimit(why)) if !self.search.progress().expired() => {
                    self.search.progress().note(&format!(
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
        match self.search.solve(root.clone(), None) {
            Ok(answer) => Ok(answer),
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Loop | Stop::Parallel) => self.solve_loopy(root),
        }
    }

    /// A loopy game: retrograde analysis of everything reachable from `root` (Grundy values
    /// are not defined there).
    fn solve_loopy(&mut self, root: &G::Pos) -> GameResult<(Solution, Option<u64>)> {
        self.search.solve_whole(root, self.budget)
    }

    /// Explore everything reachable from `root` on every thread (each with its own copy of
    /// the game), then solve it by retrograde analysis, as [`ValueSolver::solve_loopy`] does
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
            self.search.progress(),
            self.threads,
            replica,
            &mut visited,
            expand_canonical::<G>,
            Some(at_least),
        );
        // Positions expanded count even when the exploration stops (its share of time, the
        // budget): they were visited.
        self.search.count_visited(visited);
        let graph = graph?;
        let solutions = graph.retrograde();
        // As the depth-first search gives them: none at all in a loopy game.
        let (grundy, acyclic) = graph.grundy_where_defined();
        let with_grundy = self.with_grundy && acyclic;
        for ((pos, sol), g) in graph.nodes.into_positions().zip(solutions).zip(grundy) {
            self.search.complete(pos, sol, g.filter(|_| with_grundy));
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
    super::solution::check_fanout(game, pos, budget)?;
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
