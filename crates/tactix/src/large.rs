//! Components too big for an 8×8 bitboard: a cropped grid of bits, slower but general.

pub use gridkit::{components, symmetry, symmetry_dims};

/// A shape: `rows` × `cols` cells, each row `stride` 64-bit words.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    pub rows: usize,
    pub cols: usize,
    words: Vec<u64>,
}

impl Shape {
    pub fn new(rows: usize, cols: usize) -> Shape {
        Shape { rows, cols, words: vec![0; rows * cols.div_ceil(64)] }
    }

    fn stride(&self) -> usize {
        self.cols.div_ceil(64)
    }

    pub fn get(&self, r: usize, c: usize) -> bool {
        self.words[r * self.stride() + c / 64] >> (c % 64) & 1 == 1
    }

    pub fn set(&mut self, r: usize, c: usize, on: bool) {
        let s = self.stride();
        let w = &mut self.words[r * s + c / 64];
        if on {
            *w |= 1 << (c % 64);
        } else {
            *w &= !(1 << (c % 64));
        }
    }

    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn bytes(&self) -> usize {
        self.words.len() * 8 + std::mem::size_of::<Shape>()
    }

    /// A shape holding `cells`, cropped to their bounding box.
    pub fn from_cells(cells: &[(usize, usize)]) -> Shape {
        let r0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let c0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
        let r1 = cells.iter().map(|c| c.0).max().unwrap_or(0);
        let c1 = cells.iter().map(|c| c.1).max().unwrap_or(0);
        let mut s = Shape::new(r1 - r0 + 1, c1 - c0 + 1);
        for &(r, c) in cells {
            s.set(r - r0, c - c0, true);
        }
        s
    }

    /// The 8×8 bitboard of this shape, if it fits.
    pub fn to_small(&self) -> Option<u64> {
        if self.rows > 8 || self.cols > 8 {
            return None;
        }
        let mut b = 0;
        for r in 0..self.rows {
            b |= (self.words[r] & 0xFF) << (8 * r);
        }
        Some(b)
    }

    /// The 8×16 bitboard of this shape laid with its short side as rows (see
    /// [`crate::wide`]), if it fits one and not an 8×8 one.
    pub fn to_wide(&self) -> Option<u128> {
        let (short, long) = (self.rows.min(self.cols), self.rows.max(self.cols));
        if short > 8 || long > 16 || long <= 8 {
            return None;
        }
        let mut b = 0u128;
        for r in 0..self.rows {
            for c in 0..self.cols {
                if self.get(r, c) {
                    let (i, j) = if self.rows <= 8 { (r, c) } else { (c, r) };
                    b |= 1 << (16 * i + j);
                }
            }
        }
        Some(b)
    }

    /// One of the 8 symmetries (see [`symmetry`]).
    fn transform(&self, t: u8) -> Shape {
        let (rows, cols) = symmetry_dims(t, self.rows, self.cols);
        let mut s = Shape::new(rows, cols);
        for r in 0..self.rows {
            for c in 0..self.cols {
                if self.get(r, c) {
                    let (nr, nc) = symmetry(t, self.rows, self.cols, r, c);
                    s.set(nr, nc, true);
                }
            }
        }
        s
    }

    /// The least of the 8 images: equal for congruent shapes.
    pub fn canonical(&self) -> Shape {
        (1..8).map(|t| self.transform(t)).fold(self.clone(), |best, s| if s < best { s } else { best })
    }

    pub fn is_bar(&self) -> bool {
        self.rows == 1 || self.cols == 1
    }

    /// The 4-connected components, as shapes cropped to their bounding boxes.
    pub fn parts(&self) -> Vec<Shape> {
        self.components().iter().map(|cells| Shape::from_cells(cells)).collect()
    }

    /// The 4-connected components, as cell lists.
    pub fn components(&self) -> Vec<Vec<(usize, usize)>> {
        components(self.rows, self.cols, |r, c| self.get(r, c))
    }
}
