//! Facts about TacTix that the solver must respect, on random boards.

use tactix::{Solver, pbm};

fn nimsum(w: usize, h: usize, cells: &[bool]) -> u64 {
    let mut b = pbm::Board::new(w, h);
    for r in 0..h {
        for c in 0..w {
            b.set(r, c, cells[r * w + c]);
        }
    }
    Solver::new(1 << 24, None).board(&mut b).unwrap()
}

fn random_board(seed: &mut u64, w: usize, h: usize, density: u64) -> Vec<bool> {
    (0..w * h)
        .map(|_| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (*seed >> 33) % 100 < density
        })
        .collect()
}

#[test]
fn symmetric_images_have_the_same_nimsum() {
    let mut seed = 5;
    // 7×5 boards (the 8×8 path), and 12×2 and 9×3 boards (often the 8×16 path, which lays a
    // component with its short side as rows: the transposed board tests that).
    let boards = [(7, 5, 55); 60].into_iter().chain([(12, 2, 80); 40]).chain([(9, 3, 55); 30]);
    for (w, h, density) in boards {
        let b = random_board(&mut seed, w, h, density);
        let g = nimsum(w, h, &b);
        let transposed: Vec<bool> = (0..w * h).map(|i| b[(i % h) * w + i / h]).collect();
        assert_eq!(nimsum(h, w, &transposed), g);
        let rotated: Vec<bool> = b.iter().rev().copied().collect();
        assert_eq!(nimsum(w, h, &rotated), g);
    }
}

#[test]
fn a_board_beside_a_copy_of_itself_is_zero() {
    // G + G = 0 for any game G; an empty column keeps the copies apart.
    let mut seed = 11;
    for _ in 0..40 {
        let (w, h) = (5, 5);
        let b = random_board(&mut seed, w, h, 60);
        let mut both = vec![false; (2 * w + 1) * h];
        for r in 0..h {
            for c in 0..w {
                both[r * (2 * w + 1) + c] = b[r * w + c];
                both[r * (2 * w + 1) + w + 1 + c] = b[r * w + c];
            }
        }
        assert_eq!(nimsum(2 * w + 1, h, &both), 0);
    }
}

#[test]
fn a_sum_is_the_xor_of_its_parts() {
    let mut seed = 17;
    for _ in 0..40 {
        let (w, h) = (4, 4);
        let a = random_board(&mut seed, w, h, 65);
        let b = random_board(&mut seed, w, h, 65);
        let mut both = vec![false; (2 * w + 1) * h];
        for r in 0..h {
            for c in 0..w {
                both[r * (2 * w + 1) + c] = a[r * w + c];
                both[r * (2 * w + 1) + w + 1 + c] = b[r * w + c];
            }
        }
        assert_eq!(nimsum(2 * w + 1, h, &both), nimsum(w, h, &a) ^ nimsum(w, h, &b));
    }
}

#[test]
fn a_tiny_table_gives_the_same_answers() {
    // The table replaces entries when full: answers must not change.
    let mut seed = 23;
    for _ in 0..10 {
        let b = random_board(&mut seed, 5, 4, 70);
        let mut board = pbm::Board::new(5, 4);
        for (i, &on) in b.iter().enumerate() {
            board.set(i / 5, i % 5, on);
        }
        let mut again = board.clone();
        let big = Solver::new(1 << 24, None).board(&mut board).unwrap();
        let small = Solver::new(1 << 14, None).board(&mut again).unwrap();
        assert_eq!(big, small);
    }
}

#[test]
fn threads_sharing_a_table_agree_with_one_thread() {
    // Boards whose big components (16 cells or more) are solved by two threads at once, and
    // a board that is a big component beside its own copy (G + G = 0).
    let mut seed = 41;
    let mut together = 0;
    for _ in 0..12 {
        let (w, h) = (5, 4);
        let cells = random_board(&mut seed, w, h, 85);
        let board = || {
            let mut b = pbm::Board::new(w, h);
            for r in 0..h {
                for c in 0..w {
                    b.set(r, c, cells[r * w + c]);
                }
            }
            b
        };
        let one = Solver::new(1 << 24, None).board(&mut board()).unwrap();
        let mut b = board();
        if tactix::components(&mut board()).is_ok_and(|cs| cs.iter().any(|c| c.len() >= 16)) {
            together += 1;
        }
        assert_eq!(tactix::nimsum_parallel(&mut b, 1 << 24, None, 2).unwrap(), one, "{cells:?}");
        // The same board twice, side by side (a gap between): 0.
        let mut twice = pbm::Board::new(2 * w + 1, h);
        for r in 0..h {
            for c in 0..w {
                twice.set(r, c, cells[r * w + c]);
                twice.set(r, c + w + 1, cells[r * w + c]);
            }
        }
        assert_eq!(tactix::nimsum_parallel(&mut twice, 1 << 24, None, 2).unwrap(), 0);
    }
    assert!(together >= 4, "only {together} boards had a component for the threads to share");
}
