//! Packed puzzles: the positions of a puzzle reachable from one root as 128-bit keys, maybe
//! numbered (`BoardPacking`, for `src/game/packed.rs`).

use super::bits::{ACROSS_DOWN, TRIANGLE, full_mask, shl, shr};
use super::rules::{BPos, BoardRules};
use super::vocab::{BoardMove, BoardShape};
use crate::game::Value;

// --- Packed puzzles: keys and indices (src/game/packed.rs) ---------------------------------

/// How a packed puzzle numbers its positions.
enum Numbering {
    /// Peg solitaire: the set of cells holding pegs, cell by cell (2^cells): each row's
    /// cells (`(shift, mask, at)`: where on the board, where in the index).
    Cells(Vec<(u32, u128, u32)>),
    /// The Tower of Hanoi: each disc's peg, a digit in base `pegs` (pegs^discs).
    Pegs { pegs: u64, w: usize, row: u128, power: Vec<u64> },
    /// A sliding puzzle: the cells of each kind of tile, ranked among every arrangement of
    /// the same tiles (`Ranker`); `ones` when every tile is different, ranked then as a
    /// permutation (the same rank, with the number of cells in each set of at most 12 cells
    /// from a table, and each tile's weight in the rank: 9! for the 8-puzzle).
    Tiles { ranker: crate::game::tier::Ranker, kinds: usize, cells: usize, ones: Option<(Vec<u8>, Vec<u64>)> },
}

/// The positions of a puzzle reachable from one root (same board, same tiles or discs), as
/// 128-bit keys: the bitboard `a` (pegs, discs, or tiles 5 bits a cell), and for tiles the
/// blank's cell in the top 8 bits (at most 24 cells, 120 bits).
pub struct BoardPacking<'a> {
    rules: &'a BoardRules,
    proto: BPos,
    numbering: Numbering,
    size: Option<u64>,
    /// The symmetries the rules keep but the identity, as maps of keys.
    syms: Vec<KeyMap>,
    /// The goal's key (a puzzle ends there, or at its number of pegs left).
    goal: Option<u128>,
}

/// A symmetry as a map of keys: the image of each byte of the key (a permutation of its
/// bits, ORed byte by byte), and for tiles where the blank goes.
struct KeyMap {
    bytes: Vec<[u128; 256]>,
    blank: Vec<u8>,
}

