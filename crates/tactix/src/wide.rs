//! 8 × 16 bitboards in a `u128`: cell (r, c) is bit 16r + c. A component whose short side
//! is at most 8 and long side at most 16 is laid with its short side as rows and solved in
//! this form when it does not fit 8×8 (the second fast path, between [`crate::bits`] and
//! the general [`crate::large::Shape`]).
//!
//! Such a shape is always *oriented*: at most 8 rows, more than 8 columns. Its children keep
//! at most 8 rows, so each component of a child either fits 8×8 or is oriented too, and the
//! canonical form needs no transpose: of the 8 images, the 4 with the short side as rows
//! are the candidates (see [`crate::bits::canonical`]), and those are the flips.

/// Column 0 of every row.
pub const COL0: u128 = 0x0001_0001_0001_0001_0001_0001_0001_0001;
/// Column 15 of every row.
pub const COL15: u128 = COL0 << 15;

/// The cells next to `b` (up, down, left, right), without wrapping across rows.
#[inline]
pub fn neighbours(b: u128) -> u128 {
    (b << 16) | (b >> 16) | ((b << 1) & !COL0) | ((b >> 1) & !COL15)
}

/// The 4-connected component of `within` that contains `seed`.
#[inline]
pub fn flood(seed: u128, within: u128) -> u128 {
    let mut comp = seed;
    loop {
        let grown = (comp | neighbours(comp)) & within;
        if grown == comp {
            return comp;
        }
        comp = grown;
    }
}

/// All rows folded into the low 16 bits (bit c set if any row has column c).
#[inline]
fn columns(b: u128) -> u32 {
    let mut f = b | (b >> 64);
    f |= f >> 32;
    f |= f >> 16;
    (f & 0xFFFF) as u32
}

/// Shift `b` to the top-left corner.
#[inline]
pub fn normalize(b: u128) -> u128 {
    if b == 0 {
        return 0;
    }
    let b = b >> (b.trailing_zeros() / 16 * 16);
    b >> columns(b).trailing_zeros()
}

/// Rows and columns of a normalized board's bounding box.
#[inline]
pub fn dims(p: u128) -> (u32, u32) {
    if p == 0 {
        return (0, 0);
    }
    ((127 - p.leading_zeros()) / 16 + 1, 32 - columns(p).leading_zeros())
}

/// The 8 rows in reverse order.
#[inline]
fn reverse_rows(b: u128) -> u128 {
    const LOW_BYTES: u128 = 0x00FF_00FF_00FF_00FF_00FF_00FF_00FF_00FF;
    let x = b.swap_bytes(); // rows reversed, and the two bytes of each row swapped
    ((x >> 8) & LOW_BYTES) | ((x & LOW_BYTES) << 8)
}

/// A normalized board of `rows` rows upside down, normalized.
#[inline]
pub fn flip_v(p: u128, rows: u32) -> u128 {
    reverse_rows(p) >> (16 * (8 - rows))
}

/// A normalized board of `cols` columns left to right, normalized.
#[inline]
pub fn mirror_h(p: u128, cols: u32) -> u128 {
    reverse_rows(p.reverse_bits()) >> (16 - cols)
}

/// The least of the 4 flips of an oriented, normalized board: equal for congruent shapes
/// (a shape's images with its long side as rows are never smaller; see the module notes).
#[inline]
pub fn canonical(p: u128) -> u128 {
    let (r, c) = dims(p);
    let v = flip_v(p, r);
    let h = mirror_h(p, c);
    let vh = mirror_h(v, c);
    p.min(v).min(h).min(vh)
}

/// An oriented normalized shape that is its own image under a half turn with an even
/// number of rows and of columns: the mirror strategy wins for the second player (see
/// [`crate::bits::mirror_loss`]).
#[inline]
pub fn mirror_loss(p: u128) -> bool {
    let (r, c) = dims(p);
    r % 2 == 0 && c % 2 == 0 && mirror_h(flip_v(p, r), c) == p
}

/// The 8×8 bitboard of a normalized board that fits one.
#[inline]
pub fn to_small(p: u128) -> Option<u64> {
    if columns(p) > 0xFF {
        return None;
    }
    let mut b = 0u64;
    for r in 0..8 {
        b |= ((p >> (16 * r)) as u64 & 0xFF) << (8 * r);
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(p: u128) -> Vec<(u32, u32)> {
        (0..128).filter(|i| p >> i & 1 == 1).map(|i| (i / 16, i % 16)).collect()
    }

    fn from_cells(cells: impl IntoIterator<Item = (u32, u32)>) -> u128 {
        cells.into_iter().fold(0, |b, (r, c)| b | 1 << (16 * r + c))
    }

    #[test]
    fn flips_match_their_definitions() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (rows, cols) = ((x >> 60) as u32 % 8 + 1, (x >> 56) as u32 % 16 + 1);
            let mut y = x;
            let mut b = 0u128;
            for r in 0..rows {
                for c in 0..cols {
                    y = y.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    if y >> 63 == 1 {
                        b |= 1 << (16 * r + c);
                    }
                }
            }
            let p = normalize(b);
            if p == 0 {
                continue;
            }
            let (r, c) = dims(p);
            assert_eq!(flip_v(p, r), from_cells(cells(p).into_iter().map(|(i, j)| (r - 1 - i, j))), "{p:#x}");
            assert_eq!(mirror_h(p, c), from_cells(cells(p).into_iter().map(|(i, j)| (i, c - 1 - j))), "{p:#x}");
            assert_eq!(normalize(p << (16 * (8 - r) + (16 - c))), p, "{p:#x}");
        }
    }

    #[test]
    fn congruent_oriented_shapes_share_a_canonical_form() {
        // An L of 10 + 2 tokens, in its four oriented positions, anywhere in the frame.
        let l = from_cells((0..10).map(|c| (0, c)).chain([(1, 0), (2, 0)]));
        let images = [
            l,
            from_cells((0..10).map(|c| (2, c)).chain([(1, 0), (0, 0)])),
            from_cells((0..10).map(|c| (0, c)).chain([(1, 9), (2, 9)])),
            from_cells((0..10).map(|c| (2, c)).chain([(1, 9), (0, 9)])),
        ];
        for img in images {
            assert_eq!(canonical(normalize(img << 35)), canonical(l));
        }
        let t = from_cells((0..10).map(|c| (0, c)).chain([(1, 4), (2, 4)]));
        assert_ne!(canonical(t), canonical(l));
    }

    #[test]
    fn flood_does_not_wrap_rows_and_small_shapes_convert() {
        let b = 1 << 15 | 1 << 16;
        assert_eq!(flood(1 << 15, b), 1 << 15);
        assert_eq!(dims(normalize(b)), (2, 16));
        assert_eq!(to_small(from_cells([(0, 0), (1, 0), (1, 7), (7, 7)])), Some(1 | 1 << 8 | 1 << 15 | 1 << 63));
        assert_eq!(to_small(from_cells([(0, 8)])), None);
        assert!(mirror_loss(from_cells((0..10).flat_map(|c| [(0, c), (1, c)]))));
        assert!(!mirror_loss(from_cells((0..9).flat_map(|c| [(0, c), (1, c)]))));
    }
}
