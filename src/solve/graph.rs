//! The whole graph of positions reachable from a root, and the analyses that need all of it
//! at once: retrograde analysis (loopy games, draws) and Grundy values by reverse
//! topological order.
//!
//! Used by the value solver when a game turns out to be loopy (on canonical positions) and
//! by `analyze` (on real positions, to count them).

use super::memo::{len_bytes, put_len, read_len};
use super::solution::Solution;
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

/// Bytes of a block of records (see [`Nodes`]): a record never spans two.
const BLOCK: usize = 1 << 20;

/// Offsets of records are below this; a slot at or above it is a place in `plain`.
const PLAIN: u32 = 1 << 31;

/// Slots a chunk of [`Nodes::slots`] holds (a vector of chunks, not one grown by doubling:
/// no copy of all of them, and no slack past the last chunk).
const SLOTS: usize = 1 << 16;

/// The positions of a graph, in node order.
///
/// Positions that are bytes ([`Footprint::packed`], read back by [`Footprint::unpacked`]: a
/// script's packed key) are held as records of those bytes (a varint length, the bytes) in
/// blocks of 1 MiB, each found by its 4-byte offset: a 6×6 Domineering board takes 18 bytes
/// and its offset 4, where a vector of keys held 24 bytes a position and up to as much again
/// of slack from growing by doubling. Other positions (a native game's, or one too long for a
/// block, or past 2 GiB of records) are held as themselves.
pub struct Nodes<P> {
    /// Whether positions are held as records (decided by the first position).
    records: bool,
    /// With records: where each node is, a record's offset in `blocks` or (from [`PLAIN`] up)
    /// its place in `plain`; in chunks of [`SLOTS`].
    slots: Vec<Vec<u32>>,
    blocks: Vec<Vec<u8>>,
    /// The positions held as themselves (every position, without records).
    plain: Vec<P>,
    len: usize,
}

impl<P> Nodes<P> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<P: Clone + Footprint> Nodes<P> {
    /// Nodes held the way `first`'s kind is best held.
    fn like(first: &P) -> Self {
        let records = first.packed().is_some_and(|b| P::unpacked(b).is_some());
        Nodes { records, slots: Vec::new(), blocks: Vec::new(), plain: Vec::new(), len: 0 }
    }

    fn slot(&self, i: usize) -> u32 {
        self.slots[i / SLOTS][i % SLOTS]
    }

    /// The bytes of node `i` when it is a record.
    fn bytes_of(&self, i: usize) -> Option<&[u8]> {
        if !self.records {
            return None;
        }
        let s = self.slot(i);
        (s < PLAIN).then(|| {
            let off = s as usize;
            let b = &self.blocks[off / BLOCK][off % BLOCK..];
            let (len, n) = read_len(b);
            &b[n..n + len]
        })
    }

