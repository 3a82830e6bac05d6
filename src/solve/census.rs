//! Everything reachable from a position, solved and counted (`gamesman analyze`).
//!
//! The positions are the game's real positions (no symmetry reduction: `canonical` is not
//! used), so the counts are counts of positions a player can meet. Where a game packs its
//! positions with symmetries ([`census_up_to_symmetry`], `analyze`), the graph holds one
//! position a class under the symmetries that fix the root, weighted by the class's size,
//! and the counts are the same. The whole graph is held
//! at once and solved by retrograde analysis (which handles loopy games), or, for a puzzle,
//! by breadth-first search backwards from the solved positions. A puzzle's census follows
//! moves past its solved positions too, so that it counts the whole puzzle (every position
//! reachable from the root), even from the goal.

use super::graph::{Graph, Node};
use super::solution::Solution;
use crate::game::{Footprint, Game, GameExt, GameResult, Kind, Value};
use crate::progress::Progress;
use std::collections::BTreeMap;

/// Counts by value, in the order win, lose, tie, draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByValue(pub [u64; 4]);

impl ByValue {
    fn add_n(&mut self, v: Value, n: u64) {
        self.0[index(v)] += n;
    }

    pub fn get(&self, v: Value) -> u64 {
        self.0[index(v)]
    }
}

fn index(v: Value) -> usize {
    match v {
        Value::Win => 0,
        Value::Lose => 1,
        Value::Tie => 2,
        Value::Draw => 3,
    }
}

/// The solved graph and its figures.
pub struct Census<P> {
    pub graph: Graph<P>,
    pub solutions: Vec<Solution>,
    /// Grundy values, where they are defined (impartial, normal play, no cycles).
    pub grundy: Option<Vec<u64>>,
    pub by_value: ByValue,
    /// End positions (primitive, or no moves), by their value.
    pub ends: ByValue,
    pub by_remoteness: BTreeMap<u32, ByValue>,
    pub by_grundy: BTreeMap<u64, u64>,
    /// The win and the loss with the greatest remoteness (node indices).
    pub longest_win: Option<usize>,
    pub longest_loss: Option<usize>,
    /// Positions expanded (each once).
    pub visited: u64,
    /// Threads that expanded positions: 1 when the game cannot be copied to other threads.
    pub threads: usize,
    /// When the positions were explored up to symmetry ([`census_up_to_symmetry`]): how
    /// many positions each node stands for (the nodes are then one a class; every count
    /// above is of positions, weighted by these).
    pub weight: Option<Vec<u16>>,
    /// When `graph.nodes` was left empty (a report: [`census_up_to_symmetry`]), the
    /// positions of the nodes the report names (the root, the longest win and loss).
    pub named: Vec<(usize, P)>,
    pub memory: Memory,
}

/// The memory a census held at its peak: the program's, measured, and its arrays', counted
/// from their sizes (what `analyze` reports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// The process's resident memory as the census began (the program, the game, a script's
    /// engine), where the system tells it ([`crate::meter::resident_bytes`]), else 0.
    pub program: usize,
    /// Bytes held as the exploration ended: the graph ([`Graph::held_bytes`]), the table that
    /// told its positions apart at its peak, and the keys and class sizes of a graph
    /// explored on keys.
    pub explore: usize,
    /// Bytes held while the graph was solved: the graph, those keys and class sizes, and
    /// the solvers' arrays ([`Graph::solve_bytes`]).
    pub solve: usize,
}

impl Memory {
    /// The estimated peak: the program and the larger of the two phases.
    pub fn peak(&self) -> usize {
        self.program + self.explore.max(self.solve)
    }
}

/// What the explorer learns of one position.
fn expand<G: Game>(game: &G, pos: &G::Pos, budget: usize) -> GameResult<Node<G::Pos>> {
    super::solution::check_fanout(game, pos, budget)?;
    if let Some(v) = game.primitive(pos)? {
        // A puzzle's moves go on past a solved position: count the whole puzzle.
        return Ok(if game.kind() == Kind::Puzzle { Node::EndWith(v, game.children(pos)?) } else { Node::End(v) });
    }
    let children = game.children(pos)?;
    Ok(if children.is_empty() { Node::End(game.stalemate()) } else { Node::Inner(children) })
}

