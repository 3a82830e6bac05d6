//! Bitboards: a board's cells as bits of a `u128` (cell (r, c) at bit `r * (cols + 1) + c`),
//! lines, Hex chains, the symmetries of the square on bits, the cells nearest the centre,
//! and the sizes a position text may give.

use super::vocab::BoardShape;

/// The most cells a board holds, counting one guard cell at the end of each row.
pub(super) const BITS: usize = 128;

/// Bit `r * w + c` set for every cell of a rows × cols board (w = cols + 1).
#[inline]
pub(super) fn full_mask(rows: u8, cols: u8) -> u128 {
    let w = cols as usize + 1;
    let row = (1u128 << cols) - 1;
    (0..rows as usize).fold(0, |m, r| m | row << (r * w))
}

#[inline]
pub(super) fn shr(x: u128, n: usize) -> u128 {
    if n >= BITS { 0 } else { x >> n }
}

#[inline]
pub(super) fn shl(x: u128, n: usize) -> u128 {
    if n >= BITS { 0 } else { x << n }
}

/// k set cells in a row anywhere in `x` (guard columns hold no marks).
#[inline]
pub(super) fn has_line(x: u128, cols: u8, k: u8) -> bool {
    if k == 0 {
        return false;
    }
    let w = cols as usize + 1;
    [1, w, w + 1, w - 1].iter().any(|&d| {
        if d == 0 {
            return false;
        }
        let mut y = x;
        for i in 1..k as usize {
            y &= shr(x, i * d);
            if y == 0 {
                return false;
            }
        }
        y != 0
    })
}

/// The cells of a Hex board next to the cells of `x`.
#[inline]
fn hex_spread(x: u128, cols: u8, full: u128) -> u128 {
    let w = cols as usize + 1;
    (x | x << 1 | x >> 1 | shl(x, w) | x >> w | shl(x, w - 1) | x >> (w - 1)) & full
}

/// Does `stones` (the first player's when `first`) join its owner's two sides?
#[inline]
pub(super) fn joined(stones: u128, rows: u8, cols: u8, first: bool) -> bool {
    let w = cols as usize + 1;
    let full = full_mask(rows, cols);
    let (from, to) = if first {
        let top = (1u128 << cols) - 1;
        (top, top << ((rows as usize - 1) * w))
    } else {
        let left = (0..rows as usize).fold(0u128, |m, r| m | 1 << (r * w));
        (left, left << (cols - 1))
    };
    let mut reach = stones & from;
    loop {
        if reach & to != 0 {
            return true;
        }
        let next = hex_spread(reach, cols, full) & stones;
        if next == reach {
            return false;
        }
        reach = next;
    }
}

/// A board's shape, rows, columns and whether by the column alone: what an order is for.
type OrderKey = (BoardShape, u8, u8, bool);