impl BoardRules {
    /// The packing of the positions reachable from `root`, for the puzzles (`Jump`, `Slide`,
    /// `Hanoi`); `None` for the rest, and for a sliding puzzle of more than 24 cells.
    pub fn packing(&self, root: &BPos) -> Option<BoardPacking<'_>> {
        let (rows, cols) = (root.rows as usize, root.cols as usize);
        let w = cols + 1;
        let (numbering, size) = match self.moves {
            BoardMove::Jump => {
                let mut parts = Vec::new();
                let mut cells = 0u32;
                for r in 0..rows {
                    let width = if self.shape == BoardShape::Triangle { r + 1 } else { cols };
                    parts.push(((r * w) as u32, (1u128 << width) - 1, cells.min(127)));
                    cells += width as u32;
                }
                (Numbering::Cells(parts), (cells < 64).then(|| 1u64 << cells))
            }
            BoardMove::Hanoi => {
                let pegs = rows as u64;
                let mut power = vec![1u64];
                let mut size = Some(1u64);
                for _ in 0..cols {
                    size = size.and_then(|s| s.checked_mul(pegs));
                    power.push(size.unwrap_or(0));
                }
                (Numbering::Pegs { pegs, w, row: (1u128 << cols) - 1, power }, size)
            }
            BoardMove::Slide => {
                let cells = rows * cols;
                if cells > 24 || cells > 64 {
                    return None;
                }
                let kinds = self.labels.len();
                let mut counts = vec![0u32; kinds];
                for i in 0..cells {
                    let code = ((root.a >> (5 * i)) & 31) as usize;
                    if code > 0 {
                        counts[code - 1] += 1;
                    }
                }
                let ranker = crate::game::tier::Ranker::new(cells as u32);
                let size = ranker.count(&counts);
                // Tile k's digit has radix cells - k (the cells left free): its weight is the
                // product of the radixes after it.
                let ones = (counts.iter().all(|&c| c == 1) && cells <= 12).then(|| {
                    let weight: Vec<u64> =
                        (0..kinds).map(|k| (k + 1..kinds).map(|j| (cells - j) as u64).product::<u64>()).collect();
                    ((0..1u32 << cells).map(|x| x.count_ones() as u8).collect(), weight)
                });
                (Numbering::Tiles { ranker, kinds, cells, ones }, size)
            }
            _ => return None,
        };
        // Each symmetry as a permutation of the key's bits, read off the image of each bit
        // of the board alone (a cell, a disc on a peg, a bit of a tile's label).
        let (used, blanks) = match self.moves {
            BoardMove::Slide => ((1u128 << (5 * rows * cols)) - 1, rows * cols),
            BoardMove::Hanoi => (full_mask(root.rows, root.cols), 0),
            _ => (self.cell_mask(root.rows, root.cols), 0),
        };
        let nbytes = (128 - used.leading_zeros() as usize).div_ceil(8);
        let syms = self
            .moving_symmetries(root.rows, root.cols)
            .iter()
            .skip(1)
            .map(|s| {
                let bit = |i: usize| self.image(&BPos { a: 1u128 << i, b: 0, ..*root }, s).a;
                let mut bytes = vec![[0u128; 256]; nbytes];
                for (j, table) in bytes.iter_mut().enumerate() {
                    for v in 1..256usize {
                        let low = v & v.wrapping_neg();
                        let i = 8 * j + low.trailing_zeros() as usize;
                        let one = if used >> i & 1 == 1 { bit(i) } else { 0 };
                        table[v] = table[v & (v - 1)] | one;
                    }
                }
                let blank = (0..blanks).map(|i| self.image(&BPos { a: 0, b: i as u128, ..*root }, s).b as u8).collect();
                KeyMap { bytes, blank }
            })
            .collect();
        let mut packing = BoardPacking { rules: self, proto: *root, numbering, size, syms, goal: None };
        packing.goal = self.goal.map(|g| packing.pack(&g));
        Some(packing)
    }
}

