//! The whole graph of positions reachable from a root, and the analyses that need all of it
//! at once: retrograde analysis (loopy games, draws) and Grundy values by reverse
//! topological order.
//!
//! Used by the value solver when a game turns out to be loopy (on canonical positions) and
//! by `analyze` (on real positions, to count them).

use super::Solution;
use crate::game::{Footprint, GameError, GameResult, Value};
use crate::progress::Progress;
use hashbrown::{DefaultHashBuilder, HashTable};
use std::collections::VecDeque;
use std::hash::BuildHasher;
use std::hash::Hash;

/// What a position is, as the explorer sees it.
pub enum Node<P> {
    /// The game is over here (a primitive position, or no moves): its value for the
    /// player to move.
    End(Value),
    /// The positions one move away, one per move (repeats allowed).
    Inner(Vec<P>),
    /// An end position whose moves are followed all the same (a puzzle's solved position:
    /// the census counts the whole puzzle, not only the way to its goal).
    EndWith(Value, Vec<P>),
}

/// Every position reachable from a root (the root is node 0), with its edges.
pub struct Graph<P> {
    pub nodes: Vec<P>,
    /// The value of each end position, `None` for the others.
    pub end: Vec<Option<Value>>,
    /// Children of node i: `children[first[i]..first[i + 1]]`.
    first: Vec<u32>,
    children: Vec<u32>,
    /// Bytes the exploration held at its peak (an estimate).
    pub bytes: usize,
}

impl<P: Clone + Eq + Hash + Footprint> Graph<P> {
    /// Breadth-first exploration from `root`; fails when the graph outgrows `budget` bytes.
    pub fn explore(
        root: P,
        budget: usize,
        progress: &Progress,
        mut expand: impl FnMut(&P) -> GameResult<Node<P>>,
    ) -> GameResult<Graph<P>> {
        let mut b = Graph::builder(root);
        while b.next() < b.len() {
            let node = expand(b.node(b.next()))?;
            b.add(node, budget, progress)?;
        }
        Ok(b.finish())
    }

    /// A graph built one expanded node at a time, in the order the nodes were found.
    pub fn builder(root: P) -> Builder<P> {
        let hasher = DefaultHashBuilder::default();
        let mut index: HashTable<u32> = HashTable::new();
        index.insert_unique(hasher.hash_one(&root), 0, |_| 0);
        let g = Graph { nodes: vec![root], end: Vec::new(), first: vec![0], children: Vec::new(), bytes: 0 };
        Builder { g, index, hasher }
    }
}

/// A graph under construction (see [`Graph::builder`]).
pub struct Builder<P> {
    g: Graph<P>,
    /// The index of each node, found by the node's hash and compared with `g.nodes` (the
    /// table holds 4 bytes a node, not a copy of it: a smaller table that stays in cache).
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl<P: Clone + Eq + Hash + Footprint> Builder<P> {
    /// The next node to expand.
    pub fn next(&self) -> usize {
        self.g.end.len()
    }

    /// Nodes found so far.
    pub fn len(&self) -> usize {
        self.g.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.g.nodes.is_empty()
    }

    pub fn node(&self, i: usize) -> &P {
        &self.g.nodes[i]
    }

    /// What the next node expands to.
    pub fn add(&mut self, node: Node<P>, budget: usize, progress: &Progress) -> GameResult<()> {
        let g = &mut self.g;
        let (end, kids) = match node {
            Node::End(v) => (Some(v), Vec::new()),
            Node::Inner(kids) => (None, kids),
            Node::EndWith(v, kids) => (Some(v), kids),
        };
        g.end.push(end);
        for c in kids {
            let hash = self.hasher.hash_one(&c);
            let id = match self.index.find(hash, |&id| g.nodes[id as usize] == c) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(g.nodes.len())
                        .map_err(|_| GameError::OutOfMemory("more than 2^32 reachable positions".into()))?;
                    g.bytes += 3 * std::mem::size_of::<P>() + 2 * c.heap_bytes() + 48;
                    let (nodes, hasher) = (&g.nodes, &self.hasher);
                    self.index.insert_unique(hash, id, |&i| hasher.hash_one(&nodes[i as usize]));
                    g.nodes.push(c);
                    id
                }
            };
            g.children.push(id);
        }
        g.first.push(g.children.len() as u32);
        let bytes = g.bytes + g.children.len() * 12;
        if bytes > budget {
            return Err(GameError::OutOfMemory(format!(
                "the reachable positions need more than the memory budget after {} of them (raise --max-memory)",
                g.nodes.len()
            )));
        }
        progress.tick(g.end.len() as u64 - 1, bytes)
    }

    pub fn finish(self) -> Graph<P> {
        let mut g = self.g;
        g.bytes += g.children.len() * 12;
        g
    }
}

impl<P> Graph<P> {
    /// A graph built elsewhere (the packed search of `puzzle.rs`): node 0 the root, the
    /// children of node i at `children[first[i]..first[i + 1]]`; `nodes` may be empty (the
    /// positions left out).
    pub fn from_parts(
        nodes: Vec<P>,
        end: Vec<Option<Value>>,
        first: Vec<u32>,
        children: Vec<u32>,
        bytes: usize,
    ) -> Self {
        debug_assert!((nodes.is_empty() || nodes.len() == end.len()) && first.len() == end.len() + 1);
        Graph { nodes, end, first, children, bytes }
    }