thread_local! {
    /// [`centre_first`]'s orders, one a board size and shape met on this thread.
    static CENTRE_FIRST: std::cell::RefCell<Vec<(OrderKey, Vec<u8>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Calls `f` with the cells (bit indices) of a rows × cols board nearest its centre first
/// (on a Hex rhombus by the hexagons' distance, elsewhere by the straight-line one, or by
/// the column's alone with `columns`; ties in reading order). Worked out once a size and
/// kept for the thread.
pub(super) fn centre_first(shape: BoardShape, rows: u8, cols: u8, columns: bool, f: impl FnOnce(&[u8])) {
    CENTRE_FIRST.with(|cache| {
        let mut cache = cache.borrow_mut();
        let at = match cache.iter().position(|(k, _)| *k == (shape, rows, cols, columns)) {
            Some(at) => at,
            None => {
                let w = cols as usize + 1;
                let mut cells: Vec<(i32, u8)> = Vec::with_capacity(rows as usize * cols as usize);
                for r in 0..rows as i32 {
                    for c in 0..cols as i32 {
                        // Doubled offsets from the centre, so that an even side has one too.
                        let (dr, dc) = (2 * r - (rows as i32 - 1), 2 * c - (cols as i32 - 1));
                        let far = match shape {
                            _ if columns => dc.abs(),
                            BoardShape::Hex => dr.abs() + dc.abs() + (dr + dc).abs(),
                            _ => dr * dr + dc * dc,
                        };
                        cells.push((far, (r as usize * w + c as usize) as u8));
                    }
                }
                cells.sort();
                cache.push(((shape, rows, cols, columns), cells.into_iter().map(|c| c.1).collect()));
                cache.len() - 1
            }
        };
        f(&cache[at].1)
    })
}

/// The image of the cells of `x` (a rows × cols board) under symmetry `t`: bit 1 turns the
/// board upside down, bit 2 mirrors it left-right, bit 4 transposes it (rows become columns).
#[inline]
pub(super) fn transform(x: u128, rows: u8, cols: u8, t: u8) -> u128 {
    if x == 0 {
        return 0;
    }
    let x = match t & 3 {
        0 => x,
        1 => flip_rows(x, rows, cols),
        2 => half_turn(flip_rows(x, rows, cols), rows, cols),
        _ => half_turn(x, rows, cols),
    };
    if t & 4 == 0 {
        return x;
    }
    let (w, rows, cols) = (cols as usize + 1, rows as usize, cols as usize);
    // Row r's cells go to column r of the transposed board (w' = rows + 1): each byte of
    // the row, spread by a table to every w'-th bit, shifted into place.
    let nw = rows + 1;
    let row_mask = (1u128 << cols) - 1;
    let mut out = 0u128;
    match spread_table(nw) {
        Some(spread) => {
            for r in 0..rows {
                let mut bits = (x >> (r * w)) & row_mask;
                let mut at = r;
                while bits != 0 {
                    out |= spread[(bits & 0xff) as usize] << at;
                    bits >>= 8;
                    at += 8 * nw;
                }
            }
        }
        None => {
            for r in 0..rows {
                let mut bits = (x >> (r * w)) & row_mask;
                while bits != 0 {
                    let c = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    out |= 1 << (c * nw + r);
                }
            }
        }
    }
    out
}

/// The board upside down: row r to row rows-1-r (on a 64-bit word where the board fits).
#[inline]
fn flip_rows(x: u128, rows: u8, cols: u8) -> u128 {
    let (w, rows) = (cols as usize + 1, rows as usize);
    if rows * w <= 64 {
        let (x, row) = (x as u64, (1u64 << cols) - 1);
        let mut out = 0u64;
        for r in 0..rows {
            out |= ((x >> (r * w)) & row) << ((rows - 1 - r) * w);
        }
        return u128::from(out);
    }
    let row = (1u128 << cols) - 1;
    (0..rows).fold(0u128, |m, r| m | ((x >> (r * w)) & row) << ((rows - 1 - r) * w))
}

/// The half turn, (r, c) to (rows-1-r, cols-1-c): the whole word reversed.
#[inline]
fn half_turn(x: u128, rows: u8, cols: u8) -> u128 {
    let n = rows as usize * (cols as usize + 1) - 1;
    if n <= 64 {
        return u128::from((x as u64).reverse_bits() >> (64 - n));
    }
    x.reverse_bits() >> (BITS - n)
}

/// The images of `x` under the symmetries 0 to 3 of `transform` (none, upside down, the
/// other flip, the half turn), with one flip of the rows for all four.
#[inline]
pub(super) fn flips(x: u128, rows: u8, cols: u8) -> [u128; 4] {
    if x == 0 {
        return [0; 4];
    }
    let f = flip_rows(x, rows, cols);
    [x, f, half_turn(f, rows, cols), half_turn(x, rows, cols)]
}

/// A transpose spreads a row a byte (8 columns) at a time: bit j of the byte goes to bit
/// j × w', w' the transposed board's row width. One table of 256 for each w' up to 16 (boards
/// of up to 15 rows), made at first use; wider ones go cell by cell.
#[inline]
fn spread_table(nw: usize) -> Option<&'static [u128; 256]> {
    static TABLES: [std::sync::OnceLock<[u128; 256]>; 17] = [const { std::sync::OnceLock::new() }; 17];
    let cell = TABLES.get(nw)?;
    Some(cell.get_or_init(|| {
        let mut t = [0u128; 256];
        for (byte, slot) in t.iter_mut().enumerate() {
            for j in 0..8 {
                if byte >> j & 1 != 0 && j * nw < BITS {
                    *slot |= 1u128 << (j * nw);
                }
            }
        }
        t
    }))
}

/// The transpose of the cells of `x` (`transform` 4), cell by cell over the fewer of the
/// board's set and clear cells.
#[inline]
pub(super) fn transpose(x: u128, rows: u8, cols: u8) -> u128 {
    let full = full_mask(rows, cols);
    if (x & full).count_ones() * 2 <= rows as u32 * cols as u32 {
        transform(x, rows, cols, 4)
    } else {
        full_mask(cols, rows) & !transform(full & !x, rows, cols, 4)
    }
}

/// "RxC" (also "R×C"), with an optional "kK" after it.
pub(super) fn parse_size(head: &str) -> Result<(u8, u8, Option<u8>), String> {
    let h = head.to_ascii_lowercase().replace('×', "x");
    let bad = || format!("{head:?} is not a board size: write rows x columns, such as 3x3 (or 4x5k4 with k)");
    let (r, rest) = h.split_once('x').ok_or_else(bad)?;
    let (c, k) = match rest.split_once('k') {
        Some((c, k)) => (c, Some(k)),
        None => (rest, None),
    };
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
    let (r, c) = (num(r)?, num(c)?);
    if r == 0 || c == 0 {
        return Err(format!("a board needs at least one row and one column (got {r}x{c})"));
    }
    if (r as u64) * (c as u64 + 1) > BITS as u64 {
        return Err(format!(
            "a {r}x{c} board is too big: a board has at most {BITS} cells counting one more a row \
             (rows × (columns + 1) ≤ {BITS}; 11x10, 8x15 and 7x15 fit)"
        ));
    }
    let k = match k {
        None => None,
        Some(k) => match k.trim().parse::<u32>() {
            Ok(k) if (1..=r.max(c)).contains(&k) => Some(k as u8),
            _ => return Err(format!("in {head:?}, k must be a number from 1 to {} (the longer side)", r.max(c))),
        },
    };
    Ok((r as u8, c as u8, k))
}

/// The six neighbours of a triangle's cell, and the four of a rectangle's: the directions
/// of a jump.
pub(super) const ACROSS_DOWN: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
pub(super) const TRIANGLE: [(i8, i8); 6] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)];

