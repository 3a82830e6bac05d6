//! One-player puzzles: the fewest moves to a solved position, and one such solution.
//!
//! Breadth-first search from the position. A position is solved when the game's primitive
//! value is `win`; a primitive `lose` (or a position with no moves) is a dead end. Positions
//! are de-duplicated under their canonical form, but the solution is made of the real moves.
//!
//! A game that packs its positions ([`GameExt::packed`], `src/game/packed.rs`) is searched on
//! keys instead: children and ends computed natively on `u128` keys, and the positions seen
//! kept in a flat array indexed by position where the game numbers them ([`Packed::size`])
//! and the array fits a quarter of the budget, else in a hash table of keys. The same search
//! builds the whole graph for `analyze` ([`packed_graph`]). The fallback, for every other
//! game, is the search over the game's own positions (a hash table of positions).

use super::graph::Graph;
use crate::game::packed::Packed;
use crate::game::{Footprint, Game, GameError, GameExt, GameResult, Value};
use crate::progress::Progress;
use hashbrown::{HashMap, HashSet};
use std::collections::VecDeque;

/// The positions a packed search has seen, and the number it gave each.
trait Seen {
    /// Where `key` is looked up (its index, or the key itself).
    fn locate(&self, space: &dyn Packed<impl Sized>, key: u128) -> u128;
    /// Read the place of `at` ahead of [`Seen::number`], so that the reads of a position's
    /// children overlap (each is a likely cache miss).
    fn touch(&self, at: u128);
    /// The number of the position at `at`, and whether it is new (then numbered `next`).
    fn number(&mut self, at: u128, next: u32) -> (u32, bool);
    /// The bytes the table holds beyond what it holds from the start, and the bytes `more`
    /// new positions may allocate in passing (a hash table that grows holds its old and new
    /// tables at once).
    fn heap(&self, more: usize) -> (usize, usize);
    /// The most bytes the table held (see [`Graph::index_peak`]).
    fn peak(&self) -> usize;
}

/// The bytes a vector of `len` entries in `cap` holds, and those `more` pushes may allocate
/// in passing (a vector that grows holds its old and new buffers at once).
fn vec_heap<T>(len: usize, cap: usize, more: usize) -> (usize, usize) {
    let size = std::mem::size_of::<T>();
    (cap * size, if len + more > cap { (2 * cap).max(len + more).max(4) * size } else { 0 })
}

/// The bytes held by the vectors of a search, and the most that one more entry in each
/// allocates in passing (summed: a conservative bound on the peak).
fn held(parts: &[(usize, usize)]) -> usize {
    parts.iter().map(|&(now, passing)| now + passing).sum()
}

/// A flat array indexed by position: `u32::MAX` for a position not seen.
struct ByIndex(Vec<u32>);

impl Seen for ByIndex {
    #[inline]
    fn locate(&self, space: &dyn Packed<impl Sized>, key: u128) -> u128 {
        u128::from(space.index(key))
    }
    #[inline]
    fn touch(&self, at: u128) {
        // A prefetch, where the machine has one: unlike a load, it does not hold up the
        // instructions after it until the memory answers.
        #[cfg(target_arch = "x86_64")]
        if let Some(slot) = self.0.get(at as usize) {
            // SAFETY: a prefetch reads nothing the program sees, and the address is in bounds.
            #[allow(unused_unsafe)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    (slot as *const u32).cast::<i8>(),
                );
            }
        }
    }
    #[inline]
    fn number(&mut self, at: u128, next: u32) -> (u32, bool) {
        let slot = &mut self.0[at as usize];
        if *slot == u32::MAX {
            *slot = next;
            (next, true)
        } else {
            (*slot, false)
        }
    }
    fn heap(&self, _: usize) -> (usize, usize) {
        (0, 0)
    }
    fn peak(&self) -> usize {
        self.0.len() * 4
    }
}

/// A hash table of keys (the game does not number its positions, or the array is too big).
struct ByKey(HashMap<u128, u32>);

