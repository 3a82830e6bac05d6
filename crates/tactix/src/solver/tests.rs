//! The solver's tests: tables, the wide table, mex, and whole boards against slower answers.

use super::*;

fn nimsum(text: &str) -> u64 {
    let mut b = crate::pbm::parse(text.as_bytes()).unwrap();
    Solver::new(1 << 22, None).board(&mut b).unwrap()
}

#[test]
fn the_table_never_returns_another_keys_value() {
    // Far more keys than entries (2^11 buckets of 8), many of them alike (consecutive
    // numbers, single bits, dense words): a hit must be the key's own value.
    for buckets in [1 << 11, 3000, 1 << 14] {
        let t = Table::new(buckets * 64);
        let mut keys: Vec<u64> = (1..40_000).collect();
        keys.extend((0..64).map(|i| 1u64 << i));
        keys.extend((0..64).map(|i| u64::MAX >> i));
        let mut x = 7u64;
        keys.extend((0..40_000).map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x
        }));
        let value = |k: u64| (k % 97) as u32;
        for (i, &k) in keys.iter().enumerate() {
            t.insert(k, value(k), i as u64 % 5000);
        }
        let mut hits = 0;
        for &k in &keys {
            if let Some(g) = t.get(k) {
                assert_eq!(g, value(k), "key {k:#x}");
                hits += 1;
            }
        }
        // Most keys (or most entries, when there are fewer) are remembered.
        assert!(hits >= keys.len().min(buckets * 8) * 8 / 10, "{hits} hits with {buckets} buckets");
        // Values beyond what an entry holds are not stored, never stored wrong.
        t.insert(u64::MAX - 1, MAX_STORED + 1, 1 << 40);
        assert_ne!(t.get(u64::MAX - 1), Some((MAX_STORED + 1) & 0x7F));
    }
}

/// The key whose mixed value is `h` (the inverse of [`Table::mix`]).
fn unmix(h: u64) -> u64 {
    let inverse = |c: u64| (0..6).fold(c, |i, _| i.wrapping_mul(2u64.wrapping_sub(c.wrapping_mul(i))));
    let x = h.wrapping_mul(inverse(0xD6E8_FEB8_6659_FD93));
    (x ^ (x >> 32)).wrapping_mul(inverse(0x9E37_79B9_7F4A_7C15))
}

#[test]
fn an_entry_keeps_enough_bits_to_tell_keys_of_one_bucket_apart() {
    // Two keys in one bucket whose mixed values differ only in the highest bit an entry
    // keeps: with one bit fewer kept they would be taken for each other.
    for buckets in [1 << 11, 3000, 5 << 20] {
        let t = Table::new(buckets * 64);
        // A bucket gets `share` of the 2^64 mixed values: telling them apart takes the
        // smallest k with 2^k >= share; the data bits must still fit beside them.
        let share = (1u128 << 64).div_ceil(buckets as u128);
        let needed = 128 - (share - 1).leading_zeros();
        assert!(t.kept >= needed && t.kept + DATA_BITS <= 64, "{} bits kept, {needed} needed", t.kept);
        let top = 1u64 << (needed - 1);
        let bucket = |h: u64| (h as u128 * buckets as u128) >> 64;
        let mut found = 0;
        let mut h = 12345u64;
        while found < 20 {
            h = h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (a, b) = (h & !top, h | top);
            if bucket(a) != bucket(b) {
                continue;
            }
            let (ka, kb) = (unmix(a), unmix(b));
            assert_eq!((Table::mix(ka), Table::mix(kb)), (a, b));
            t.insert(ka, 1, 1);
            t.insert(kb, 2, 1);
            assert_eq!((t.get(ka), t.get(kb)), (Some(1), Some(2)), "{buckets} buckets");
            found += 1;
        }
    }
}

#[test]
fn a_narrow_table_never_returns_another_keys_value() {
    // As for the wide table, with keys below 2^32; a larger key is never found.
    for buckets in [1 << 11, 3000, 1 << 14] {
        let t = Table::narrow(buckets * 64);
        let mut keys: Vec<u64> = (1..40_000).collect();
        keys.extend((0..32).map(|i| 1u64 << i));
        keys.extend((0..32).map(|i| u32::MAX as u64 >> i));
        let mut x = 7u64;
        keys.extend((0..40_000).map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 32
        }));
        let value = |k: u64| (k % 97) as u32;
        for (i, &k) in keys.iter().enumerate() {
            t.insert(k, value(k), i as u64 % 5000);
        }
        let mut hits = 0;
        for &k in &keys {
            if let Some(g) = t.get(k) {
                assert_eq!(g, value(k), "key {k:#x}");
                hits += 1;
            }
        }
        assert!(hits >= keys.len().min(buckets * 16) * 8 / 10, "{hits} hits with {buckets} buckets");
        t.insert(1 << 32, 5, 1 << 20);
        assert_eq!(t.get(1 << 32), None);
        // 16 entries of 4 bytes to a 64-byte bucket.
        assert!(t.bytes() <= buckets * 64 + 64);
    }
}

