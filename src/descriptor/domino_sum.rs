//! Cram on 64-bit keys: the [`crate::game::packed::PackedSum`] of an impartial domino board (`moves:
//! Domino(Either)`) of at most 64 cells, for the Grundy search on keys
//! (`src/solve/nimber.rs`).
//!
//! A key is the set of **empty** cells of the board, cell (r, c) at bit `r * w + c`, where
//! `w` is the board's shorter side (a board wider than tall is turned a quarter, which
//! changes no Grundy value), so that `w ≤ 8` and every shift stays inside the word. With no
//! guard column, a domino across is a bit with its right neighbour set and not in the last
//! column (`x & x >> 1 & !last`), a domino down a bit with the one below set (`x & x >> w`).
//!
//! A part is a 4-connected region of empty cells (a domino never crosses a covered cell), cut
//! out by a flood fill of shifts and masks; a lone cell is left out (no domino fits, value
//! 0). Its key is canonical: moved to the top-left corner, then the smallest of its images
//! under the symmetries of the square that fit on the board: the two mirrors and the half
//! turn always (the half turn of a region in the top-left corner is its word reversed and
//! shifted back), the transpose and its three images when the turned region fits (always on
//! a square board). A region that fits only one way round cannot meet its turned self on
//! this board, so equal regions always meet.

use super::board::BPos;

/// Regions in the corner with keys below this have their part key in a table.
const SMALL: u64 = 1 << 16;

/// The keys of one board's positions (see the module's documentation).
#[derive(Clone)]
pub struct DominoSum {
    /// The board of the root (its size, and what unpacking copies).
    proto: BPos,
    /// The key's rows and columns (the root's, or its transpose when wider than tall).
    rows: u32,
    w: u32,
    turned: bool,
    /// Bits of the first and last column, of the first row, of every cell.
    first_col: u64,
    last_col: u64,
    row: u64,
    full: u64,
    /// A row's bits stood up as a column: bit c to bit c * w (the transpose, a row at a time).
    column_of: Vec<u64>,
    /// The row of each bit (a table: a division is slow).
    row_of: [u8; 64],
    /// For a region of h rows and wd columns in the corner (index `(h - 1) * w + wd - 1`),
    /// its dominoes across and down (each marked on its first cell) by their distance from
    /// the region's centre, nearest first.
    rings: Vec<Vec<(u64, u64)>>,
    /// The part key ([`DominoSum::part_key`]) of every region in the corner whose key is
    /// below 2^16 (the first rows of the board), 0 for a region worth 0 by the mirror
    /// strategy: small regions are a third of the parts on 4×9.
    small: Vec<u16>,
}

impl DominoSum {
    /// The keys of the positions of `root`'s board; `None` for a board of more than 64 cells.
    pub fn new(root: &BPos) -> Option<DominoSum> {
        let (r, c) = (root.rows as u32, root.cols as u32);
        if r * c > 64 || r == 0 || c == 0 {
            return None;
        }
        let turned = c > r;
        let (rows, w) = if turned { (c, r) } else { (r, c) };
        let row = (1u64 << w) - 1;
        let first_col = (0..rows).fold(0u64, |m, i| m | 1 << (i * w));
        let full = if rows * w == 64 { u64::MAX } else { (1u64 << (rows * w)) - 1 };
        let column_of = (0..1u64 << w)
            .map(|bits| (0..w).filter(|c| bits >> c & 1 == 1).fold(0u64, |m, c| m | 1 << (c * w)))
            .collect();
        let last_col = first_col << (w - 1);
        let row_of = std::array::from_fn(|i| (i as u32 / w) as u8);
        let mut rings = Vec::new();
        for h in 1..=rows {
            for wd in 1..=w {
                // Twice the distance of each domino's middle from the centre.
                let mut ring = vec![(0u64, 0u64); (h + wd) as usize * 2];
                for r in 0..h {
                    for c in 0..wd {
                        let bit = 1u64 << (r * w + c);
                        if c + 1 < wd {
                            ring[((2 * r + 1).abs_diff(h) + (2 * c + 2).abs_diff(wd)) as usize].0 |= bit;
                        }
                        if r + 1 < h {
                            ring[((2 * r + 2).abs_diff(h) + (2 * c + 1).abs_diff(wd)) as usize].1 |= bit;
                        }
                    }
                }
                ring.retain(|&(a, d)| a | d != 0);
                rings.push(ring);
            }
        }
        let mut sum = DominoSum {
            proto: *root,
            rows,
            w,
            turned,
            first_col,
            last_col,
            row,
            full,
            column_of,
            row_of,
            rings,
            small: Vec::new(),
        };
        let small = (0..=full.min(SMALL - 1))
            .map(|x| match x {
                0 => 0,
                _ => {
                    let (x, h, wd) = sum.corner(x);
                    sum.part_key_at(x, h, wd).map_or(0, |k| k as u16)
                }
            })
            .collect();
        sum.small = small;
        Some(sum)
    }

    /// The empty cells of a position of the root's board as a key.
    pub fn key_of(&self, p: &BPos) -> Option<u64> {
        if (p.rows, p.cols) != (self.proto.rows, self.proto.cols) {
            return None;
        }
        let bw = p.cols as usize + 1;
        let covered = p.a | p.b;
        let mut key = 0u64;
        for r in 0..p.rows as usize {
            for c in 0..p.cols as usize {
                if covered >> (r * bw + c) & 1 == 0 {
                    let (kr, kc) = if self.turned { (c, r) } else { (r, c) };
                    key |= 1 << (kr * self.w as usize + kc);
                }
            }
        }
        Some(key)
    }