impl Seen for ByKey {
    #[inline]
    fn locate(&self, _: &dyn Packed<impl Sized>, key: u128) -> u128 {
        key
    }
    #[inline]
    fn touch(&self, _: u128) {}
    #[inline]
    fn number(&mut self, key: u128, next: u32) -> (u32, bool) {
        match self.0.entry(key) {
            hashbrown::hash_map::Entry::Occupied(e) => (*e.get(), false),
            hashbrown::hash_map::Entry::Vacant(e) => {
                e.insert(next);
                (next, true)
            }
        }
    }
    fn heap(&self, more: usize) -> (usize, usize) {
        let now = self.0.allocation_size();
        (now, if self.0.len() + more > self.0.capacity() { 2 * now.max(64) } else { 0 })
    }
    fn peak(&self) -> usize {
        Graph::<()>::index_peak(self.0.allocation_size())
    }
}

/// The flat array when the positions are numbered and their array takes at most a quarter of
/// the budget (4 bytes a position) and `most` bytes, else a hash table of keys.
fn seen_array<P>(space: &dyn Packed<P>, budget: usize, most: u64) -> Option<ByIndex> {
    let size = space.size()?;
    let bytes = size.checked_mul(4)?;
    (bytes <= budget as u64 / 4 && bytes <= most && size < u32::MAX as u64)
        .then(|| ByIndex(vec![u32::MAX; size as usize]))
}

/// The most bytes the array of a puzzle search (`solve`) may take: a search that stops at
/// its goal may visit few positions, and should not fill a large array for them.
const SEARCH_ARRAY: u64 = 16 << 20;

fn too_many() -> GameError {
    GameError::OutOfMemory("more than 2^32 reachable positions".into())
}

fn over_budget(n: usize) -> GameError {
    GameError::OutOfMemory(format!(
        "the reachable positions need more than the memory budget after {n} of them (raise --max-memory)"
    ))
}

/// Everything reachable from `root` as a graph, explored on keys (see the module's
/// documentation): node 0 the root, nodes numbered in the order a breadth-first search finds
/// them, each node's children one a move, and each end's value (a primitive position, or
/// `stalemate` where there is no move). A puzzle's solved positions have their moves followed
/// (the census counts the whole puzzle); a two-player game's ends do not. The same positions
/// as [`Graph::explore`] over the game's own, numbered in the order the space lists children.
pub fn packed_graph<P>(
    space: &dyn Packed<P>,
    root: &P,
    puzzle: bool,
    stalemate: Value,
    budget: usize,
    progress: &Progress,
) -> GameResult<Graph<P>> {
    Ok(packed_graph_up_to(space, root, puzzle, stalemate, budget, progress, false, true)?.graph)
}

/// A graph explored on keys, maybe up to symmetry, maybe without its positions.
pub struct PackedGraph<P> {
    pub graph: Graph<P>,
    /// Up to symmetry: how many positions each node stands for.
    pub weight: Option<Vec<u16>>,
    /// When the positions were not unpacked (`graph.nodes` is then empty): each node's key,
    /// for [`Packed::unpack`].
    pub keys: Option<Vec<u128>>,
}

/// The symmetries of `space` but the identity that map `root` onto itself (the root's
/// stabiliser: what is reachable from the root is closed under them).
fn fixing<P>(space: &dyn Packed<P>, root: u128) -> Vec<usize> {
    (1..space.symmetries()).filter(|&t| space.image(root, t) == root).collect()
}

/// The least of the images of `key` under `syms` and the identity.
#[inline]
fn least<P>(space: &dyn Packed<P>, syms: &[usize], key: u128) -> u128 {
    syms.iter().fold(key, |m, &t| m.min(space.image(key, t)))
}