#[test]
fn a_narrow_entry_keeps_enough_bits_to_tell_keys_of_one_bucket_apart() {
    // Two keys in one bucket whose mixed values differ only in the highest bit kept.
    let inverse = |c: u32| (0..5).fold(c, |i, _| i.wrapping_mul(2u32.wrapping_sub(c.wrapping_mul(i))));
    let unmix = |h: u32| {
        let x = h.wrapping_mul(inverse(0x85EB_CA6B));
        (x ^ (x >> 16)).wrapping_mul(inverse(0x9E37_79B1))
    };
    for buckets in [1 << 11, 3000, 1 << 20] {
        let t = Table::narrow(buckets * 64);
        let share = (1u64 << 32).div_ceil(buckets as u64);
        let needed = 64 - (share - 1).leading_zeros();
        assert!(t.kept >= needed && t.kept + DATA_BITS <= 32, "{} bits kept, {needed} needed", t.kept);
        let top = 1u32 << (needed - 1);
        let bucket = |h: u32| (h as u64 * buckets as u64) >> 32;
        let mut found = 0;
        let mut h = 12345u32;
        while found < 20 {
            h = h.wrapping_mul(1664525).wrapping_add(1013904223);
            let (a, b) = (h & !top, h | top);
            if bucket(a) != bucket(b) {
                continue;
            }
            let (ka, kb) = (unmix(a), unmix(b));
            assert_eq!((Table::mix32(ka), Table::mix32(kb)), (a, b));
            t.insert(ka as u64, 1, 1);
            t.insert(kb as u64, 2, 1);
            assert_eq!((t.get(ka as u64), t.get(kb as u64)), (Some(1), Some(2)), "{buckets} buckets");
            found += 1;
        }
    }
}

#[test]
fn a_narrow_board_gets_the_same_values_with_either_table() {
    // Random boards at most 4 rows high and 5 wide (every canonical key below 2^32; a
    // dense 4×8 board would take minutes), solved with a narrow table and with a wide
    // one; and even×even rectangles, which are 0.
    let mut x = 99u64;
    for _ in 0..300 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (h, w) = (1 + (x >> 60) as usize % 4, 1 + (x >> 56) as usize % 5);
        let mut text = format!("P1 {w} {h}");
        for i in 0..h * w {
            text.push_str(if (x >> (i % 50)) & 3 != 0 { " 1" } else { " 0" });
        }
        let mut a = crate::pbm::parse(text.as_bytes()).unwrap();
        let mut b = crate::pbm::parse(text.as_bytes()).unwrap();
        let narrow = Solver::for_board(1 << 20, None, w, h).board(&mut a).unwrap();
        assert_eq!(narrow, Solver::new(1 << 22, None).board(&mut b).unwrap(), "{text}");
    }
    for (w, h) in [(2, 4), (4, 4), (6, 4), (8, 2), (6, 2)] {
        let text = format!("P1 {w} {h} {}", "1".repeat(w * h));
        let mut b = crate::pbm::parse(text.as_bytes()).unwrap();
        assert_eq!(Solver::for_board(1 << 20, None, w, h).board(&mut b).unwrap(), 0, "{w}×{h}");
    }
}

#[test]
fn bars_and_rectangles() {
    // The assignment's samples: bars of 1..4 are 1..4; even×even rectangles are 0.
    assert_eq!(nimsum("P1 4 1 1111"), 4);
    assert_eq!(nimsum("P1 1 12 111111111111"), 12);
    assert_eq!(nimsum("P1 2 2 1111"), 0);
    assert_eq!(nimsum("P1 4 4 1111111111111111"), 0);
    // Three separate bars of 2, 3 and 4: 2 ^ 3 ^ 4 = 5 (the assignment's example).
    assert_eq!(nimsum("P1 5 5 11000 00000 11100 00000 11110"), 5);
}

#[test]
fn the_general_path_agrees_with_the_bitboard_path() {
    // Two implementations of the same search: random shapes that fit 8×8, solved by both.
    let mut x = 12345u64;
    let mut checked = 0;
    for _ in 0..200 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let b = (x >> 7) & 0x0000_001f_1f1f_1f1f; // within 5×5
        let comp = bits::flood(b & b.wrapping_neg(), b);
        if comp.count_ones() < 3 {
            continue;
        }
        let cells: Vec<(usize, usize)> = (0..64).filter(|i| comp >> i & 1 == 1).map(|i| (i / 8, i % 8)).collect();
        let mut a = Solver::new(1 << 22, None);
        let mut g = Solver::new(1 << 22, None);
        assert_eq!(a.small(comp).unwrap(), g.large(Shape::from_cells(&cells)).unwrap(), "{comp:#x}");
        checked += 1;
    }
    assert!(checked > 50);
}