    /// The position of the root's board whose empty cells are `key` (in the key's
    /// orientation, turned back).
    pub fn position_of(&self, key: u64) -> BPos {
        let p = &self.proto;
        let bw = p.cols as usize + 1;
        let mut a = 0u128;
        for r in 0..p.rows as usize {
            for c in 0..p.cols as usize {
                let (kr, kc) = if self.turned { (c, r) } else { (r, c) };
                if key >> (kr * self.w as usize + kc) & 1 == 0 {
                    a |= 1 << (r * bw + c);
                }
            }
        }
        BPos { a, b: 0, ..*p }
    }

    fn across(&self, x: u64) -> u64 {
        x & (x >> 1) & !self.last_col
    }

    fn down(&self, x: u64) -> u64 {
        x & (x >> self.w)
    }

    /// The columns holding cells of `x`, as one row.
    fn columns(&self, x: u64) -> u64 {
        let mut f = x;
        let mut s = self.w;
        while s < 64 && (f >> s) != 0 {
            f |= f >> s;
            s *= 2;
        }
        f & self.row
    }

    /// `x` (not empty) moved to the top-left corner, with its height and width.
    fn corner(&self, x: u64) -> (u64, u32, u32) {
        let x = x >> (u32::from(self.row_of[x.trailing_zeros() as usize]) * self.w);
        let cols = self.columns(x);
        let x = x >> cols.trailing_zeros();
        let h = self.height(x);
        let wd = 64 - (cols >> cols.trailing_zeros()).leading_zeros();
        (x, h, wd)
    }

    /// How many rows `x` (not empty, starting on the first row) spans.
    fn height(&self, x: u64) -> u32 {
        u32::from(self.row_of[63 - x.leading_zeros() as usize]) + 1
    }

    /// The rows of `x` (in the corner, `h` rows) in reverse order: the word's nibbles or
    /// bytes reversed where a row is one, else a row at a time.
    fn flip_rows(&self, x: u64, h: u32) -> u64 {
        if self.w == 8 {
            return x.swap_bytes() >> (64 - 8 * h);
        }
        if self.w == 4 {
            const LOW: u64 = 0x0F0F_0F0F_0F0F_0F0F;
            let y = x.swap_bytes();
            return (((y >> 4) & LOW) | ((y & LOW) << 4)) >> (64 - 4 * h);
        }
        let mut out = 0;
        for r in 0..h {
            out |= ((x >> (r * self.w)) & self.row) << ((h - 1 - r) * self.w);
        }
        out
    }

    /// The half turn of `x` (in the corner, `h` × `wd`), back in the corner.
    fn half_turn(&self, x: u64, h: u32, wd: u32) -> u64 {
        (x.reverse_bits() >> (64 - h * self.w)) >> (self.w - wd)
    }

    /// The transpose of `x` (in the corner, `h` rows, `h ≤ w`): `wd` rows of `h` columns.
    fn transpose(&self, x: u64, h: u32) -> u64 {
        if self.w == 4 {
            // Four rows of four: each 2×2 block transposed, then the blocks off the diagonal
            // swapped (two delta swaps).
            let t = (x ^ (x >> 3)) & 0x0A0A;
            let x = x ^ t ^ (t << 3);
            let t = (x ^ (x >> 6)) & 0x00CC;
            return x ^ t ^ (t << 6);
        }
        let mut out = 0;
        for r in 0..h {
            out |= self.column_of[((x >> (r * self.w)) & self.row) as usize] << r;
        }
        out
    }

    /// The canonical key of the region `x` (not empty; see the module's documentation).
    pub fn canonical(&self, x: u64) -> u64 {
        let (x, h, wd) = self.corner(x);
        self.canonical_at(x, h, wd)
    }

    /// The canonical key of the region `x`, in the corner, `h` × `wd`: the least of its
    /// images. An image of fewer rows is below every image of more (its highest cell is in
    /// a lower row), so where the region may be turned only the images the short way up are
    /// made (all eight for a square box).
    fn canonical_at(&self, x: u64, h: u32, wd: u32) -> u64 {
        let turns = h <= self.w && wd <= self.rows;
        if turns && wd < h {
            return self.least_of_four(self.transpose(x, h), wd, h);
        }
        let best = self.least_of_four(x, h, wd);
        if turns && wd == h { best.min(self.least_of_four(self.transpose(x, h), h, h)) } else { best }
    }

    /// The least of `x` (in the corner, `h` × `wd`), its two mirrors and its half turn.
    fn least_of_four(&self, x: u64, h: u32, wd: u32) -> u64 {
        let v = self.flip_rows(x, h);
        x.min(v).min(self.half_turn(x, h, wd)).min(self.half_turn(v, h, wd))
    }
}

/// A domino board's positions as 128-bit keys, for the full search of value and remoteness
/// (`PackedPlay`, searched by `src/solve/value.rs`): the empty cells as a [`DominoSum`] key in the
/// low 64 bits, and for Domineering (`per_player`) the turn in bit 64. Only the board's
/// symmetries, the move to its corner and the cells no domino can reach change a key to its
/// canonical form (the reductions of [`DominoSum::reduce`] keep Grundy values, not
/// remoteness).
#[derive(Clone)]
pub struct DominoKeys {
    sum: DominoSum,
    /// Domineering: the first player lays dominoes down the board, the second across (on the
    /// key, across and down are swapped when the board is turned), and the half turn and
    /// mirrors are the only symmetries (a quarter turn swaps the players).
    per_player: bool,
}