/// [`packed_graph`], and with `symmetry` up to the symmetries that fix the root
/// ([`Packed::symmetries`]): then each node is the least key of its class (a position
/// reachable from the root, as every member of its class is) and its children are classes,
/// and `weight` says how many positions each node stands for (the class's size), so that
/// counts weighted by it are the counts of [`packed_graph`] (`None` when no symmetry but the
/// identity fixes the root: the graph is then [`packed_graph`]'s). Without `nodes`, the
/// positions are left as keys (a report needs only the few it names: unpacking every one
/// costs more memory than the rest of the graph).
#[allow(clippy::too_many_arguments)]
pub fn packed_graph_up_to<P>(
    space: &dyn Packed<P>,
    root: &P,
    puzzle: bool,
    stalemate: Value,
    budget: usize,
    progress: &Progress,
    symmetry: bool,
    nodes: bool,
) -> GameResult<PackedGraph<P>> {
    let syms = if symmetry { fixing(space, space.pack(root)) } else { Vec::new() };
    let how = (puzzle, stalemate, budget, nodes);
    match seen_array(space, budget, u64::MAX) {
        Some(ids) => {
            let start = ids.0.len() * 4;
            explore_keys(space, root, how, progress, ids, start, &syms)
        }
        None => explore_keys(space, root, how, progress, ByKey(HashMap::new()), 0, &syms),
    }
}

/// `how`: whether a puzzle, the stalemate's value, the budget, whether to unpack the nodes.
fn explore_keys<P, S: Seen>(
    space: &dyn Packed<P>,
    root: &P,
    (puzzle, stalemate, budget, unpack): (bool, Value, usize, bool),
    progress: &Progress,
    mut seen: S,
    start_bytes: usize,
    syms: &[usize],
) -> GameResult<PackedGraph<P>> {
    let mut keys: Vec<u128> = vec![space.pack(root)];
    seen.number(seen.locate(space, keys[0]), 0);
    let mut end: Vec<Option<Value>> = Vec::new();
    let mut first: Vec<u32> = vec![0];
    let mut children: Vec<u32> = Vec::new();
    let mut out: Vec<u128> = Vec::new();
    // What the graph holds, by the capacities of its vectors and table, with what `more`
    // children may allocate in passing, and what the end adds a node (its weight, and its
    // position when unpacked).
    let at_end = if syms.is_empty() { 0 } else { 2 } + if unpack { std::mem::size_of::<P>() } else { 0 };
    let bytes = |seen: &S, keys: &Vec<u128>, end: &Vec<Option<Value>>, first: &Vec<u32>, children: &Vec<u32>, more| {
        start_bytes
            + keys.len() * at_end
            + held(&[
                seen.heap(more),
                vec_heap::<u128>(keys.len(), keys.capacity(), more),
                vec_heap::<Option<Value>>(end.len(), end.capacity(), 1),
                vec_heap::<u32>(first.len(), first.capacity(), 1),
                vec_heap::<u32>(children.len(), children.capacity(), more),
            ])
    };
    // Nodes are expanded a block at a time: first every child of the block, its place in the
    // table looked up ahead (prefetched), then the children numbered in order, so that the
    // table's cache misses overlap. The block holds nodes found before it began, so the
    // numbering is the same as one node at a time.
    const BLOCK: usize = 256;
    let (mut kids, mut places, mut spans, mut ends) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut next = 0usize;
    while next < keys.len() {
        let stop = keys.len().min(next + BLOCK);
        kids.clear();
        places.clear();
        spans.clear();
        ends.clear();
        for &key in &keys[next..stop] {
            out.clear();
            space.children(key, &mut out);
            let e = match space.primitive(key) {
                Some(v) => {
                    if !puzzle {
                        out.clear();
                    }
                    Some(v)
                }
                None if out.is_empty() => Some(stalemate),
                None => None,
            };
            if !syms.is_empty() {
                for c in out.iter_mut() {
                    *c = least(space, syms, *c);
                }
            }
            for &c in &out {
                let l = seen.locate(space, c);
                seen.touch(l);
                places.push(l);
            }
            kids.extend_from_slice(&out);
            spans.push(kids.len());
            ends.push(e);
        }
        let mut from = 0;
        for (&e, &to) in ends.iter().zip(&spans) {
            let b = bytes(&seen, &keys, &end, &first, &children, to - from);
            if b > budget {
                return Err(over_budget(keys.len()));
            }
            end.push(e);
            for (&c, &l) in kids[from..to].iter().zip(&places[from..to]) {
                let n = u32::try_from(keys.len()).map_err(|_| too_many())?;
                let (id, new) = seen.number(l, n);
                if new {
                    keys.push(c);
                }
                children.push(id);
            }
            from = to;
            first.push(u32::try_from(children.len()).map_err(|_| too_many())?);
            progress.tick(end.len() as u64 - 1, b)?;
        }
        next = stop;
    }
    let b = bytes(&seen, &keys, &end, &first, &children, 0);
    let index_bytes = seen.peak();
    drop(seen);
    // A class's size: the symmetries (the identity too) over those that fix its member.
    let weights = (!syms.is_empty()).then(|| {
        let group = syms.len() + 1;
        keys.iter().map(|&k| (group / (1 + syms.iter().filter(|&&t| space.image(k, t) == k).count())) as u16).collect()
    });
    if !unpack {
        return Ok(PackedGraph {
            graph: Graph::from_parts(Vec::new(), end, first, children, b, index_bytes),
            weight: weights,
            keys: Some(keys),
        });
    }
    let nodes: Vec<P> = keys.into_iter().map(|k| space.unpack(k)).collect();
    Ok(PackedGraph {
        graph: Graph::from_parts(nodes, end, first, children, b, index_bytes),
        weight: weights,
        keys: None,
    })
}