/// "5": a triangle's side (1 to 10, so that n × (n + 1) cells fit in 128 bits).
pub(super) fn triangle_size(s: &str) -> Result<(u8, u8, Option<u8>), String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=10).contains(&n) => Ok((n as u8, n as u8, None)),
        Ok(n) => Err(format!("a triangle of side {n} does not fit: the side is 1 to 10")),
        Err(_) => Err(format!("{s:?} is not a triangle's size: write its side, such as 5")),
    }
}

/// The symmetry of one cell, by hand (for the tests of `transform` and its users).
#[cfg(test)]
pub(super) fn naive(x: u128, rows: u8, cols: u8, t: u8) -> u128 {
    let (w, rows, cols) = (cols as usize + 1, rows as usize, cols as usize);
    let nw = if t & 4 != 0 { rows + 1 } else { w };
    let mut out = 0;
    for r in 0..rows {
        for c in 0..cols {
            if x >> (r * w + c) & 1 == 0 {
                continue;
            }
            let (mut a, mut b) = (r, c);
            if t & 1 != 0 {
                a = rows - 1 - a;
            }
            if t & 2 != 0 {
                b = cols - 1 - b;
            }
            if t & 4 != 0 {
                (a, b) = (b, a);
            }
            out |= 1u128 << (a * nw + b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_move_every_cell_where_they_should() {
        let mut rng = fastrand::Rng::with_seed(5);
        for (rows, cols) in [(1, 1), (3, 3), (4, 5), (6, 7), (5, 2), (11, 10), (1, 63)] {
            let full = full_mask(rows, cols);
            for _ in 0..50 {
                let x = (u128::from(rng.u64(..)) << 64 | u128::from(rng.u64(..))) & full;
                for t in 0..8 {
                    assert_eq!(transform(x, rows, cols, t), naive(x, rows, cols, t), "{rows}x{cols} t={t}");
                }
                assert_eq!(transpose(x, rows, cols), naive(x, rows, cols, 4), "{rows}x{cols} transpose");
                assert_eq!(transpose(full & !x, rows, cols), naive(full & !x, rows, cols, 4), "{rows}x{cols}");
            }
        }
    }

    #[test]
    fn lines_and_chains() {
        // 3 in a row across, down and on both diagonals of a 3×4 board (w = 5).
        let cell = |r: usize, c: usize| 1u128 << (r * 5 + c);
        assert!(has_line(cell(0, 1) | cell(0, 2) | cell(0, 3), 4, 3));
        assert!(has_line(cell(0, 3) | cell(1, 3) | cell(2, 3), 4, 3));
        assert!(has_line(cell(0, 1) | cell(1, 2) | cell(2, 3), 4, 3));
        assert!(has_line(cell(0, 3) | cell(1, 2) | cell(2, 1), 4, 3));
        // No wrapping round a row's end.
        assert!(!has_line(cell(0, 2) | cell(0, 3) | cell(1, 0), 4, 3));
        assert!(!has_line(cell(0, 3) | cell(1, 0), 4, 2));
        assert!(!has_line(cell(0, 0) | cell(1, 3) | cell(2, 2), 4, 3));
        // Hex 3×3 (w = 4): (0,2) (1,1) (2,0) is a chain for either player; (0,0) (1,1) is not.
        let hex = |r: usize, c: usize| 1u128 << (r * 4 + c);
        let diag = hex(0, 2) | hex(1, 1) | hex(2, 0);
        assert!(joined(diag, 3, 3, true) && joined(diag, 3, 3, false));
        assert!(!joined(hex(0, 0) | hex(1, 1) | hex(2, 2), 3, 3, true));
    }
}