impl DominoKeys {
    /// The keys of the positions of `root`'s board; `None` for a board of more than 64 cells.
    pub fn new(root: &BPos, per_player: bool) -> Option<DominoKeys> {
        Some(DominoKeys { sum: DominoSum::new(root)?, per_player })
    }

    pub fn pack(&self, p: &BPos) -> Option<u128> {
        if p.k != 0 {
            return None;
        }
        let turn = if self.per_player { u128::from(p.turn & 1) } else { 0 };
        Some(u128::from(self.sum.key_of(p)?) | turn << 64)
    }

    pub fn unpack(&self, key: u128) -> BPos {
        BPos { turn: (key >> 64) as u8 & 1, ..self.sum.position_of(key as u64) }
    }

    /// Cells with no empty neighbour taken out (no domino ever covers them), then the least
    /// image in the corner.
    pub fn canonical(&self, key: u128) -> u128 {
        let s = &self.sum;
        let x = key as u64 & s.full;
        let w = s.w;
        let near = ((x << 1) & !s.first_col) | ((x >> 1) & !s.last_col) | (x << w) | (x >> w);
        let x = x & near;
        let turn = key >> 64 << 64;
        if x == 0 {
            return turn;
        }
        let c = if self.per_player {
            let (x, h, wd) = s.corner(x);
            s.least_of_four(x, h, wd)
        } else {
            s.canonical(x)
        };
        u128::from(c) | turn
    }

    /// How many keys [`DominoKeys::children`] lists.
    pub fn move_count(&self, key: u128) -> u32 {
        let (across, down) = self.moves(key);
        across.count_ones() + down.count_ones()
    }

    /// The dominoes the player to move may lay: across and down the key, each by its first
    /// cell.
    fn moves(&self, key: u128) -> (u64, u64) {
        let s = &self.sum;
        let x = key as u64 & s.full;
        let turn = key >> 64 << 64;
        if self.per_player {
            // Down the board for the first player: across the key where the key is turned.
            let first_down = !s.turned;
            match (turn == 0) == first_down {
                true => (0, s.down(x)),
                false => (s.across(x), 0),
            }
        } else {
            (s.across(x), s.down(x))
        }
    }

    pub fn children(&self, key: u128, out: &mut Vec<u128>) {
        let s = &self.sum;
        let x = key as u64 & s.full;
        let turn = key >> 64 << 64;
        let (across, down) = self.moves(key);
        let next = if self.per_player { turn ^ 1u128 << 64 } else { 0 };
        let mut bits = across;
        while bits != 0 {
            let b = bits & bits.wrapping_neg();
            bits &= bits - 1;
            out.push(u128::from(x & !(b | b << 1)) | next);
        }
        let mut bits = down;
        while bits != 0 {
            let b = bits & bits.wrapping_neg();
            bits &= bits - 1;
            out.push(u128::from(x & !(b | b << s.w)) | next);
        }
    }
}

impl DominoSum {
    /// The parts of `key`: the regions of its [reduced](DominoSum::reduce) form, cut where
    /// [twins](DominoSum::twin_cuts) allow, each canonical; a region that the mirror
    /// strategy shows to be worth 0 (see [`DominoSum::mirrored`]) is left out.
    pub fn parts_of(&self, key: u64, out: &mut Vec<u64>) {
        // Lone cells (worth 0) and lone dominoes (worth 1 each, so only their number's
        // parity counts) are taken out before the fill.
        let (x, lone, across, down) = self.reduce(key & self.full);
        if (across | down).count_ones() & 1 == 1 {
            out.push(3);
        }
        let x = x & !(lone | across | across << 1 | down | down << self.w);
        let cut = self.twin_cuts(x);
        let mut rest = x;
        while rest != 0 {
            let region = self.fill(rest & rest.wrapping_neg(), rest, cut);
            rest &= !region;
            if region & (region - 1) == 0 {
                continue;
            }
            // A region cut off from the rest of its own is a board region again: reduced
            // and cut anew.
            if region != x && (cut & region) ^ ((region >> 1) & cut) != 0 {
                self.parts_of(region, out);
            } else if let Some(k) = self.part_key(region) {
                out.push(k);
            }
        }
    }

    /// The regions of two cells or more of `key`, each canonical (no reduction).
    #[cfg(test)]
    pub fn regions_of(&self, key: u64, out: &mut Vec<u64>) {
        let mut rest = key & self.full;
        while rest != 0 {
            let region = self.fill(rest & rest.wrapping_neg(), rest, 0);
            rest &= !region;
            if region & (region - 1) != 0 {
                out.push(self.canonical(region));
            }
        }
    }

    /// The cells of `within` joined to `seed`, not across the edges `cut` (an edge marked on
    /// its left cell).
    fn fill(&self, seed: u64, within: u64, cut: u64) -> u64 {
        let w = self.w;
        // The cells that a neighbour to the left, to the right, above reaches; and those
        // whose two, four cells above are all of `within` (runs down taken in doubling
        // steps: the seed is the region's first cell, so it grows down most).
        let from_left = within & !self.first_col & !(cut << 1);
        let from_right = within & !self.last_col & !cut;
        let down2 = within & (within << w);
        let down4 = down2 & (down2 << (2 * w));
        let mut region = seed;
        loop {
            let mut next =
                region | ((region << 1) & from_left) | ((region >> 1) & from_right) | ((region >> w) & within);
            next |= (next << w) & within;
            next |= (next << (2 * w)) & down2;
            next |= (next << (4 * w)) & down4;
            if next == region {
                return region;
            }
            region = next;
        }
    }