/// [`solve_puzzle`] on keys: a breadth-first search from `start` that stops at the first
/// solved position, then the moves of the path found, each the move of the game whose
/// position is the next on the path.
fn solve_packed<G: Game>(
    game: &G,
    space: &dyn Packed<G::Pos>,
    start: &G::Pos,
    budget: usize,
    progress: &Progress,
) -> GameResult<PuzzleSolution<G::Pos, G::Move>> {
    match seen_array(space, budget, SEARCH_ARRAY) {
        Some(ids) => {
            let start_bytes = ids.0.len() * 4;
            search_keys(game, space, start, budget, progress, ids, start_bytes)
        }
        None => search_keys(game, space, start, budget, progress, ByKey(HashMap::new()), 0),
    }
}

fn search_keys<G: Game, S: Seen>(
    game: &G,
    space: &dyn Packed<G::Pos>,
    start: &G::Pos,
    budget: usize,
    progress: &Progress,
    mut seen: S,
    start_bytes: usize,
) -> GameResult<PuzzleSolution<G::Pos, G::Move>> {
    // Reached positions: their keys and the number of the position each was reached from.
    let mut keys: Vec<u128> = vec![space.pack(start)];
    let mut parent: Vec<u32> = vec![u32::MAX];
    let mut queue: VecDeque<u32> = VecDeque::from([0]);
    let mut out: Vec<u128> = Vec::new();
    // Every symmetry the rules keep maps the solved positions onto solved positions, so a
    // position and its images are as far from a solution: the search looks each position up
    // by the least key of its class, but keeps the key itself (the path is of real moves).
    let syms: Vec<usize> = (1..space.symmetries()).collect();
    seen.number(seen.locate(space, least(space, &syms, keys[0])), 0);
    while let Some(i) = queue.pop_front() {
        out.clear();
        space.children(keys[i as usize], &mut out);
        for &c in &out {
            let n = u32::try_from(keys.len()).map_err(|_| too_many())?;
            // What the tables hold, counted by their capacities, with what one more
            // position may allocate in passing: the peak, not the average.
            let bytes = start_bytes
                + held(&[
                    seen.heap(1),
                    vec_heap::<u128>(keys.len(), keys.capacity(), 1),
                    vec_heap::<u32>(parent.len(), parent.capacity(), 1),
                    vec_heap::<u32>(queue.len(), queue.capacity(), 1),
                ]);
            if bytes > budget {
                return Err(GameError::OutOfMemory(format!(
                    "the puzzle search reached {} positions without a solution and needs more than \
                     the memory budget (raise --max-memory)",
                    keys.len()
                )));
            }
            if !seen.number(seen.locate(space, least(space, &syms, c)), n).1 {
                continue;
            }
            keys.push(c);
            parent.push(i);
            progress.tick(keys.len() as u64, bytes)?;
            match space.primitive(c) {
                Some(Value::Win) => {
                    let visited = keys.len() as u64;
                    let mut chain = vec![n];
                    while let Some(&at) = chain.last()
                        && at != 0
                    {
                        chain.push(parent[at as usize]);
                    }
                    chain.reverse();
                    let mut path = Vec::with_capacity(chain.len() - 1);
                    let mut at = start.clone();
                    for &next in &chain[1..] {
                        let want = space.unpack(keys[next as usize]);
                        let mut step = None;
                        for mv in game.moves(&at)? {
                            if game.play(&at, &mv)? == want {
                                step = Some(mv);
                                break;
                            }
                        }
                        let mv = step.ok_or_else(|| {
                            GameError::Definition(
                                "internal error: the packed puzzle search found a step that no move makes".into(),
                            )
                        })?;
                        path.push((mv, want.clone()));
                        at = want;
                    }
                    return Ok(PuzzleSolution { path: Some(path), visited });
                }
                Some(_) => {} // a dead end
                None => queue.push_back(n),
            }
        }
    }
    Ok(PuzzleSolution { path: None, visited: keys.len() as u64 })
}