/// Explore and solve everything reachable from `root`, on one thread.
pub fn census<G: Game>(game: &G, root: &G::Pos, budget: usize, progress: &Progress) -> GameResult<Census<G::Pos>> {
    census_threaded(game, root, budget, progress, 1)
}

/// Explore and solve everything reachable from `root`, expanding positions on `threads`
/// threads where the game can be copied to them ([`GameExt::replicate`]). The positions are
/// numbered and merged in the same order whatever the number of threads, so every figure is
/// the same.
pub fn census_threaded<G: Game>(
    game: &G,
    root: &G::Pos,
    budget: usize,
    progress: &Progress,
    threads: usize,
) -> GameResult<Census<G::Pos>> {
    census_with(game, root, budget, progress, threads, false)
}

/// [`census_threaded`], up to the symmetries that fix the root where the game packs its
/// positions and its packing has symmetries ([`crate::game::packed::Packed::symmetries`]):
/// the graph's nodes are then one a class of positions (what is reachable from the root is
/// closed under the symmetries that fix it), each weighted by the class's size, and every
/// count is the same as [`census_threaded`]'s (`analyze`; not for saving, whose records are
/// every position). Fallback: [`census_threaded`] itself.
pub fn census_up_to_symmetry<G: Game>(
    game: &G,
    root: &G::Pos,
    budget: usize,
    progress: &Progress,
    threads: usize,
) -> GameResult<Census<G::Pos>> {
    census_with(game, root, budget, progress, threads, true)
}