    /// Node `i`'s position (`None` past the end).
    pub fn get(&self, i: usize) -> Option<std::borrow::Cow<'_, P>> {
        use std::borrow::Cow;
        if i >= self.len {
            return None;
        }
        if !self.records {
            return Some(Cow::Borrowed(&self.plain[i]));
        }
        Some(match self.bytes_of(i) {
            Some(b) => Cow::Owned(P::unpacked(b).expect("records are of positions that unpack")),
            None => Cow::Borrowed(&self.plain[(self.slot(i) - PLAIN) as usize]),
        })
    }

    /// Every position, in node order.
    pub fn iter(&self) -> impl Iterator<Item = std::borrow::Cow<'_, P>> + '_ {
        (0..self.len).map(|i| self.get(i).expect("in range"))
    }

    /// Every position, in node order, given up.
    pub fn into_positions(self) -> impl Iterator<Item = P> {
        let Nodes { records, slots, blocks, plain, len } = self;
        let (plain, packed) = if records {
            let mut plain: Vec<Option<P>> = plain.into_iter().map(Some).collect();
            let nodes = Nodes::<P> { records, slots, blocks, plain: Vec::new(), len };
            let packed = (0..len).map(move |i| match nodes.bytes_of(i) {
                Some(b) => P::unpacked(b).expect("records are of positions that unpack"),
                None => plain[(nodes.slot(i) - PLAIN) as usize].take().expect("each plain node once"),
            });
            (None, Some(packed))
        } else {
            (Some(plain.into_iter()), None)
        };
        plain.into_iter().flatten().chain(packed.into_iter().flatten())
    }

    /// Whether node `i` is `p` (`bytes`: `p`'s bytes, when it has them).
    fn is(&self, i: usize, p: &P, bytes: Option<&[u8]>) -> bool
    where
        P: Eq,
    {
        if !self.records {
            return self.plain[i] == *p;
        }
        match (self.bytes_of(i), bytes) {
            (Some(a), Some(b)) => a == b,
            (Some(a), None) => P::unpacked(a).is_some_and(|q| q == *p),
            (None, _) => self.plain[(self.slot(i) - PLAIN) as usize] == *p,
        }
    }

    /// Add `p`; the bytes it holds (its index's bytes not counted).
    fn push(&mut self, p: P) -> usize {
        self.len += 1;
        if !self.records {
            self.plain.push(p);
            return std::mem::size_of::<P>() + self.plain[self.len - 1].heap_bytes();
        }
        if self.slots.last().is_none_or(|c| c.len() == SLOTS) {
            self.slots.push(Vec::with_capacity(SLOTS));
        }
        let rec = p.packed().map(|b| len_bytes(b.len()) + b.len()).filter(|&r| r <= BLOCK);
        if let Some(rec) = rec {
            if self.blocks.last().is_none_or(|l| l.len() + rec > BLOCK) && self.blocks.len() < (PLAIN as usize) / BLOCK
            {
                self.blocks.push(Vec::with_capacity(BLOCK));
            }
            if self.blocks.last().is_some_and(|l| l.len() + rec <= BLOCK) {
                let last = self.blocks.len() - 1;
                let block = &mut self.blocks[last];
                let off = (last * BLOCK + block.len()) as u32;
                let b = p.packed().expect("checked");
                put_len(block, b.len());
                block.extend_from_slice(b);
                self.slots.last_mut().expect("pushed").push(off);
                return rec + 4;
            }
        }
        let at = self.plain.len() as u32;
        let bytes = std::mem::size_of::<P>() + p.heap_bytes() + 4;
        self.plain.push(p);
        self.slots.last_mut().expect("pushed").push(PLAIN + at);
        bytes
    }
}

/// Every position reachable from a root (the root is node 0), with its edges.
pub struct Graph<P> {
    pub nodes: Nodes<P>,
    /// The value of each end position, `None` for the others.
    pub end: Vec<Option<Value>>,
    /// Children of node i: `children[first[i]..first[i + 1]]`.
    first: Vec<u32>,
    children: Vec<u32>,
    /// Bytes the exploration held at its peak, as counted against the memory budget (a
    /// bound: every vector and table charged as if it were growing).
    pub bytes: usize,
    /// Bytes the table that told the positions apart held at its peak (see
    /// [`Graph::index_peak`]); it is given up when the exploration ends.
    pub index_bytes: usize,
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
            let node = expand(&b.node(b.next()))?;
            b.add(node, budget, progress)?;
        }
        Ok(b.finish())
    }

    /// A graph built one expanded node at a time, in the order the nodes were found.
    pub fn builder(root: P) -> Builder<P> {
        let hasher = DefaultHashBuilder::default();
        let mut index: HashTable<u32> = HashTable::new();
        let mut nodes = Nodes::like(&root);
        index.insert_unique(hash(&hasher, nodes.records, &root), 0, |_| 0);
        let bytes = nodes.push(root);
        let g = Graph { nodes, end: Vec::new(), first: vec![0], children: Vec::new(), bytes, index_bytes: 0 };
        Builder { g, index, hasher }
    }
}

/// The hash of `p` in a graph's index: of its bytes where the graph holds records and it has
/// them (as the index's records are hashed again when it grows), else of the position.
fn hash<P: Hash + Footprint>(hasher: &DefaultHashBuilder, records: bool, p: &P) -> u64 {
    match p.packed().filter(|_| records) {
        Some(b) => hasher.hash_one(b),
        None => hasher.hash_one(p),
    }
}

/// A graph under construction (see [`Graph::builder`]).
pub struct Builder<P> {
    g: Graph<P>,
    /// The index of each node, found by the node's hash and compared with `g.nodes` (the
    /// table holds 4 bytes a node, not a copy of it: a smaller table that stays in cache).
    /// Where nodes are records, a node is hashed by its bytes.
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