#[test]
fn the_wide_path_agrees_with_the_general_path() {
    // Random shapes of 2 or 3 rows by 9–11 columns (wider than 8×8), both ways round.
    let mut x = 987654321u64;
    let mut checked = 0;
    for i in 0..2000 {
        if checked == 60 {
            break;
        }
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (rows, cols) = (2 + i % 2, 9 + i / 2 % 3);
        let mut y = x;
        let mut cells = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                y = y.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                if y >> 62 > rows as u64 - 2 {
                    cells.push((r, c)); // three cells in four with 2 rows, one in two with 3
                }
            }
        }
        let mut board = crate::pbm::Board::new(cols, rows);
        cells.iter().for_each(|&(r, c)| board.set(r, c, true));
        let Some(comp) =
            crate::components(&mut board).unwrap().iter().map(crate::Component::cells).max_by_key(Vec::len)
        else {
            continue;
        };
        let shape = Shape::from_cells(&comp);
        let Some(p) = shape.to_wide() else { continue };
        let turned: Vec<(usize, usize)> = comp.iter().map(|&(r, c)| (c, r)).collect();
        let mut a = Solver::new(1 << 22, None);
        let mut b = Solver::new(1 << 22, None);
        let g = b.large(shape.clone()).unwrap();
        assert_eq!(a.wide(p).unwrap(), g, "{comp:?}");
        assert_eq!(a.component(&turned).unwrap(), g, "{comp:?} turned");
        checked += 1;
    }
    assert_eq!(checked, 60);
}

/// The Grundy value of any position in the 8×8 frame by the bare definition: the mex
/// of its children, no splitting, no closed forms, no symmetry.
fn naive(b: u64, memo: &mut HashMap<u64, u32>) -> u32 {
    if let Some(&g) = memo.get(&b) {
        return g;
    }
    let mut seen = Mex::new();
    for s in (0..64).filter(|s| b >> s & 1 == 1) {
        let mut e = s;
        let mut mask = 0u64;
        while e < 64 && b >> e & 1 == 1 && (e == s || e % 8 != 0) {
            mask |= 1 << e;
            seen.add(naive(b & !mask, memo));
            e += 1;
        }
        let mut e = s + 8;
        let mut mask = 1u64 << s;
        while e < 64 && b >> e & 1 == 1 {
            mask |= 1 << e;
            seen.add(naive(b & !mask, memo));
            e += 8;
        }
    }
    let g = seen.mex();
    memo.insert(b, g);
    g
}

#[test]
fn shapes_the_mirror_rule_calls_lost_are_lost() {
    // Random shapes in boxes up to 4×4 made symmetric under a half turn: wherever the
    // rule says lost, the bare definition must give 0.
    let mut x = 4242u64;
    let mut memo = HashMap::new();
    let mut checked = 0;
    for _ in 0..3000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let (rows, cols) = (2 + (x >> 60) as usize % 3, 2 + (x >> 56) as usize % 3);
        let mut b = 0u64;
        let mut y = x;
        for r in 0..rows {
            for c in 0..cols {
                y = y.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                if y >> 62 != 0 {
                    b |= 1 << (8 * r + c) | 1 << (8 * (rows - 1 - r) + (cols - 1 - c));
                }
            }
        }
        let p = bits::normalize(b);
        if p == 0 || !bits::mirror_loss(p) {
            continue;
        }
        assert_eq!(naive(p, &mut memo), 0, "{p:#x}");
        checked += 1;
    }
    assert!(checked > 100, "{checked} checked");
    // Symmetric is not enough: the full 2×3 board is 2 (a middle column run is its own
    // image), and the full 3×3 board is 1 (both from tests/data/tactix.jsonl).
    assert!(!bits::mirror_loss(0b111 | 0b111 << 8));
    assert_eq!(naive(0b111 | 0b111 << 8, &mut memo), 2);
    assert_eq!(naive(0b111 | 0b111 << 8 | 0b111 << 16, &mut memo), 1);
}

#[test]
fn equal_large_components_cancel() {
    // An L of 12 + 11 tokens (12×12 bounding box, the general path), twice: 0.
    let mut rows = vec![String::from("1"); 11];
    rows.push("1".repeat(12));
    let rows: Vec<String> = rows.iter().map(|r| format!("{r:0<12}")).collect();
    let two = format!("P1 25 12 {}", rows.iter().map(|r| format!("{r}0{r}")).collect::<Vec<_>>().join(" "));
    assert_eq!(nimsum(&two), 0);
}

#[test]
fn a_time_limit_stops_the_search() {
    let mut b = crate::pbm::parse(b"P1 6 6 111111 111111 111111 111111 111111 111110").unwrap();
    let mut s = Solver::new(1 << 20, Some(Instant::now()));
    assert_eq!(s.board(&mut b), Err(SolveError::Timeout));
}