    /// The edges across (each marked on its left cell) that a Grundy value may do without:
    /// in a 2×2 block whose opposite corners P and Q each touch only the block's other two
    /// cells X and Y, the edges P–X and Q–Y (the block's two edges across). P and Q are
    /// twins, so a domino on P–X is worth one on Q–X, and the game without those edges is
    /// worth the same. Proof: P and Q have the same neighbours, so swapping them is a
    /// symmetry; a domino on P–X is worth one on Q–X (kept), Y–Q one on Y–P (kept); after a
    /// domino on X and an outside cell, P and Q are both leaves of Y and [`Self::reduce`]
    /// removes Q on both sides; any other move keeps the block as it was (induction). Two such
    /// blocks never share a corner, so all cuts apply at once.
    pub fn twin_cuts(&self, x: u64) -> u64 {
        let w = self.w;
        let left = (x << 1) & !self.first_col;
        let right = (x >> 1) & !self.last_col;
        let up = x << w;
        let down = x >> w;
        // Cells whose only neighbours are right and below, left and above, and so on.
        let top_left = x & right & down & !left & !up;
        let bottom_right = x & left & up & !right & !down;
        let top_right = x & left & down & !right & !up;
        let bottom_left = x & right & up & !left & !down;
        // The block's top-left cell, for each of the two diagonals.
        let main = top_left & (bottom_right >> (w + 1));
        let anti = (top_right >> 1) & (bottom_left >> w);
        let blocks = main | anti;
        (blocks | (blocks << w)) & x & right
    }

    /// The key of a region (not empty), or `None` when a mirror strategy shows it is worth
    /// 0: the region is its own half turn, and no domino meets its own image (the centre
    /// is not a cell of the region, and no domino on two cells of it lies across the
    /// centre). The second player answers every domino with its image (Tweedledum and
    /// Tweedledee), so the first player runs out of moves first.
    fn part_key(&self, region: u64) -> Option<u64> {
        if (region & (region - 1)).is_power_of_two() {
            // Two cells: a domino, across in the corner (it may always be turned).
            return Some(3);
        }
        let (x, h, wd) = self.corner(region);
        match self.small.get(x as usize) {
            Some(&k) => (k != 0).then_some(u64::from(k)),
            None => self.part_key_at(x, h, wd),
        }
    }

    /// [`DominoSum::part_key`] of the region `x`, in the corner, `h` × `wd`.
    fn part_key_at(&self, x: u64, h: u32, wd: u32) -> Option<u64> {
        if self.half_turn(x, h, wd) == x && self.mirrored(x, h, wd) {
            return None;
        }
        Some(self.canonical_at(x, h, wd))
    }

    /// Does no domino on two cells of `x` (in the corner, `h` × `wd`, its own half turn)
    /// meet its own image? Only a domino across the centre, or on the centre cell, can.
    fn mirrored(&self, x: u64, h: u32, wd: u32) -> bool {
        let w = self.w;
        let cell = |r: u32, c: u32| x >> (r * w + c) & 1 == 1;
        match (h % 2, wd % 2) {
            (0, 0) => true,
            (1, 1) => !cell(h / 2, wd / 2),
            (1, 0) => !(cell(h / 2, wd / 2 - 1) && cell(h / 2, wd / 2)),
            _ => !(cell(h / 2 - 1, wd / 2) && cell(h / 2, wd / 2)),
        }
    }

    /// `key` with cells taken away where that changes no Grundy value, until none can be.
    /// A cell every neighbour of which has a leaf other than it can be removed (a leaf: an
    /// empty cell with exactly one empty neighbour). Proof, by induction on the cells: call
    /// the cell b, its neighbours c_i, their leaves t_i. The move b–c_i leaves t_i alone, so
    /// it equals the move c_i–t_i without b; the move c_i–t_i, and any move c_i–y or
    /// elsewhere, keeps the hypothesis (a leaf goes only with its own cell), so by induction
    /// it equals the same move without b. The options match, so the games are equal. The
    /// cases used:
    /// - **leaves of one cell**: of the leaves (empty cells with one empty neighbour) next to
    ///   the same cell, all but one;
    /// - **bridges**: a cell, not a leaf, all of whose neighbours have a leaf.
    ///
    /// With the result come its lone cells (no neighbour) and its lone dominoes (two cells
    /// that are each other's only neighbour), across and down, each marked on its first cell.
    pub fn reduce(&self, key: u64) -> (u64, u64, u64, u64) {
        let mut x = key;
        loop {
            let w = self.w;
            // The cells whose neighbour to the left, right, above, below is empty.
            let l = (x << 1) & !self.first_col & x;
            let r = (x >> 1) & !self.last_col & x;
            let u = (x << w) & x;
            let d = (x >> w) & x;
            let (across, both_across) = (l ^ r, l & r);
            let (down, both_down) = (u ^ d, u & d);
            let leaves = (across & !(down | both_down)) | (down & !(across | both_across));
            if leaves == 0 {
                return (x, x & !(l | r | u | d), 0, 0);
            }
            // The cell each leaf hangs on, direction by direction; a leaf whose cell already
            // has one goes.
            let mut hubs = (leaves & d) << w;
            let mut gone = 0;
            let c = (leaves & r) << 1;
            gone |= (c & hubs) >> 1;
            hubs |= c;
            let c = (leaves & u) >> w;
            gone |= (c & hubs) << w;
            hubs |= c;
            let c = (leaves & l) >> 1;
            gone |= (c & hubs) << 1;
            hubs |= c;
            let rest = x & !leaves & !hubs;
            let next_to_rest =
                ((rest << 1) & !self.first_col) | ((rest >> 1) & !self.last_col) | (rest << w) | (rest >> w);
            let bridges = rest & !next_to_rest;
            let y = x & !gone & !bridges;
            if y == x {
                let lone = x & !(l | r | u | d);
                return (x, lone, leaves & r & (leaves >> 1), leaves & d & (leaves >> w));
            }
            x = y;
        }
    }