    /// The number of nodes (whether or not `nodes` holds their positions: a graph built
    /// for a report alone may leave them out, see `Census::node`).
    pub fn len(&self) -> usize {
        self.end.len()
    }

    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }

    pub fn edges(&self) -> usize {
        self.children.len()
    }

    pub fn children_of(&self, i: usize) -> &[u32] {
        &self.children[self.first[i] as usize..self.first[i + 1] as usize]
    }

    /// Parents in compressed form: `(first, parents)`, one entry per edge.
    pub fn parents(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.len();
        let mut first = vec![0u32; n + 1];
        for &c in &self.children {
            first[c as usize + 1] += 1;
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut parents = vec![0u32; self.children.len()];
        for p in 0..n {
            for &c in self.children_of(p) {
                parents[fill[c as usize] as usize] = p as u32;
                fill[c as usize] += 1;
            }
        }
        (first, parents)
    }

    /// Value and remoteness of every node by retrograde analysis, GAMESMAN's way (see
    /// [`super::value`]): wins and losses first, in order of remoteness; then ties; the rest
    /// are draws.
    pub fn retrograde(&self) -> Vec<Solution> {
        let n = self.len();
        let (first, parents) = self.parents();
        let parents_of = |c: usize| &parents[first[c] as usize..first[c + 1] as usize];
        let mut remaining: Vec<u32> = (0..n).map(|i| self.children_of(i).len() as u32).collect();
        let mut result: Vec<Option<Solution>> = vec![None; n];
        let mut queue: VecDeque<u32> = VecDeque::new();
        for (i, e) in self.end.iter().enumerate() {
            if let Some(v) = *e {
                result[i] = Some(Solution::primitive(v));
                if v != Value::Tie {
                    queue.push_back(i as u32);
                }
            }
        }
        while let Some(c) = queue.pop_front() {
            let cs = result[c as usize].expect("queued positions are solved");
            let r = cs.remoteness.unwrap_or(0) + 1;
            for &p in parents_of(c as usize) {
                let p = p as usize;
                if result[p].is_some() {
                    continue;
                }
                if cs.value == Value::Lose {
                    result[p] = Some(Solution { value: Value::Win, remoteness: Some(r) });
                    queue.push_back(p as u32);
                } else {
                    remaining[p] -= 1;
                    if remaining[p] == 0 {
                        result[p] = Some(Solution { value: Value::Lose, remoteness: Some(r) });
                        queue.push_back(p as u32);
                    }
                }
            }
        }
        // What is left can force neither a win nor a loss; a tying child makes a tie.
        for (i, e) in self.end.iter().enumerate() {
            if *e == Some(Value::Tie) {
                queue.push_back(i as u32);
            }
        }
        while let Some(c) = queue.pop_front() {
            let r = result[c as usize].and_then(|s| s.remoteness).unwrap_or(0) + 1;
            for &p in parents_of(c as usize) {
                let p = p as usize;
                if result[p].is_none() {
                    result[p] = Some(Solution { value: Value::Tie, remoteness: Some(r) });
                    queue.push_back(p as u32);
                }
            }
        }
        result.into_iter().map(|s| s.unwrap_or(Solution { value: Value::Draw, remoteness: None })).collect()
    }

    /// The Grundy value of every node: the mex of its children's, 0 at an end. `None` when
    /// it is undefined: an end that is not a loss for the player to move (misère play, a
    /// primitive win), or a cycle.
    pub fn grundy(&self) -> Option<Vec<u64>> {
        self.grundy_where_defined().0.into_iter().collect()
    }

    /// The Grundy value of each node where it is defined: at an end that is a loss for the
    /// player to move (0), and at a node whose children all have one (their mex). Undefined
    /// below a primitive win, and on and above a cycle. Also: whether the graph is acyclic.
    pub fn grundy_where_defined(&self) -> (Vec<Option<u64>>, bool) {
        let n = self.len();
        let (first, parents) = self.parents();
        let mut remaining: Vec<u32> = (0..n).map(|i| self.children_of(i).len() as u32).collect();
        let mut grundy: Vec<Option<u64>> = vec![None; n];
        // Nodes whose value is settled (defined or not), children first.
        let mut ready: Vec<u32> = (0..n as u32).filter(|&i| remaining[i as usize] == 0).collect();
        let mut seen = Vec::new();
        let mut settled = 0;
        while let Some(i) = ready.pop() {
            settled += 1;
            let i = i as usize;
            // Children are settled first: `None` among them is undefined, not unknown.
            if self.end[i].is_none_or(|v| v == Value::Lose) {
                seen.clear();
                if self.children_of(i).iter().all(|&c| grundy[c as usize].map(|g| seen.push(g)).is_some()) {
                    grundy[i] = Some(super::grundy::mex(&seen));
                }
            }
            for &p in &parents[first[i] as usize..first[i + 1] as usize] {
                remaining[p as usize] -= 1;
                if remaining[p as usize] == 0 {
                    ready.push(p);
                }
            }
        }
        (grundy, settled == n)
    }
}