    /// Node `i`'s position (a copy made from its bytes, where nodes are records).
    pub fn node(&self, i: usize) -> std::borrow::Cow<'_, P> {
        self.g.nodes.get(i).expect("a node found")
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
        let records = g.nodes.records;
        for c in kids {
            let hash = hash(&self.hasher, records, &c);
            let bytes = c.packed().filter(|_| records);
            let id = match self.index.find(hash, |&id| g.nodes.is(id as usize, &c, bytes)) {
                Some(&id) => id,
                None => {
                    let id = u32::try_from(g.nodes.len())
                        .map_err(|_| GameError::OutOfMemory("more than 2^32 reachable positions".into()))?;
                    let (nodes, hasher) = (&g.nodes, &self.hasher);
                    self.index.insert_unique(hash, id, |&i| match nodes.bytes_of(i as usize) {
                        Some(b) => hasher.hash_one(b),
                        None => self::hash(hasher, records, &*nodes.get(i as usize).expect("a node")),
                    });
                    // The node, its index (4 bytes and a control byte in a table at most
                    // 7/8 full, twice while it doubles: 12) and its entries of `first` and
                    // `end` (5 bytes, in vectors grown by doubling: 12); without records, a
                    // vector of positions grown by doubling (up to three times the positions
                    // while it grows).
                    g.bytes += if records {
                        g.nodes.push(c) + 24
                    } else {
                        let b = 3 * std::mem::size_of::<P>() + 2 * c.heap_bytes() + 48;
                        g.nodes.push(c);
                        b
                    };
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
        g.index_bytes = Graph::<P>::index_peak(self.index.allocation_size());
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
        index_bytes: usize,
    ) -> Self {
        debug_assert!((nodes.is_empty() || nodes.len() == end.len()) && first.len() == end.len() + 1);
        let len = nodes.len();
        let nodes = Nodes { records: false, slots: Vec::new(), blocks: Vec::new(), plain: nodes, len };
        Graph { nodes, end, first, children, bytes, index_bytes }
    }

    /// The most a hash table whose allocation is now `bytes` held: while it last grew, its
    /// old allocation (half the slots) and the new one at once, as hashbrown moves every
    /// entry across before it frees the old.
    pub fn index_peak(bytes: usize) -> usize {
        bytes + bytes / 2
    }

    /// The bytes the graph's arrays hold, by what is written in them (the part of a vector
    /// grown by doubling that is never written takes no memory): the positions, the ends,
    /// and the edges.
    pub fn held_bytes(&self) -> usize
    where
        P: Footprint,
    {
        let nodes = &self.nodes;
        let plain =
            nodes.plain.len() * std::mem::size_of::<P>() + nodes.plain.iter().map(Footprint::heap_bytes).sum::<usize>();
        let records =
            nodes.slots.iter().map(|c| c.len() * 4).sum::<usize>() + nodes.blocks.iter().map(Vec::len).sum::<usize>();
        plain
            + records
            + self.end.len() * std::mem::size_of::<Option<Value>>()
            + (self.first.len() + self.children.len()) * 4
    }

    /// The most bytes solving the graph adds to it at once, by the arrays the solvers of
    /// this module and of `census.rs` allocate: the parents (an offset a node, a node an
    /// edge, and the offsets' working copy while they are filled), then for a puzzle
    /// ([`Graph::parents`] and `puzzle_distances`) a distance a node, the queue of the `wins`
    /// solvable positions and the solutions made from the distances; for a game
    /// ([`Graph::retrograde`]) the children left a node, a solution a node and the queue,
    /// first of every end; then, with `grundy` ([`Graph::grundy`], the solutions kept), the
    /// parents again, the children left, an optional Grundy value a node, the nodes ready,
    /// and the values collected from the optional ones.
    pub fn solve_bytes(&self, puzzle: bool, grundy: bool, wins: usize) -> usize {
        let (n, e) = (self.len(), self.edges());
        let ends = self.end.iter().filter(|v| v.is_some()).count();
        let solution = std::mem::size_of::<Solution>();
        let offsets = 4 * (n + 1);
        let parents = offsets + 4 * e;
        let filling = parents + offsets;
        let solve = if puzzle {
            parents + 4 * n + 4 * wins + solution * n
        } else {
            parents + 4 * n + std::mem::size_of::<Option<Solution>>() * n + 4 * ends
        };
        let values = if grundy {
            let optional = std::mem::size_of::<Option<u64>>() * n;
            solution * n + (parents + 4 * n + optional + 4 * ends).max(optional + 8 * n)
        } else {
            0
        };
        filling.max(solve).max(values)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Footprint;
    use std::collections::HashMap;

    /// A position that is its bytes (as a script's packed key is).
    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    struct Key(Vec<u8>);

    impl Key {
        fn as_bytes(&self) -> &[u8] {
            &self.0
        }
    }

    impl Footprint for Key {
        fn heap_bytes(&self) -> usize {
            self.0.capacity()
        }

        fn packed(&self) -> Option<&[u8]> {
            Some(&self.0)
        }

        fn unpacked(bytes: &[u8]) -> Option<Self> {
            Some(Key(bytes.to_vec()))
        }
    }

    /// A position's bytes: `n` written out, then `n % 40` filler bytes (keys of 2 to 44
    /// bytes: some held inside the key, some on the heap).
    fn bytes(n: u64) -> Vec<u8> {
        let mut b = n.to_le_bytes()[..3].to_vec();
        b.extend(std::iter::repeat_n(7, (n % 40) as usize));
        b
    }

    fn number(b: &[u8]) -> u64 {
        u64::from(b[0]) | u64::from(b[1]) << 8 | u64::from(b[2]) << 16
    }

    /// The moves from `n` in a graph of `m` numbers with repeats, cycles and ends.
    fn moves(n: u64, m: u64) -> Vec<u64> {
        if n % 11 == 3 { Vec::new() } else { vec![(n * 3 + 1) % m, (n * 7 + 2) % m, n / 2, (n * 3 + 1) % m] }
    }

    /// The same graph by a plain breadth-first search with a `HashMap`: the numbers in the
    /// order found, and each one's children as their places in that order.
    fn reference(m: u64) -> (Vec<u64>, Vec<Vec<u32>>) {
        let mut id: HashMap<u64, u32> = HashMap::from([(5, 0)]);
        let (mut order, mut kids) = (vec![5], Vec::new());
        let mut i = 0;
        while i < order.len() {
            let mut out = Vec::new();
            for c in moves(order[i], m) {
                let next = order.len() as u32;
                let k = *id.entry(c).or_insert(next);
                if k == next {
                    order.push(c);
                }
                out.push(k);
            }
            kids.push(out);
            i += 1;
        }
        (order, kids)
    }

    #[test]
    fn positions_held_as_records_are_the_positions_found() {
        let m = 150_000;
        let (order, kids) = reference(m);
        let key = |n: u64| Key::unpacked(&bytes(n)).expect("a key from bytes");
        let g = Graph::explore(key(5), usize::MAX, &Progress::silent(), |p: &Key| {
            let n = number(p.as_bytes());
            assert_eq!(p.as_bytes(), &bytes(n)[..]);
            let ms = moves(n, m);
            Ok(if ms.is_empty() { Node::End(Value::Lose) } else { Node::Inner(ms.into_iter().map(key).collect()) })
        })
        .expect("explored");
        assert!(g.nodes.records, "keys are held as records");
        assert_eq!(g.len(), order.len());
        assert_eq!(g.nodes.len(), order.len());
        for (i, n) in order.iter().enumerate() {
            assert_eq!(g.nodes.get(i).expect("a node").as_bytes(), &bytes(*n)[..]);
            assert_eq!(g.children_of(i), &kids[i][..]);
        }
        let all: Vec<u64> = g.nodes.into_positions().map(|k| number(k.as_bytes())).collect();
        assert_eq!(all, order);
    }

    #[test]
    fn positions_without_bytes_are_held_as_themselves() {
        let m = 20_000;
        let (order, kids) = reference(m);
        let g = Graph::explore(5u64, usize::MAX, &Progress::silent(), |&n| {
            let ms = moves(n, m);
            Ok(if ms.is_empty() { Node::End(Value::Lose) } else { Node::Inner(ms) })
        })
        .expect("explored");
        assert!(!g.nodes.records);
        assert_eq!(g.nodes.iter().map(|p| *p).collect::<Vec<_>>(), order);
        assert!((0..g.len()).all(|i| g.children_of(i) == &kids[i][..]));
    }
}
