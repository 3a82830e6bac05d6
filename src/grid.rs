//! A token grid: the `Grid` helper type of scripts, and the board of native grid games.
//!
//! Rows × columns of cells, each holding a token or not, bit-packed. What scripts need done
//! fast is done here: runs in rows and columns, 4-connected components, and the canonical
//! form under translation and the 8 symmetries of the square.

use gridkit::{pbm, symmetry, symmetry_dims};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Grid {
    rows: usize,
    cols: usize,
    /// Cell (r, c) is bit `r * cols + c`.
    bits: Vec<u64>,
}

/// A contiguous run of cells in one row or one column, inclusive: (r0, c0) to (r1, c1).
pub type Segment = [usize; 4];

impl crate::game::Footprint for Grid {
    fn heap_bytes(&self) -> usize {
        Grid::heap_bytes(self)
    }
}

impl Grid {
    pub fn new(rows: usize, cols: usize) -> Grid {
        Grid { rows, cols, bits: vec![0; (rows * cols).div_ceil(64)] }
    }

    pub fn full(rows: usize, cols: usize) -> Grid {
        let mut g = Grid::new(rows, cols);
        for i in 0..rows * cols {
            g.bits[i / 64] |= 1 << (i % 64);
        }
        g
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn heap_bytes(&self) -> usize {
        self.bits.capacity() * 8
    }

    pub fn in_bounds(&self, r: i64, c: i64) -> bool {
        r >= 0 && c >= 0 && (r as usize) < self.rows && (c as usize) < self.cols
    }

    /// Row `r` as words of bits (bit c = cell (r, c)).
    pub fn row_words(&self, r: usize) -> Vec<u64> {
        let w = self.cols;
        let mut out = vec![0u64; w.div_ceil(64)];
        let start = r * w;
        for (k, word) in out.iter_mut().enumerate() {
            let bit = start + k * 64;
            let (i, sh) = (bit / 64, bit % 64);
            let mut v = self.bits[i] >> sh;
            if sh > 0 && i + 1 < self.bits.len() {
                v |= self.bits[i + 1] << (64 - sh);
            }
            *word = v;
        }
        if !w.is_multiple_of(64)
            && let Some(last) = out.last_mut()
        {
            *last &= (1u64 << (w % 64)) - 1;
        }
        out
    }

    /// XOR `words` (bits 0..cols) into row `r`.
    pub fn xor_row_words(&mut self, r: usize, words: &[u64]) {
        let w = self.cols;
        let start = r * w;
        for (k, &v) in words.iter().enumerate() {
            let base = k * 64;
            if base >= w {
                break;
            }
            let v = if w - base < 64 { v & ((1u64 << (w - base)) - 1) } else { v };
            let bit = start + base;
            let (i, sh) = (bit / 64, bit % 64);
            self.bits[i] ^= v << sh;
            if sh > 0 && i + 1 < self.bits.len() {
                self.bits[i + 1] ^= v >> (64 - sh);
            }
        }
    }

    pub fn get(&self, r: usize, c: usize) -> bool {
        let i = r * self.cols + c;
        self.bits[i / 64] >> (i % 64) & 1 == 1
    }

    pub fn set(&mut self, r: usize, c: usize, on: bool) {
        let i = r * self.cols + c;
        if on {
            self.bits[i / 64] |= 1 << (i % 64);
        } else {
            self.bits[i / 64] &= !(1 << (i % 64));
        }
    }

    pub fn toggle(&mut self, r: usize, c: usize) {
        let i = r * self.cols + c;
        self.bits[i / 64] ^= 1 << (i % 64);
    }

    /// Toggle (r, c) and its up/down/left/right neighbours (a Lights Out press).
    pub fn toggle_plus(&mut self, r: usize, c: usize) {
        self.toggle(r, c);
        if r > 0 {
            self.toggle(r - 1, c);
        }
        if r + 1 < self.rows {
            self.toggle(r + 1, c);
        }
        if c > 0 {
            self.toggle(r, c - 1);
        }
        if c + 1 < self.cols {
            self.toggle(r, c + 1);
        }
    }

    /// The cells holding a token, as (row, column) in reading order.
    pub fn cells(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.bits.iter().enumerate().flat_map(move |(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let i = wi * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    (i / self.cols, i % self.cols)
                })
            })
        })
    }

    /// The same cells as a TacTix solver board.
    pub fn to_board(&self) -> pbm::Board {
        let mut b = pbm::Board::new(self.cols, self.rows);
        for (r, c) in self.cells() {
            b.set(r, c, true);
        }
        b
    }

    /// Cells on in exactly one of two grids of the same size.
    pub fn xor(&self, other: &Grid) -> Grid {
        debug_assert_eq!((self.rows, self.cols), (other.rows, other.cols));
        Grid { rows: self.rows, cols: self.cols, bits: self.bits.iter().zip(&other.bits).map(|(a, b)| a ^ b).collect() }
    }

    pub fn count(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    /// Read a grid: a plain PBM (`P1 …`), or rows of cells separated by newlines or `/`,
    /// where `#`, `1`, `x`, `X`, `*` are tokens and `0`, `.`, `-`, `_` are empty.
    pub fn parse(text: &str) -> Result<Grid, String> {
        let t = text.trim_start();
        if t.starts_with("P1") || t.starts_with('#') && t.lines().any(|l| l.trim_start().starts_with("P1")) {
            let b = pbm::parse(text.as_bytes()).map_err(|e| e.0)?;
            let mut g = Grid::new(b.height, b.width);
            for r in 0..b.height {
                for c in 0..b.width {
                    if b.get(r, c) {
                        g.set(r, c, true);
                    }
                }
            }
            return Ok(g);
        }
        let lines: Vec<&str> = text.split(['\n', '/']).map(str::trim).filter(|l| !l.is_empty()).collect();
        if lines.is_empty() {
            return Err("empty grid: give rows of cells such as `#0#/000` (or a P1 PBM)".into());
        }
        let cols = lines[0].chars().count();
        let mut g = Grid::new(lines.len(), cols);
        for (r, line) in lines.iter().enumerate() {
            if line.chars().count() != cols {
                return Err(format!(
                    "row {} has {} cells but row 1 has {cols}: every row must be as long",
                    r + 1,
                    line.chars().count()
                ));
            }
            for (c, ch) in line.chars().enumerate() {
                match ch {
                    '#' | '1' | 'x' | 'X' | '*' => g.set(r, c, true),
                    '0' | '.' | '-' | '_' => {}
                    other => {
                        return Err(format!(
                            "row {}, column {}: {other:?} is not a cell (use # or 1 for a token, 0 or . for none)",
                            r + 1,
                            c + 1
                        ));
                    }
                }
            }
        }
        Ok(g)
    }

    /// A board optionally followed by `@k` (the first k cells, in reading order, decided),
    /// as Lights Out positions are written.
    pub fn parse_at(text: &str) -> Result<(Grid, usize), String> {
        let (rows, next) = match text.split_once('@') {
            Some((rows, k)) => {
                let k: usize =
                    k.trim().parse().map_err(|_| format!("{} is not a light index", crate::input::quote(k.trim())))?;
                (rows, k)
            }
            None => (text, 0),
        };
        let board = Grid::parse(rows)?;
        if next > board.rows() * board.cols() {
            return Err(format!("@{next} is outside the board"));
        }
        Ok((board, next))
    }

    /// A cell as a person types it, `row:col` from 0, as its index in reading order.
    pub fn parse_cell(&self, text: &str) -> Result<usize, String> {
        let bad = || {
            format!(
                "{:?}: a press is row:col, from 0:0 to {}:{}",
                text.trim(),
                self.rows.saturating_sub(1),
                self.cols.saturating_sub(1)
            )
        };
        let (r, c) = text.trim().split_once(':').ok_or_else(bad)?;
        let (r, c): (usize, usize) = (r.trim().parse().map_err(|_| bad())?, c.trim().parse().map_err(|_| bad())?);
        if r >= self.rows || c >= self.cols {
            return Err(bad());
        }
        Ok(r * self.cols + c)
    }

    pub fn to_pbm(&self) -> String {
        pbm::write(self.cols, self.rows, |r, c| self.get(r, c))
    }

    /// Rows of `on`/`off` characters joined by `sep`.
    pub fn to_rows(&self, on: char, off: char, sep: &str) -> String {
        let mut s = String::with_capacity(self.rows * (self.cols + sep.len()));
        for r in 0..self.rows {
            if r > 0 {
                s.push_str(sep);
            }
            for c in 0..self.cols {
                s.push(if self.get(r, c) { on } else { off });
            }
        }
        s
    }

    /// The smallest grid holding every token (empty rows and columns at the edges removed).
    pub fn crop(&self) -> Grid {
        let (mut r0, mut r1, mut c0, mut c1) = (usize::MAX, 0, usize::MAX, 0);
        for r in 0..self.rows {
            for c in 0..self.cols {
                if self.get(r, c) {
                    r0 = r0.min(r);
                    r1 = r1.max(r);
                    c0 = c0.min(c);
                    c1 = c1.max(c);
                }
            }
        }
        if r0 == usize::MAX {
            return Grid::new(0, 0);
        }
        let mut g = Grid::new(r1 - r0 + 1, c1 - c0 + 1);
        for r in r0..=r1 {
            for c in c0..=c1 {
                if self.get(r, c) {
                    g.set(r - r0, c - c0, true);
                }
            }
        }
        g
    }

    /// One of the 8 symmetries of the square: bit 2 transposes, bit 0 flips the rows
    /// (top to bottom), bit 1 flips the columns (left to right).
    pub fn transform(&self, t: u8) -> Grid {
        let (rows, cols) = symmetry_dims(t, self.rows, self.cols);
        let mut g = Grid::new(rows, cols);
        for (r, c) in self.cells() {
            let (nr, nc) = symmetry(t, self.rows, self.cols, r, c);
            g.set(nr, nc, true);
        }
        g
    }

    /// The representative of this grid under translation and the 8 symmetries of the square
    /// (the least of the 8 cropped images), so congruent shapes share one memo entry.
    pub fn canonical(&self) -> Grid {
        let c = self.crop();
        (1..8).map(|t| c.transform(t)).fold(c.clone(), |best, g| if g < best { g } else { best })
    }

    /// The 4-connected groups of tokens, each cropped to its bounding box, in the order of
    /// their first cell (row by row).
    pub fn components(&self) -> Vec<Grid> {
        gridkit::components(self.rows, self.cols, |r, c| self.get(r, c))
            .into_iter()
            .map(|cells| {
                let (r0, c0) = cells.iter().fold((usize::MAX, usize::MAX), |(a, b), &(r, c)| (a.min(r), b.min(c)));
                let (r1, c1) = cells.iter().fold((0, 0), |(a, b), &(r, c)| (a.max(r), b.max(c)));
                let mut part = Grid::new(r1 - r0 + 1, c1 - c0 + 1);
                for (r, c) in cells {
                    part.set(r - r0, c - c0, true);
                }
                part
            })
            .collect()
    }

    /// How many segments [`Grid::segments`] lists, counted without listing them (a row of
    /// 100,000 tokens has five billion).
    pub fn segment_count(&self) -> u64 {
        self.segment_count_within(1, usize::MAX)
    }

    /// How many segments [`Grid::segments_within`] lists, counted without listing them.
    pub fn segment_count_within(&self, min: usize, max: usize) -> u64 {
        // Runs of `len` cells that a line of `len` tokens holds, with length in min..=max.
        let runs = |len: usize, min: usize| -> u64 {
            let (lo, hi) = (min.max(1) as u64, max.min(len) as u64);
            if lo > hi {
                return 0;
            }
            // Σ_{k=lo}^{hi} (len − k + 1)
            let len = len as u64;
            (hi - lo + 1) * (len + 1) - (lo + hi) * (hi - lo + 1) / 2
        };
        let mut n = 0u64;
        for r in 0..self.rows {
            let mut len = 0;
            for c in 0..=self.cols {
                if c < self.cols && self.get(r, c) {
                    len += 1;
                } else {
                    n = n.saturating_add(runs(len, min));
                    len = 0;
                }
            }
        }
        for c in 0..self.cols {
            let mut len = 0;
            for r in 0..=self.rows {
                if r < self.rows && self.get(r, c) {
                    len += 1;
                } else {
                    // Single cells were counted with the rows.
                    n = n.saturating_add(runs(len, min.max(2)));
                    len = 0;
                }
            }
        }
        n
    }

    /// Every contiguous run of tokens within one row or one column, each single cell listed
    /// once: row runs first (row by row, left to right), then column runs of length ≥ 2.
    pub fn segments(&self) -> Vec<Segment> {
        self.segments_within(1, usize::MAX)
    }

    /// The segments of [`Grid::segments`] whose length (cells) is between `min` and `max`,
    /// in the same order: `segments_within(2, 2)` lists the places for a domino.
    pub fn segments_within(&self, min: usize, max: usize) -> Vec<Segment> {
        let mut out = Vec::new();
        for r in 0..self.rows {
            for c0 in 0..self.cols {
                let mut c1 = c0;
                while c1 < self.cols && c1 - c0 < max && self.get(r, c1) {
                    if c1 - c0 + 1 >= min {
                        out.push([r, c0, r, c1]);
                    }
                    c1 += 1;
                }
            }
        }
        for c in 0..self.cols {
            for r0 in 0..self.rows {
                let mut r1 = r0;
                while r1 < self.rows && r1 - r0 < max && self.get(r1, c) {
                    if r1 > r0 && r1 - r0 + 1 >= min {
                        out.push([r0, c, r1, c]);
                    }
                    r1 += 1;
                }
            }
        }
        out
    }

    /// This grid with the cells of `seg` emptied.
    pub fn without(&self, seg: Segment) -> Grid {
        let mut g = self.clone();
        for r in seg[0]..=seg[2] {
            for c in seg[1]..=seg[3] {
                g.set(r, c, false);
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_and_pbm_alike() {
        let a = Grid::parse("#0#/0#0").unwrap();
        let b = Grid::parse("P1\n3 2\n1 0 1\n0 1 0\n").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.count(), 3);
        assert_eq!(a.to_rows('#', '0', "/"), "#0#/0#0");
        assert_eq!(Grid::parse(&a.to_pbm()).unwrap(), a);
        assert!(Grid::parse("#0/#").is_err());
        assert!(Grid::parse("#q").is_err());
    }

    #[test]
    fn the_eight_symmetries_of_an_l_tromino_agree() {
        // An L tromino in all four rotations and their mirror images.
        let shapes = ["#0/##", "##/#0", "##/0#", "0#/##"];
        let c = Grid::parse(shapes[0]).unwrap().canonical();
        for s in shapes {
            assert_eq!(Grid::parse(s).unwrap().canonical(), c, "{s}");
        }
        // Translation: the same shape inside a larger grid.
        assert_eq!(Grid::parse("000/0#0/0##").unwrap().canonical(), c);
        // A straight tromino is a different shape.
        assert_ne!(Grid::parse("###").unwrap().canonical(), c);
    }

    #[test]
    fn components_are_4_connected() {
        let g = Grid::parse("##0#/0000/#0##/0#00").unwrap();
        // (0,0)-(0,1); (0,3); (2,0); (2,2)-(2,3); (3,1): diagonal neighbours do not connect.
        let parts = g.components();
        assert_eq!(parts.len(), 5);
        assert_eq!(parts.iter().map(Grid::count).sum::<usize>(), g.count());
    }

    #[test]
    fn segments_of_a_2x2_square() {
        // 4 single cells, 2 row pairs and 2 column pairs.
        assert_eq!(Grid::full(2, 2).segments().len(), 8);
        assert_eq!(Grid::full(2, 2).segment_count(), 8);
        // A bar of 3: 3 + 2 + 1 runs.
        assert_eq!(Grid::full(1, 3).segments().len(), 6);
        assert_eq!(Grid::full(3, 1).segment_count(), 6);
        let g = Grid::parse("#0##/####/0#0#").unwrap();
        assert_eq!(g.segment_count(), g.segments().len() as u64);
    }

    #[test]
    fn segments_within_lengths() {
        // Dominoes on a full 3×4 board: 3 in each of 3 rows, 2 in each of 4 columns.
        assert_eq!(Grid::full(3, 4).segments_within(2, 2).len(), 17);
        // Runs of 2 or 3: rows 3·(3 + 2), columns 4·(2 + 1).
        assert_eq!(Grid::full(3, 4).segments_within(2, 3).len(), 27);
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..200 {
            let (rows, cols) = (rng.usize(1..7), rng.usize(1..7));
            let mut g = Grid::new(rows, cols);
            for r in 0..rows {
                for c in 0..cols {
                    g.set(r, c, rng.u8(..4) != 0);
                }
            }
            for (min, max) in [(1, usize::MAX), (1, 1), (2, 2), (2, 4), (3, 9)] {
                let len = |s: &Segment| s[2] - s[0] + s[3] - s[1] + 1;
                let want: Vec<Segment> = g.segments().into_iter().filter(|s| (min..=max).contains(&len(s))).collect();
                assert_eq!(g.segments_within(min, max), want, "{min}..{max} on {}", g.to_rows('#', '0', "/"));
                assert_eq!(g.segment_count_within(min, max), want.len() as u64);
            }
        }
    }
}
