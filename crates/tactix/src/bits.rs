//! 8×8 bitboards: cell (r, c) is bit 8r + c. Components whose bounding box fits in 8×8 are
//! solved in this form (the fast path).

/// Column 0 of every row.
pub const FILE0: u64 = 0x0101_0101_0101_0101;
/// Column 7 of every row.
pub const FILE7: u64 = FILE0 << 7;

/// The cells next to `b` (up, down, left, right), without wrapping across rows.
#[inline]
pub fn neighbours(b: u64) -> u64 {
    (b << 8) | (b >> 8) | ((b << 1) & !FILE0) | ((b >> 1) & !FILE7)
}

/// The 4-connected component of `within` that contains `seed`.
#[inline]
pub fn flood(seed: u64, within: u64) -> u64 {
    let mut comp = seed;
    loop {
        let grown = (comp | neighbours(comp)) & within;
        if grown == comp {
            return comp;
        }
        comp = grown;
    }
}

/// All columns folded into the low byte (bit c set if any row has column c).
#[inline]
fn columns(b: u64) -> u64 {
    let mut f = b | (b >> 32);
    f |= f >> 16;
    f |= f >> 8;
    f & 0xFF
}

/// Shift `b` to the top-left corner (first row and first column occupied).
#[inline]
pub fn normalize(b: u64) -> u64 {
    if b == 0 {
        return 0;
    }
    let b = b >> (b.trailing_zeros() / 8 * 8);
    b >> columns(b).trailing_zeros()
}

/// Rows and columns of a normalized board's bounding box.
#[inline]
pub fn dims(p: u64) -> (u32, u32) {
    if p == 0 {
        return (0, 0);
    }
    ((63 - p.leading_zeros()) / 8 + 1, 64 - columns(p).leading_zeros())
}

/// Rows reversed (top to bottom) within the 8×8 frame.
#[inline]
pub fn flip_v(b: u64) -> u64 {
    b.swap_bytes()
}

/// Columns reversed (left to right) within the 8×8 frame.
#[inline]
pub fn mirror_h(b: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    let b = ((b >> 1) & K1) | ((b & K1) << 1);
    let b = ((b >> 2) & K2) | ((b & K2) << 2);
    ((b >> 4) & K4) | ((b & K4) << 4)
}

/// (r, c) to (c, r).
#[inline]
pub fn transpose(b: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0f0f_0f0f_0000_0000;
    let mut x = b;
    let t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = K1 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

/// The least of the 8 normalized images of a normalized board: equal for congruent shapes.
///
/// An image with fewer rows is always the smaller number (its highest bit is in a lower
/// row), so only the 4 images whose rows are the shorter side need comparing: the turns by 0
/// and 180 degrees and the two mirror images, of `p` itself or of its transpose. Normalizing
/// an image is a shift by what the box leaves free, since its dimensions are known.
#[inline]
pub fn canonical(p: u64) -> u64 {
    if p == 0 {
        return 0;
    }
    let (r, c) = dims(p);
    let four = |p: u64, r: u32, c: u32| {
        let v = flip_v(p) >> (8 * (8 - r));
        let h = mirror_h(p) >> (8 - c);
        let vh = mirror_h(v) >> (8 - c);
        p.min(v).min(h).min(vh)
    };
    if r < c {
        four(p, r, c)
    } else if r > c {
        four(transpose(p), c, r)
    } else {
        four(p, r, c).min(four(transpose(p), c, r))
    }
}

/// [`canonical`] by its definition: the least of all 8 images, each normalized.
#[cfg(test)]
fn canonical_naive(p: u64) -> u64 {
    let v = flip_v(p);
    let h = mirror_h(p);
    let vh = mirror_h(v);
    let t = transpose(p);
    let tv = flip_v(t);
    let th = mirror_h(t);
    let tvh = mirror_h(tv);
    let mut best = p;
    for x in [v, h, vh, t, tv, th, tvh] {
        best = best.min(normalize(x));
    }
    best
}

/// A normalized shape that is a straight bar (one row or one column).
#[inline]
pub fn is_bar(p: u64) -> bool {
    p < 256 || p & !FILE0 == 0
}

/// A normalized shape that is its own image under a half turn, with an even number of rows
/// and of columns: the second player wins by answering every move with its mirror image (no
/// run is its own image, since no row or column is), so its Grundy value is 0.
#[inline]
pub fn mirror_loss(p: u64) -> bool {
    let (r, c) = dims(p);
    r % 2 == 0 && c % 2 == 0 && normalize(flip_v(mirror_h(p))) == p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_transpose(b: u64) -> u64 {
        let mut t = 0;
        for r in 0..8 {
            for c in 0..8 {
                if b >> (8 * r + c) & 1 == 1 {
                    t |= 1 << (8 * c + r);
                }
            }
        }
        t
    }

    #[test]
    fn transforms_match_their_definitions() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..1000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            assert_eq!(transpose(x), naive_transpose(x));
            assert_eq!(transpose(transpose(x)), x);
            assert_eq!(mirror_h(mirror_h(x)), x);
            for r in 0..8 {
                for c in 0..8 {
                    let bit = x >> (8 * r + c) & 1;
                    assert_eq!(mirror_h(x) >> (8 * r + 7 - c) & 1, bit);
                    assert_eq!(flip_v(x) >> (8 * (7 - r) + c) & 1, bit);
                }
            }
        }
    }

    #[test]
    fn the_fast_canonical_form_is_the_least_image() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for i in 0..20000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Boxes of every shape: mask the random bits to i % 8 + 1 rows, i / 8 % 8 + 1 columns.
            let (rows, cols) = (i % 8 + 1, i / 8 % 8 + 1);
            let mask = (0..rows).fold(0u64, |m, r| m | ((1u64 << cols) - 1) << (8 * r));
            let p = normalize(x & mask);
            assert_eq!(canonical(p), canonical_naive(p), "{p:#x}");
        }
    }

    #[test]
    fn congruent_shapes_share_a_canonical_form() {
        // An L tetromino, its rotations and reflections, anywhere on the board.
        let l = 0b1 | 0b1 << 8 | 0b11 << 16; // #. / #. / ##
        let c = canonical(normalize(l));
        let mut img = l;
        for _ in 0..4 {
            img = normalize(mirror_h(transpose(img))); // a quarter turn
            assert_eq!(canonical(img), c);
            assert_eq!(canonical(normalize(mirror_h(img) << 19)), c);
        }
        let t = 0b111 | 0b010 << 8; // T tetromino
        assert_ne!(canonical(t), c);
    }

    #[test]
    fn flood_does_not_wrap_rows() {
        // (0,7) and (1,0) are adjacent bits but not adjacent cells.
        let b = 1 << 7 | 1 << 8;
        assert_eq!(flood(1 << 7, b), 1 << 7);
        assert_eq!(dims(normalize(0b11 << 8 | 0b1 << 17)), (2, 2));
    }

    #[test]
    fn mirror_losses() {
        assert!(mirror_loss(0b11 | 0b11 << 8)); // 2×2
        assert!(mirror_loss(0b10 | 0b11 << 8 | 0b11 << 16 | 0b01 << 24)); // an S-shape, 4 rows, 2 columns
        assert!(!mirror_loss(0b111 | 0b111 << 8)); // 2×3: odd columns
        assert!(!mirror_loss(0b01 | 0b11 << 8)); // an L is not symmetric
    }
}