impl BoardPacking<'_> {
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    pub fn pack(&self, p: &BPos) -> u128 {
        match self.numbering {
            Numbering::Tiles { .. } => p.a | p.b << 120,
            _ => p.a,
        }
    }

    pub fn unpack(&self, key: u128) -> BPos {
        match self.numbering {
            Numbering::Tiles { .. } => BPos { a: key & ((1u128 << 120) - 1), b: key >> 120, ..self.proto },
            _ => BPos { a: key, ..self.proto },
        }
    }

    pub fn index(&self, key: u128) -> u64 {
        match &self.numbering {
            Numbering::Cells(parts) => {
                let mut index = 0u128;
                for &(shift, mask, at) in parts {
                    index |= ((key >> shift) & mask) << at;
                }
                index as u64
            }
            Numbering::Pegs { pegs, w, row, power } => {
                let mut index = 0u64;
                for p in 1..*pegs as usize {
                    let mut discs = (key >> (p * w)) & row;
                    while discs != 0 {
                        index += p as u64 * power[discs.trailing_zeros() as usize];
                        discs &= discs - 1;
                    }
                }
                index
            }
            Numbering::Tiles { kinds, cells, ones: Some((ones, weight)), .. } => {
                // Each tile's cell among the cells the tiles before it left free: the
                // Ranker's rank where every count is 1 (C(n, 1) = n), as a sum of digits
                // times their weights (the products of the later radixes) rather than one
                // long chain of multiplications. At most 12 cells: 60 bits, one word.
                let low = key as u64;
                let mut cell_of = [0u32; 32];
                for i in 0..*cells {
                    // Slot 0 takes the blank (no branch on where it is).
                    cell_of[((low >> (5 * i)) & 31) as usize] = i as u32;
                }
                let mut free = (1usize << cells) - 1;
                let mut index = 0u64;
                for (&c, &w) in cell_of[1..=*kinds].iter().zip(weight) {
                    index += w * u64::from(ones[free & ((1usize << c) - 1)]);
                    free &= !(1usize << c);
                }
                index
            }
            Numbering::Tiles { ranker, kinds, cells, .. } => {
                let mut boards = [0u64; 32];
                for i in 0..*cells {
                    let code = ((key >> (5 * i)) & 31) as usize;
                    if code > 0 {
                        boards[code - 1] |= 1u64 << i;
                    }
                }
                ranker.rank(&boards[..*kinds])
            }
        }
    }

    pub fn children(&self, key: u128, out: &mut Vec<u128>) {
        match (&self.rules.moves, &self.numbering) {
            (BoardMove::Jump, Numbering::Cells(_)) => return self.jumps(key, out),
            (BoardMove::Slide, Numbering::Tiles { .. }) => return self.slides(key, out),
            _ => {}
        }
        let p = self.unpack(key);
        self.rules.moving_moves(&p, |m| out.push(self.pack(&self.rules.apply(&p, m))));
    }

    /// A sliding puzzle's moves on keys: the tile above the blank, below, left, right (as
    /// `moving_moves` lists them) into the blank, whose cell becomes the tile's.
    fn slides(&self, key: u128, out: &mut Vec<u128>) {
        let (rows, cols) = (self.proto.rows as usize, self.proto.cols as usize);
        let blank = (key >> 120) as usize;
        let low = key & ((1u128 << 120) - 1);
        let mut slide = |i: usize| {
            let tile = (low >> (5 * i)) & 31;
            out.push((low & !(31u128 << (5 * i))) | tile << (5 * blank) | (i as u128) << 120);
        };
        let (r, c) = (blank / cols, blank % cols);
        if r > 0 {
            slide(blank - cols);
        }
        if r + 1 < rows {
            slide(blank + cols);
        }
        if c > 0 {
            slide(blank - 1);
        }
        if c + 1 < cols {
            slide(blank + 1);
        }
    }

    /// Peg solitaire's jumps on bitboards: for each direction, the pegs with a peg beside
    /// them and an empty cell beyond (a step off a row's end lands on the guard column, no
    /// cell); listed peg by peg, and for a peg in the order of the directions, as
    /// `moving_moves` lists them.
    fn jumps(&self, a: u128, out: &mut Vec<u128>) {
        let p = &self.proto;
        let w = p.cols as i32 + 1;
        let holes = self.rules.cell_mask(p.rows, p.cols) & !a;
        let dirs: &[(i8, i8)] = if self.rules.shape == BoardShape::Triangle { &TRIANGLE } else { &ACROSS_DOWN };
        let back = |x: u128, s: i32| if s >= 0 { shr(x, s as usize) } else { shl(x, (-s) as usize) };
        let mut from = [0u128; 6];
        let mut any = 0u128;
        for (k, &(dr, dc)) in dirs.iter().enumerate() {
            let s = i32::from(dr) * w + i32::from(dc);
            from[k] = a & back(a, s) & back(holes, 2 * s);
            any |= from[k];
        }
        while any != 0 {
            let i = any.trailing_zeros() as i32;
            any &= any - 1;
            for (k, &(dr, dc)) in dirs.iter().enumerate() {
                if from[k] >> i & 1 == 1 {
                    let s = i32::from(dr) * w + i32::from(dc);
                    out.push(a & !(1u128 << i) & !(1u128 << (i + s)) | 1u128 << (i + 2 * s));
                }
            }
        }
    }

    /// A puzzle's end on keys: the goal's key, or the number of pegs left (`solved`).
    pub fn primitive(&self, key: u128) -> Option<Value> {
        let solved = self.goal.is_some_and(|g| g == key) || self.rules.left.is_some_and(|n| key.count_ones() == n);
        solved.then_some(Value::Win)
    }

    /// How many symmetries the rules keep, the identity included.
    pub fn symmetries(&self) -> usize {
        self.syms.len() + 1
    }

    /// The key of the image of `key`'s position under symmetry `t` (0 the identity).
    pub fn image(&self, key: u128, t: usize) -> u128 {
        let Some(m) = t.checked_sub(1).and_then(|t| self.syms.get(t)) else { return key };
        let mut out = 0u128;
        for (j, table) in m.bytes.iter().enumerate() {
            out |= table[((key >> (8 * j)) & 255) as usize];
        }
        if !m.blank.is_empty() {
            out |= u128::from(m.blank[(key >> 120) as usize]) << 120;
        }
        out
    }
}
