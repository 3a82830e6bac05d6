//! The symmetries of a board of points: the permutations of its points that map each line
//! onto a line, in order (or reversed), and keep whatever else the rules look at (the masks
//! of the ends, the way each side may go). They are found by search over the points, not
//! from a drawing, so that the Morris boards' swap of the inner and outer squares and the
//! star's turns count as well as a grid's mirrors and turns.

/// From each of the `n` points, along each line through it both ways, the points that
/// follow in order (each ray once).
pub(in crate::descriptor) fn rays(n: usize, lines: &[Vec<usize>]) -> Vec<Vec<Vec<u8>>> {
    let mut rays = vec![Vec::new(); n];
    for line in lines {
        for (i, &p) in line.iter().enumerate() {
            let ahead: Vec<u8> = line[i + 1..].iter().map(|&q| q as u8).collect();
            let back: Vec<u8> = line[..i].iter().rev().map(|&q| q as u8).collect();
            for ray in [ahead, back] {
                if !ray.is_empty() && !rays[p].contains(&ray) {
                    rays[p].push(ray);
                }
            }
        }
    }
    rays
}

/// A search that has met this many partial maps, or found this many symmetries, gives up:
/// the board is then searched as it is (a board of points joined by no line, whose points
/// may all be exchanged, is the case this bounds).
const MAX_NODES: usize = 2_000_000;
const MAX_FOUND: usize = 4096;

/// The permutations `perm` of `0..n` (the point `p` goes to `perm[p]`) under which every
/// point's rays (the points that follow it along each line, each way, in order) go onto the
/// rays of its image, and `keeps(perm)` holds. The identity first; only the identity where
/// the search gives up.
pub(in crate::descriptor) fn automorphisms(rays: &[Vec<Vec<u8>>], keeps: impl Fn(&[u8]) -> bool) -> Vec<Vec<u8>> {
    let n = rays.len();
    let identity: Vec<u8> = (0..n as u8).collect();
    // Neighbours along a line, and points two along a line: the relations a symmetry keeps.
    let mask = |p: usize, k: usize| rays[p].iter().filter_map(|r| r.get(k)).fold(0u64, |m, &q| m | 1 << q);
    let near: Vec<u64> = (0..n).map(|p| mask(p, 0)).collect();
    let far: Vec<u64> = (0..n).map(|p| mask(p, 1)).collect();
    // Points in breadth-first order, so that most have a neighbour placed before them.
    let mut order = Vec::with_capacity(n);
    let mut seen = 0u64;
    for root in 0..n {
        if seen & 1 << root != 0 {
            continue;
        }
        seen |= 1 << root;
        order.push(root);
        let mut i = order.len() - 1;
        while i < order.len() {
            let mut next = near[order[i]] & !seen;
            while next != 0 {
                let q = next.trailing_zeros() as usize;
                next &= next - 1;
                seen |= 1 << q;
                order.push(q);
            }
            i += 1;
        }
    }
    let mut search = Search { rays, near, far, order, perm: vec![u8::MAX; n], used: 0, nodes: 0, found: Vec::new() };
    if !search.extend(0, &keeps) {
        return vec![identity];
    }
    let mut found = search.found;
    found.retain(|p| *p != identity);
    found.insert(0, identity);
    found
}

struct Search<'a> {
    rays: &'a [Vec<Vec<u8>>],
    near: Vec<u64>,
    far: Vec<u64>,
    order: Vec<usize>,
    perm: Vec<u8>,
    used: u64,
    nodes: usize,
    found: Vec<Vec<u8>>,
}

impl Search<'_> {
    /// Place the points from `order[k]` on; `false` once the search gives up.
    fn extend(&mut self, k: usize, keeps: &impl Fn(&[u8]) -> bool) -> bool {
        self.nodes += 1;
        if self.nodes > MAX_NODES || self.found.len() > MAX_FOUND {
            return false;
        }
        if k == self.order.len() {
            if self.whole() && keeps(&self.perm) {
                self.found.push(self.perm.clone());
            }
            return true;
        }
        let p = self.order[k];
        let n = self.rays.len();
        // A point with a neighbour already placed goes next to that neighbour's image.
        let placed = self.order[..k].iter().copied().find(|&q| self.near[p] & 1 << q != 0);
        let mut candidates = match placed {
            Some(q) => self.near[self.perm[q] as usize],
            None => (0..n).fold(0u64, |m, v| m | 1 << v),
        } & !self.used;
        while candidates != 0 {
            let v = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            if self.fits(p, v, k) {
                self.perm[p] = v as u8;
                self.used |= 1 << v;
                let go_on = self.extend(k + 1, keeps);
                self.used &= !(1 << v);
                self.perm[p] = u8::MAX;
                if !go_on {
                    return false;
                }
            }
        }
        true
    }

    /// Whether `p` may go to `v`, given the points placed before it.
    fn fits(&self, p: usize, v: usize, k: usize) -> bool {
        if self.near[p].count_ones() != self.near[v].count_ones()
            || self.far[p].count_ones() != self.far[v].count_ones()
        {
            return false;
        }
        self.order[..k].iter().all(|&q| {
            let w = self.perm[q] as usize;
            (self.near[p] >> q & 1) == (self.near[v] >> w & 1) && (self.far[p] >> q & 1) == (self.far[v] >> w & 1)
        })
    }

    /// Every point's rays go onto its image's rays, in order.
    fn whole(&self) -> bool {
        self.rays.iter().enumerate().all(|(p, rs)| {
            let theirs = &self.rays[self.perm[p] as usize];
            rs.len() == theirs.len()
                && rs.iter().all(|r| {
                    let image: Vec<u8> = r.iter().map(|&q| self.perm[q as usize]).collect();
                    theirs.contains(&image)
                })
        })
    }
}

/// A symmetry of a board, a permutation of its points (`perm[p]` is where `p` goes), held as
/// one table for each byte of a mask of points, so that a mask is mapped in a lookup a byte
/// rather than a step a point (the permutation itself is kept for the tests alone).
#[derive(Clone)]
pub(in crate::descriptor) struct Symmetry {
    #[cfg(test)]
    pub(in crate::descriptor) perm: Vec<u8>,
    bytes: Vec<[u64; 256]>,
}

impl Symmetry {
    pub(in crate::descriptor) fn new(perm: Vec<u8>) -> Symmetry {
        let n = perm.len();
        let bytes = (0..n.div_ceil(8))
            .map(|i| {
                // Only the points of the board: a mask never holds the others.
                let on_board = if n - 8 * i >= 8 { 255 } else { (1u64 << (n - 8 * i)) - 1 };
                std::array::from_fn(|v| permute(&perm, ((v as u64) & on_board) << (8 * i)))
            })
            .collect();
        Symmetry {
            #[cfg(test)]
            perm,
            bytes,
        }
    }

    /// The image of a mask of points.
    #[inline]
    pub(in crate::descriptor) fn apply(&self, mask: u64) -> u64 {
        self.bytes.iter().enumerate().fold(0, |out, (i, t)| out | t[(mask >> (8 * i)) as usize & 255])
    }
}

/// `mask` with each point `p` moved to `perm[p]`.
pub(in crate::descriptor) fn permute(perm: &[u8], mut mask: u64) -> u64 {
    let mut out = 0;
    while mask != 0 {
        out |= 1 << perm[mask.trailing_zeros() as usize];
        mask &= mask - 1;
    }
    out
}

/// A small fixed generator (xorshift64) for the tests that check the symmetries against the
/// rules on positions spread over a board.
#[cfg(test)]
pub(in crate::descriptor) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