    /// The positions one domino away from `key` (a region in the corner), the dominoes
    /// nearest the region's centre first (measured: a search meets fewer positions when
    /// the moves that cut a region in two come first).
    pub fn children_of(&self, key: u64, out: &mut Vec<u64>) {
        if key == 0 {
            return;
        }
        let h = self.height(key);
        let wd = 64 - self.columns(key).leading_zeros();
        let (mut across, mut down) = (self.across(key), self.down(key));
        for &(a, d) in &self.rings[((h - 1) * self.w + wd - 1) as usize] {
            let mut bits = across & a;
            across &= !a;
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                out.push(key ^ (3 << i));
            }
            let mut bits = down & d;
            down &= !d;
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                out.push(key ^ (1 << i | 1 << (i + self.w)));
            }
            if across | down == 0 {
                return;
            }
        }
    }

    /// How many dominoes fit on `key`.
    pub fn moves_of(&self, key: u64) -> u32 {
        self.across(key).count_ones() + self.down(key).count_ones()
    }
}

/// The parts of a domino board within a box as wide as the board's shorter side and `k` of
/// its rows (in the key's orientation): exactly the canonical parts whose key is below
/// `2^(k·w)`, since a part in the corner fits in `k` rows exactly when its key is (the
/// endgame database of `src/solve/part_db.rs`; [`crate::game::packed::PartBox`]).
pub struct PartsWithin {
    sum: DominoSum,
    k: u32,
}

impl DominoSum {
    /// The parts within the box `text` (`RxC`, either way round: one side the board's
    /// shorter side, the other at most its longer side, at most 32 cells in all).
    pub fn parts_within(&self, text: &str) -> Result<PartsWithin, String> {
        let (w, rows) = (self.w, self.rows);
        let sides = text
            .trim()
            .split_once(['x', 'X'])
            .and_then(|(a, b)| Some((a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?)));
        let Some((a, b)) = sides else {
            return Err(format!("{text:?} is not a box: write ROWSxCOLUMNS, e.g. {w}x{}", rows.min(32 / w)));
        };
        let k = if a == w {
            b
        } else if b == w {
            a
        } else {
            0
        };
        if k == 0 || k > rows {
            return Err(format!(
                "the box {text} does not fit this board as a database of parts: one side must be the board's shorter \
                 side ({w}) and the other from 1 to {rows}, e.g. {w}x{}",
                rows.min(32 / w)
            ));
        }
        if k * w > 32 {
            return Err(format!(
                "the box {text} has {} cells: an endgame database holds boxes of at most 32 cells (e.g. {w}x{})",
                k * w,
                32 / w
            ));
        }
        Ok(PartsWithin { sum: self.clone(), k })
    }

    /// Is `key` a canonical part: its parts are itself alone (see [`DominoSum::parts_of`])?
    pub fn is_part(&self, key: u64) -> bool {
        // In the corner, two cells or more, reduced, one region, its smallest image; then the
        // full split (twins, the mirror strategy).
        if key & self.row == 0 || key & self.first_col == 0 || key & (key - 1) == 0 || key & !self.full != 0 {
            return false;
        }
        if self.reduce(key).0 != key || self.fill(key & key.wrapping_neg(), key, 0) != key || self.canonical(key) != key
        {
            return false;
        }
        let mut out = Vec::with_capacity(4);
        self.parts_of(key, &mut out);
        out.len() == 1 && out[0] == key
    }
}

