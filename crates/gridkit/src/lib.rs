//! Grids of cells, whatever they hold: where a cell goes under the 8 symmetries of the
//! square, the 4-connected components of a grid, and plain PBM (`P1`) boards ([`pbm`]).
//! Shared by the TacTix contest solver (`crates/tactix`) and gamesman's token grid. No
//! dependencies, so that the contest binary still builds for a PlayStation 2.

pub mod pbm;

/// The size of a `rows` × `cols` grid after symmetry `t` (see [`symmetry`]).
#[inline]
pub fn symmetry_dims(t: u8, rows: usize, cols: usize) -> (usize, usize) {
    if t & 4 != 0 { (cols, rows) } else { (rows, cols) }
}

/// Where cell (r, c) of a `rows` × `cols` grid goes under one of the 8 symmetries of the
/// square: bit 2 of `t` transposes, then bit 0 flips the rows and bit 1 the columns.
#[inline]
pub fn symmetry(t: u8, rows: usize, cols: usize, r: usize, c: usize) -> (usize, usize) {
    let (rows, cols) = symmetry_dims(t, rows, cols);
    let (mut nr, mut nc) = if t & 4 != 0 { (c, r) } else { (r, c) };
    if t & 1 != 0 {
        nr = rows - 1 - nr;
    }
    if t & 2 != 0 {
        nc = cols - 1 - nc;
    }
    (nr, nc)
}

/// The 4-connected groups of the cells of a `rows` × `cols` grid where `on` holds, as cell
/// lists, in the order of their first cell (row by row). One flood fill for every grid type.
pub fn components(rows: usize, cols: usize, on: impl Fn(usize, usize) -> bool) -> Vec<Vec<(usize, usize)>> {
    let mut seen = vec![false; rows * cols];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            if seen[r * cols + c] || !on(r, c) {
                continue;
            }
            let mut cells = Vec::new();
            seen[r * cols + c] = true;
            stack.push((r, c));
            while let Some((r, c)) = stack.pop() {
                cells.push((r, c));
                let mut visit = |r: usize, c: usize| {
                    if !seen[r * cols + c] && on(r, c) {
                        seen[r * cols + c] = true;
                        stack.push((r, c));
                    }
                };
                if r > 0 {
                    visit(r - 1, c);
                }
                if r + 1 < rows {
                    visit(r + 1, c);
                }
                if c > 0 {
                    visit(r, c - 1);
                }
                if c + 1 < cols {
                    visit(r, c + 1);
                }
            }
            out.push(cells);
        }
    }
    out
}
