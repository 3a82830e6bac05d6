//! The board rules against their definitions.

use super::bits::*;
use super::rules::*;
use super::spec::*;

/// The symmetry of one cell, by hand.
fn naive(x: u128, rows: u8, cols: u8, t: u8) -> u128 {
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
fn cram_uses_a_quarter_turn_only_where_the_turned_board_fits() {
    let cram = BoardRules::new(
        BoardSpec {
            size: None,
            shape: BoardShape::Rectangle,
            moves: BoardMove::Domino(Orientation::Either),
            pieces: Some(Pieces::Shared),
            ends: Vec::new(),
            cells: Some("#.".into()),
        },
        false,
    )
    .unwrap();
    // 8×15 fits (8 rows of 16 bits) but turned it is 15 rows of 9 = 135 bits: no quarter
    // turn. 4×5 turned is 5 rows of 5: all 8. Every symmetry used maps cells as by hand.
    assert_eq!(cram.symmetries(8, 15).len(), 4);
    assert_eq!(cram.symmetries(1, 100).len(), 4);
    assert_eq!(cram.symmetries(4, 5).len(), 8);
    let mut rng = fastrand::Rng::with_seed(9);
    for (rows, cols) in [(8u8, 15u8), (1, 100), (9, 12), (4, 5)] {
        for _ in 0..20 {
            let x = (u128::from(rng.u64(..)) << 64 | u128::from(rng.u64(..))) & full_mask(rows, cols);
            for &t in cram.symmetries(rows, cols) {
                assert_eq!(transform(x, rows, cols, t), naive(x, rows, cols, t), "{rows}x{cols} t={t}");
            }
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