impl crate::game::packed::PartBox for PartsWithin {
    fn bits(&self) -> u32 {
        self.k * self.sum.w
    }
    fn name(&self) -> String {
        format!("{}x{}", self.sum.w, self.k)
    }
    /// The key's width alone: a part within `k` rows of a board `w` wide has the same key,
    /// canonical form and split on every board of that width at least `k` long (the
    /// transposes depend on the width alone), so one table serves them all (4×9's `4x8`
    /// serves 4×10).
    fn space(&self) -> String {
        format!("domino-sum w{}", self.sum.w)
    }
    fn is_part(&self, key: u64) -> bool {
        self.sum.is_part(key)
    }
    /// Its cells: a child has two fewer, and its parts no more.
    fn level(&self, key: u64) -> u32 {
        key.count_ones()
    }
    fn children(&self, key: u64, out: &mut Vec<u64>) {
        self.sum.children_of(key, out)
    }
    fn parts(&self, key: u64, out: &mut Vec<u64>) {
        self.sum.parts_of(key, out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::{BoardMove, BoardRules, BoardShape, BoardSpec, Orientation, Pieces};
    use super::*;
    use std::collections::HashMap;

    fn cram() -> BoardRules {
        let spec = BoardSpec {
            size: None,
            shape: BoardShape::Rectangle,
            moves: BoardMove::Domino(Orientation::Either),
            pieces: Some(Pieces::Shared),
            ends: Vec::new(),
            cells: Some("#.".into()),
        };
        BoardRules::new(spec, false).unwrap()
    }

    /// A random position of a rows × cols board: each cell covered with probability `p`.
    fn random(rules: &BoardRules, rows: u8, cols: u8, p: f64, rng: &mut fastrand::Rng) -> BPos {
        let text: Vec<String> =
            (0..rows).map(|_| (0..cols).map(|_| if rng.f64() < p { '.' } else { '#' }).collect()).collect();
        rules.parse(&text.join("/")).unwrap()
    }

    fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
        v.sort();
        v
    }

    /// Keys against the board descriptor's own moves, regions and symmetries, on random
    /// positions of square and oblong boards, both ways round: the same children one for one,
    /// the same parts (as the descriptor's canonical positions), the same move counts, and
    /// equal keys exactly for the regions the descriptor calls equal.
    #[test]
    fn keys_agree_with_the_board_descriptor() {
        let rules = cram();
        let mut rng = fastrand::Rng::with_seed(30);
        let mut classes: HashMap<((u8, u8), u64), BPos> = HashMap::new();
        let mut keys: HashMap<((u8, u8), BPos), u64> = HashMap::new();
        for (rows, cols) in [(4u8, 5u8), (5, 4), (5, 6), (6, 5), (3, 7), (6, 6), (8, 8), (1, 9), (9, 1), (4, 9), (2, 7)]
        {
            let sum = DominoSum::new(&rules.parse(&format!("{rows}x{cols}")).unwrap()).unwrap();
            for round in 0..300 {
                let p = random(&rules, rows, cols, [0.0, 0.2, 0.4, 0.6][round % 4], &mut rng);
                let key = sum.key_of(&p).unwrap();
                assert_eq!(sum.position_of(key), BPos { a: p.a | p.b, b: 0, ..p });
                // Children, one a move.
                let mut kids = Vec::new();
                sum.children_of(key, &mut kids);
                let want: Vec<u64> = rules.children(&p).iter().map(|c| sum.key_of(c).unwrap()).collect();
                assert_eq!(sorted(kids), sorted(want), "{rows}x{cols} {}", rules.format(&p));
                assert_eq!(sum.moves_of(key) as usize, rules.move_count(&p));
                // Parts, compared as the descriptor's canonical positions.
                let mut parts = Vec::new();
                sum.regions_of(key, &mut parts);
                let got: Vec<BPos> = parts.iter().map(|&k| rules.canonical(&sum.position_of(k))).collect();
                let want: Vec<BPos> = rules.split(&p).unwrap().iter().map(|q| rules.canonical(q)).collect();
                assert_eq!(sorted(got.clone()), sorted(want), "{rows}x{cols} {}", rules.format(&p));
                // A part's key is canonical: its own canonical key, and one key per class.
                for (&k, c) in parts.iter().zip(&got) {
                    let mut again = Vec::new();
                    sum.regions_of(k, &mut again);
                    assert_eq!(again, vec![k]);
                    // Keys of one board size: one region a key, one key a region.
                    let board = (rows.min(cols), rows.max(cols));
                    assert_eq!(*classes.entry((board, k)).or_insert(*c), *c, "{rows}x{cols}: two regions for one key");
                    assert_eq!(*keys.entry((board, *c)).or_insert(k), k, "{rows}x{cols}: two keys for one region");
                }
            }
        }
    }

    /// The eight images of a region given as cells, each moved to the top-left corner,
    /// kept where it fits on a board of `rows` × `w` (a second implementation, by coordinates).
    fn images(cells: &[(u32, u32)], rows: u32, w: u32) -> Vec<u64> {
        let mut out = Vec::new();
        for t in 0..8 {
            let moved: Vec<(i64, i64)> = cells
                .iter()
                .map(|&(r, c)| {
                    let (r, c) = (i64::from(r), i64::from(c));
                    let (r, c) = if t & 4 != 0 { (c, r) } else { (r, c) };
                    (if t & 1 != 0 { -r } else { r }, if t & 2 != 0 { -c } else { c })
                })
                .collect();
            let r0 = moved.iter().map(|p| p.0).min().unwrap();
            let c0 = moved.iter().map(|p| p.1).min().unwrap();
            let fits = moved.iter().all(|&(r, c)| r - r0 < i64::from(rows) && c - c0 < i64::from(w));
            if fits {
                out.push(moved.iter().fold(0u64, |k, &(r, c)| k | 1 << ((r - r0) as u32 * w + (c - c0) as u32)));
            }
        }
        out
    }

    /// The part key of every connected region of a few boxes (every subset of their cells)
    /// is the least of its images that fit on the board (by coordinates, above), every image
    /// of it has the same key, wherever on the board it lies, and `None` (the mirror
    /// strategy) only for a region that is its own half turn: through the table of small
    /// regions and without it.
    #[test]
    fn part_keys_are_canonical() {
        let rules = cram();
        // Boards, and the cells (a box in the corner) whose subsets are tried.
        for (board, box_bits) in [("4x9", 16u32), ("3x5", 15), ("4x4", 16), ("2x7", 14), ("5x6", 15), ("6x8", 16)] {
            let sum = DominoSum::new(&rules.parse(board).unwrap()).unwrap();
            let (rows, w) = (sum.rows, sum.w);
            let mut regions = 0;
            for x in 1u64..1 << box_bits {
                if x & (x - 1) == 0 || sum.fill(x & x.wrapping_neg(), x, 0) != x {
                    continue;
                }
                regions += 1;
                let cells: Vec<(u32, u32)> = (0..64).filter(|i| x >> i & 1 == 1).map(|i| (i / w, i % w)).collect();
                let all = images(&cells, rows, w);
                let least = *all.iter().min().unwrap();
                let got = sum.part_key(x);
                let (c, h, wd) = sum.corner(x);
                assert_eq!(got, sum.part_key_at(c, h, wd), "{board}: {x:#x}, the table against the images");
                match got {
                    Some(k) => assert_eq!(k, least, "{board}: {x:#x}"),
                    None => {
                        // The mirror strategy, by coordinates: the region is its own half turn,
                        // and no domino on two of its cells meets its image.
                        let lo = |f: fn(&(u32, u32)) -> u32| cells.iter().map(f).min().unwrap();
                        let hi = |f: fn(&(u32, u32)) -> u32| cells.iter().map(f).max().unwrap();
                        let (rr, cc) = (lo(|p| p.0) + hi(|p| p.0), lo(|p| p.1) + hi(|p| p.1));
                        let turn = |p: (u32, u32)| (rr - p.0, cc - p.1);
                        for &p in &cells {
                            assert!(cells.contains(&turn(p)), "{board}: {x:#x} is not its own half turn");
                            for q in [(p.0 + 1, p.1), (p.0, p.1 + 1)] {
                                assert!(
                                    !(cells.contains(&q) && turn(p) == q),
                                    "{board}: {x:#x}: a domino meets its image"
                                );
                            }
                            assert_ne!(turn(p), p, "{board}: {x:#x}: the centre is a cell");
                        }
                    }
                }
                assert_eq!(sum.canonical(x), least, "{board}: {x:#x}");
                for &image in &all {
                    assert_eq!(sum.part_key(image), got, "{board}: {x:#x} and its image {image:#x}");
                    // The image a row down and a column right, where it fits.
                    let (_, ih, iwd) = sum.corner(image);
                    if ih < rows && iwd < w {
                        assert_eq!(sum.part_key(image << (w + 1)), got, "{board}: {image:#x} moved");
                    }
                }
            }
            assert!(regions > 100, "{board}: {regions} regions");
        }
    }
}

/// The endgame database of parts (`crate::solve::part_db`) on Cram's keys.
#[cfg(test)]
mod part_db_tests {
    use super::super::board::BoardRules;
    use super::super::load::{self, Place, Shape};
    use super::DominoSum;
    use crate::game::packed::PartBox;
    use crate::progress::Progress;
    use crate::solve::part_db::*;