fn census_with<G: Game>(
    game: &G,
    root: &G::Pos,
    budget: usize,
    progress: &Progress,
    threads: usize,
    symmetry: bool,
) -> GameResult<Census<G::Pos>> {
    let program = crate::meter::resident_bytes().unwrap_or(0);
    let mut visited = 0u64;
    let mut weight = None;
    let mut keys = None;
    let puzzle = game.kind() == Kind::Puzzle;
    // A game that packs its positions is explored on keys, on one thread (`puzzle.rs`): a
    // puzzle's, or a two-player game's exact keys of play.
    let packed = game.packed(root).or_else(|| {
        let play = crate::game::packed::PlayAsPacked::new(game.packed_play(root)?, root)?;
        Some(Box::new(play) as Box<dyn crate::game::packed::Packed<G::Pos> + '_>)
    });
    let replica = if threads > 1 && packed.is_none() { game.replicate() } else { None };
    let threads = if replica.is_some() { threads } else { 1 };
    let graph = match (packed, replica) {
        (Some(space), _) => {
            // A report (`symmetry`) names only a few positions: the rest stay keys.
            let pg = super::puzzle::packed_graph_up_to(
                &*space,
                root,
                puzzle,
                game.stalemate(),
                budget,
                progress,
                symmetry,
                !symmetry,
            )?;
            visited = pg.graph.len() as u64;
            weight = pg.weight;
            keys = pg.keys.map(|k| (k, space));
            pg.graph
        }
        (None, Some(r)) => {
            super::explore::parallel(game, root.clone(), budget, progress, threads, r, &mut visited, expand, None)?
        }
        (None, None) => Graph::explore(root.clone(), budget, progress, |pos| {
            visited += 1;
            expand(game, pos, budget)
        })?,
    };
    let solutions = if puzzle { puzzle_distances(&graph) } else { graph.retrograde() };
    let grundy = (game.kind() == Kind::Impartial).then(|| graph.grundy()).flatten();
    let memory = {
        let kept =
            keys.as_ref().map_or(0, |(k, _)| k.len() * 16) + weight.as_ref().map_or(0, |w: &Vec<u16>| w.len() * 2);
        let held = graph.held_bytes() + kept;
        let wins = solutions.iter().filter(|s| s.value == Value::Win).count();
        Memory {
            program,
            explore: held + graph.index_bytes,
            solve: held + graph.solve_bytes(puzzle, game.kind() == Kind::Impartial, wins),
        }
    };

    let mut by_value = ByValue::default();
    let mut ends = ByValue::default();
    // Counted by remoteness in a list first (a map entry a position costs more than the rest),
    // the map taking the rare remoteness past the list's end.
    const LISTED: usize = 1 << 16;
    let mut at_remoteness: Vec<ByValue> = Vec::new();
    let mut by_remoteness: BTreeMap<u32, ByValue> = BTreeMap::new();
    let mut by_grundy: BTreeMap<u64, u64> = BTreeMap::new();
    let (mut longest_win, mut longest_loss): (Option<usize>, Option<usize>) = (None, None);
    let remoteness = |i: usize| solutions[i].remoteness.unwrap_or(0);
    for (i, s) in solutions.iter().enumerate() {
        let n = weight.as_ref().map_or(1, |w: &Vec<u16>| u64::from(w[i]));
        by_value.add_n(s.value, n);
        if let Some(v) = graph.end[i] {
            ends.add_n(v, n);
        }
        if let Some(r) = s.remoteness {
            match r as usize {
                i if i >= LISTED => by_remoteness.entry(r).or_default().add_n(s.value, n),
                i => {
                    if i >= at_remoteness.len() {
                        at_remoteness.resize(i + 1, ByValue::default());
                    }
                    at_remoteness[i].add_n(s.value, n);
                }
            }
        }
        if let Some(g) = &grundy {
            *by_grundy.entry(g[i]).or_default() += n;
        }
        let longest = match s.value {
            Value::Win => &mut longest_win,
            Value::Lose if !puzzle => &mut longest_loss,
            _ => continue,
        };
        if longest.is_none_or(|j| remoteness(i) > remoteness(j)) {
            *longest = Some(i);
        }
    }
    by_remoteness.extend(
        at_remoteness.into_iter().enumerate().filter(|(_, b)| *b != ByValue::default()).map(|(r, b)| (r as u32, b)),
    );
    // The positions the report names, where the graph left them as keys.
    let named = match keys {
        Some((keys, space)) => {
            let mut at: Vec<usize> = [Some(0), longest_win, longest_loss].into_iter().flatten().collect();
            at.dedup();
            at.into_iter().map(|i| (i, space.unpack(keys[i]))).collect()
        }
        None => Vec::new(),
    };
    Ok(Census {
        graph,
        solutions,
        grundy,
        by_value,
        ends,
        by_remoteness,
        by_grundy,
        longest_win,
        longest_loss,
        visited,
        threads,
        weight,
        named,
        memory,
    })
}

/// A puzzle: a position is solvable (`Win`) when a solved position is reachable, with the
/// fewest moves to one as remoteness; otherwise it is `Lose` (no remoteness).
fn puzzle_distances<P>(graph: &Graph<P>) -> Vec<Solution> {
    let n = graph.len();
    let (first, parents) = graph.parents();
    let mut dist: Vec<u32> = vec![u32::MAX; n];
    let mut queue: Vec<u32> = Vec::new();
    for (i, e) in graph.end.iter().enumerate() {
        if *e == Some(Value::Win) {
            dist[i] = 0;
            queue.push(i as u32);
        }
    }
    // Breadth-first: the queue is a list read from the front.
    let mut at = 0;
    while at < queue.len() {
        let c = queue[at] as usize;
        at += 1;
        let d = dist[c] + 1;
        for &p in &parents[first[c] as usize..first[c + 1] as usize] {
            if dist[p as usize] == u32::MAX && graph.end[p as usize].is_none() {
                dist[p as usize] = d;
                queue.push(p);
            }
        }
    }
    dist.into_iter()
        .map(|d| match d {
            u32::MAX => Solution { value: Value::Lose, remoteness: None },
            r => Solution { value: Value::Win, remoteness: Some(r) },
        })
        .collect()
}

/// The most rows the report's count by remoteness has: past it, remotenesses are counted in
/// ranges of equal width. (A game 10^6 moves deep had a row for each, and its report alone
/// took more than a gigabyte.)
pub const MAX_REMOTENESS_ROWS: usize = 1000;

/// The counts by remoteness as rows (first remoteness, last remoteness, counts): one row a
/// remoteness, or ranges when there are more than [`MAX_REMOTENESS_ROWS`].
fn remoteness_rows(by: &BTreeMap<u32, ByValue>) -> Vec<(u32, u32, ByValue)> {
    let last = by.keys().next_back().copied().unwrap_or(0) as u64;
    if by.len() <= MAX_REMOTENESS_ROWS {
        return by.iter().map(|(&r, b)| (r, r, *b)).collect();
    }
    let width = (last + 1).div_ceil(MAX_REMOTENESS_ROWS as u64);
    let mut rows: Vec<(u32, u32, ByValue)> = Vec::new();
    for (&r, b) in by {
        let from = (r as u64 / width * width) as u32;
        let to = (from as u64 + width - 1).min(last) as u32;
        match rows.last_mut() {
            Some(row) if row.0 == from => (0..4).for_each(|i| row.2.0[i] += b.0[i]),
            _ => rows.push((from, to, *b)),
        }
    }
    rows
}

const VALUES: [Value; 4] = [Value::Win, Value::Lose, Value::Tie, Value::Draw];

/// Counts by value as a JSON object, each value under its name for the kind of game (a
/// puzzle's are "solvable" and "unsolvable").
fn values_json(kind: Kind, b: &ByValue) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for v in VALUES {
        if kind != Kind::Puzzle || matches!(v, Value::Win | Value::Lose) {
            m.insert(v.name_in(kind).into(), b.get(v).into());
        }
    }
    serde_json::Value::Object(m)
}