pub struct PuzzleSolution<P, M> {
    /// `Some(moves)` when solvable: each move with the position it leads to.
    pub path: Option<Vec<(M, P)>>,
    pub visited: u64,
}

pub fn solve_puzzle<G: Game>(
    game: &G,
    start: &G::Pos,
    budget: usize,
    progress: &Progress,
) -> GameResult<PuzzleSolution<G::Pos, G::Move>> {
    match game.primitive(start)? {
        Some(Value::Win) => return Ok(PuzzleSolution { path: Some(Vec::new()), visited: 1 }),
        Some(_) => return Ok(PuzzleSolution { path: None, visited: 1 }),
        None => {}
    }
    if let Some(space) = game.packed(start) {
        return solve_packed(game, &*space, start, budget, progress);
    }
    // Arena of reached positions: (position, parent, move from the parent).
    let mut arena: Vec<(G::Pos, u32, Option<G::Move>)> = vec![(start.clone(), u32::MAX, None)];
    let mut seen: HashSet<G::Pos> = HashSet::new();
    seen.insert(game.canonical(start)?);
    let mut queue: VecDeque<u32> = VecDeque::from([0]);
    // The positions' own heap bytes (each kept twice: in the arena and as a key).
    let mut heap = 0usize;
    while let Some(i) = queue.pop_front() {
        let pos = arena[i as usize].0.clone();
        for mv in game.moves(&pos)? {
            let child = game.play(&pos, &mv)?;
            let key = game.canonical(&child)?;
            if seen.contains(&key) {
                continue;
            }
            heap += child.heap_bytes() + key.heap_bytes();
            // The tables by their capacities, with what one more position may allocate in
            // passing (see `search_keys`).
            let table = seen.allocation_size();
            let bytes = heap
                + held(&[
                    (table, if seen.len() == seen.capacity() { 2 * table.max(64) } else { 0 }),
                    vec_heap::<(G::Pos, u32, Option<G::Move>)>(arena.len(), arena.capacity(), 1),
                    vec_heap::<u32>(queue.len(), queue.capacity(), 1),
                ]);
            if bytes > budget {
                return Err(GameError::OutOfMemory(format!(
                    "the puzzle search reached {} positions without a solution and needs more than \
                     the memory budget (raise --max-memory)",
                    arena.len()
                )));
            }
            seen.insert(key);
            progress.tick(arena.len() as u64, bytes)?;
            let solved = game.primitive(&child)?;
            arena.push((child, i, Some(mv)));
            let id = (arena.len() - 1) as u32;
            match solved {
                Some(Value::Win) => {
                    let visited = arena.len() as u64;
                    let mut path = Vec::new();
                    let mut at = id as usize;
                    while at != 0 {
                        let (p, parent, m) = &mut arena[at];
                        path.push((m.take().expect("every non-root position has a move"), p.clone()));
                        at = *parent as usize;
                    }
                    path.reverse();
                    return Ok(PuzzleSolution { path: Some(path), visited });
                }
                Some(_) => {} // a dead end
                None => queue.push_back(id),
            }
        }
    }
    Ok(PuzzleSolution { path: None, visited: arena.len() as u64 })
}