    /// Cram's rules, read and checked from the shipped `games/cram.ron`.
    fn cram_rules() -> BoardRules {
        let text = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/games/cram.ron"));
        let place = Place { file: "cram.ron", text, budget: crate::solve::DEFAULT_MAX_MEMORY };
        match load::check(&place, load::parse(&place).unwrap(), None).unwrap().shape {
            Shape::Board(rules) => *rules,
            _ => panic!("cram.ron is not a board"),
        }
    }

    /// Cram's keys of the position `board` (the game's `packed_sum`).
    fn cram_keys(board: &str) -> DominoSum {
        DominoSum::new(&cram_rules().parse(board).unwrap()).unwrap()
    }

    /// Cram's space of keys on an `rows`×`cols` board (the key is `cols` wide when that is the
    /// shorter side, as here), and its parts within `bound`.
    fn cram(board: &str, bound: &str) -> Box<dyn PartBox> {
        Box::new(cram_keys(board).parts_within(bound).unwrap())
    }

    /// The Grundy value of every set of empty cells of a `w`-wide, `h`-high grid (bit
    /// `r * w + c`), by the plain mex: every domino across and down, no splitting, no
    /// reduction, no symmetry. A child (two cells fewer) is a smaller number, so one pass up.
    fn plain_mex(w: u32, h: u32) -> Vec<u8> {
        let n = w * h;
        let mut g = vec![0u8; 1 << n];
        for x in 0u64..1 << n {
            let mut seen = 0u128;
            for r in 0..h {
                for c in 0..w {
                    let i = r * w + c;
                    if c + 1 < w && x >> i & 3 == 3 {
                        seen |= 1 << g[(x & !(3 << i)) as usize];
                    }
                    if r + 1 < h && x >> i & 1 == 1 && x >> (i + w) & 1 == 1 {
                        seen |= 1 << g[(x & !(1 << i | 1 << (i + w))) as usize];
                    }
                }
            }
            g[x as usize] = (!seen).trailing_zeros() as u8;
        }
        g
    }

    /// Every position of the box, split by the game into parts, and each part looked up:
    /// every part below the bound is in the table (membership exact), and the XOR of the
    /// parts' nimbers is the position's Grundy value by the plain mex.
    fn agrees_with_plain_mex(db: &PartDb, parts: &dyn PartBox, w: u32, h: u32) {
        let truth = plain_mex(w, h);
        let mut ps = Vec::new();
        let mut members = 0;
        for x in 0u64..1 << (w * h) {
            ps.clear();
            parts.parts(x, &mut ps);
            let mut g = 0;
            for &p in &ps {
                assert!(p < 1 << parts.bits(), "a part of {x:#x} is outside the box");
                g ^= db.get(p).unwrap_or_else(|| panic!("the part {p:#x} of {x:#x} is not in the table"));
            }
            assert_eq!(g, u64::from(truth[x as usize]), "{x:#x}");
            members += usize::from(parts.is_part(x));
        }
        // The table holds exactly the keys the game calls parts.
        assert_eq!(db.len(), members);
    }