impl<P: Clone + Footprint> Census<P> {
    /// The position of node `i`: from the graph, or from the positions a report names
    /// (`None` for another node of a graph without its positions).
    pub fn node(&self, i: usize) -> Option<std::borrow::Cow<'_, P>> {
        self.graph
            .nodes
            .get(i)
            .or_else(|| self.named.iter().find(|(j, _)| *j == i).map(|(_, p)| std::borrow::Cow::Borrowed(p)))
    }
}

impl<P: Clone + Footprint> Census<P> {
    /// The positions reachable (each node weighted by its class's size, when up to symmetry).
    pub fn positions(&self) -> u64 {
        match &self.weight {
            None => self.graph.len() as u64,
            Some(w) => w.iter().map(|&n| u64::from(n)).sum(),
        }
    }

    /// The moves between them (each node's weighted likewise: its class's members have as
    /// many moves each).
    pub fn moves(&self) -> u64 {
        match &self.weight {
            None => self.graph.edges() as u64,
            Some(w) => w.iter().enumerate().map(|(i, &n)| u64::from(n) * self.graph.children_of(i).len() as u64).sum(),
        }
    }

    /// The report `analyze` prints and a database keeps beside its positions: the root's
    /// value, and every count. `format` writes a position of the game.
    pub fn report<G: Game<Pos = P>>(&self, game: &G, engine: &str, seconds: f64) -> GameResult<serde_json::Value> {
        use serde_json::json;
        let kind = game.kind();
        let root = self.solutions[0];
        let position = |i: Option<usize>| -> GameResult<serde_json::Value> {
            Ok(match i {
                None => serde_json::Value::Null,
                Some(i) => json!({
                    "position": game.format(&self.node(i).expect("the report's positions are kept"))?,
                    "remoteness": self.solutions[i].remoteness,
                }),
            })
        };
        let mut report = json!({
            "game": game.info().name,
            "kind": kind.as_str(),
            "engine": engine,
            "position": game.format(&self.node(0).expect("the root is kept"))?,
            "value": root.value.name_in(kind),
            "remoteness": root.remoteness,
            "grundy": self.grundy.as_ref().map(|g| g[0]),
            "positions": self.positions(),
            "moves": self.moves(),
            "by_value": values_json(kind, &self.by_value),
            "primitive": values_json(kind, &self.ends),
            "by_remoteness": remoteness_rows(&self.by_remoteness).into_iter().map(|(from, to, b)| {
                let mut o = values_json(kind, &b);
                o["remoteness"] = from.into();
                if to != from {
                    o["remoteness_to"] = to.into();
                }
                o
            }).collect::<Vec<_>>(),
            "by_grundy": self.grundy.as_ref().map(|_| self.by_grundy.iter().map(|(g, n)| json!({"grundy": g, "positions": n})).collect::<Vec<_>>()),
            "longest_win": position(self.longest_win)?,
            "longest_loss": position(self.longest_loss)?,
            "positions_visited": self.visited,
            "memory_bytes": self.memory.peak(),
            "memory": {
                "program_bytes": self.memory.program,
                "explore_bytes": self.memory.explore,
                "solve_bytes": self.memory.solve,
            },
            "seconds": seconds,
        });
        if self.weight.is_some() {
            report["classes"] = self.graph.len().into();
        }
        Ok(report)
    }
}