    #[test]
    fn the_table_of_a_box_agrees_with_the_plain_mex() {
        // All of 4×4 (its own box), and the first three rows of a 3-wide board of 5 rows.
        let parts = cram("4x4", "4x4");
        let db = PartDb::build(&*parts, "t", 1 << 30, &Progress::default()).unwrap();
        assert!(db.len() > 100);
        agrees_with_plain_mex(&db, &*parts, 4, 4);
        let parts = cram("5x3", "3x4");
        let db = PartDb::build(&*parts, "t", 1 << 30, &Progress::default()).unwrap();
        agrees_with_plain_mex(&db, &*parts, 3, 4);
    }

    #[test]
    fn a_saved_table_loads_with_the_same_answers_and_a_bad_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("gamesman-part-db-{}", std::process::id()));
        let path = dir.join("t.parts");
        let parts = cram("4x5", "4x4");
        let db = PartDb::build(&*parts, "game\0space\0bound", 1 << 30, &Progress::default()).unwrap();
        db.save(&path).unwrap();
        let back = PartDb::load(&path, "game\0space\0bound", parts.bits(), 1 << 30).unwrap();
        assert_eq!(back.len(), db.len());
        for k in 0..1 << 16 {
            assert_eq!(back.get(k), db.get(k));
        }
        // Another game's (or board's, or bound's) identity.
        let e = PartDb::load(&path, "game\0space\0other", parts.bits(), 1 << 30).unwrap_err();
        assert!(e.contains("another game"), "{e}");
        let bytes = std::fs::read(&path).unwrap();
        // Cut short, a byte changed, not a table at all, empty: each refused, with the reason.
        for (bad, why) in [
            (bytes[..bytes.len() - 10].to_vec(), "checksum"),
            (
                {
                    let mut b = bytes.clone();
                    b[bytes.len() / 2] ^= 1;
                    b
                },
                "checksum",
            ),
            (b"not a table, just some text".to_vec(), "not an endgame database"),
            (Vec::new(), "not an endgame database"),
        ] {
            std::fs::write(&path, &bad).unwrap();
            let e = PartDb::load(&path, "game\0space\0bound", parts.bits(), 1 << 30).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        // A valid checksum over a header that lies about its length.
        let mut b = bytes[..bytes.len() - 4].to_vec();
        b[20] ^= 1;
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        assert!(PartDb::load(&path, "game\0space\0bound", parts.bits(), 1 << 30).unwrap_err().contains("length"));
        // A header of 28 bytes and a valid checksum: too short to hold the identity's length.
        let mut b = bytes[..28].to_vec();
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        assert!(
            PartDb::load(&path, "game\0space\0bound", parts.bits(), 1 << 30)
                .unwrap_err()
                .contains("not an endgame database")
        );
        // Larger than the budget, or than a table of these keys can be (a sparse file: no
        // byte is read), and a FIFO (which would never end): refused before reading.
        std::fs::remove_file(&path).unwrap();
        std::fs::File::create(&path).unwrap().set_len(1 << 20).unwrap();
        let e = PartDb::load(&path, "game\0space\0bound", parts.bits(), 1 << 16).unwrap_err();
        assert!(e.contains("more than the 65536"), "{e}");
        std::fs::File::create(&path).unwrap().set_len(1 << 40).unwrap();
        let e = PartDb::load(&path, "game\0space\0bound", parts.bits(), usize::MAX).unwrap_err();
        assert!(e.contains("1099511627776 bytes, more than"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let c = std::ffi::CString::new(path.as_os_str().to_str().unwrap()).unwrap();
        // SAFETY: a valid C string and mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = PartDb::load(&path, "game\0space\0bound", parts.bits(), 1 << 30).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn one_table_serves_every_board_as_wide() {
        // Built on its own for each board: the same space, the same parts, the same nimbers.
        let dbs: Vec<(String, PartDb)> = ["4x4", "4x5", "7x4", "4x9"]
            .iter()
            .map(|board| {
                let parts = cram(board, "4x3");
                let db = PartDb::build(&*parts, "id", 1 << 30, &Progress::default()).unwrap();
                (parts.space(), db)
            })
            .collect();
        for (space, db) in &dbs[1..] {
            assert_eq!(space, &dbs[0].0);
            assert_eq!(db.len(), dbs[0].1.len());
            for k in 0..1 << 12 {
                assert_eq!(db.get(k), dbs[0].1.get(k), "{k:#x}");
            }
        }
        assert!(dbs[0].1.len() > 100);
    }

    #[test]
    fn bounds_the_board_cannot_hold_are_refused() {
        let space = cram_keys("4x9");
        for (bound, why) in
            [("3x8", "shorter side"), ("4x10", "shorter side"), ("4", "not a box"), ("8x5x", "not a box")]
        {
            let e = space.parts_within(bound).err().unwrap();
            assert!(e.contains(why), "{bound}: {e}");
        }
        let space = cram_keys("6x7");
        assert!(space.parts_within("6x6").err().unwrap().contains("at most 32 cells"));
        assert_eq!(space.parts_within("5x6").unwrap().name(), "6x5");
    }
}
