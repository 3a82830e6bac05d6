//! What several native modules share: heaps of any size as text (read in time below
//! quadratic), the refusal to list too many moves, a grid drawn for the web page, and the
//! random play `gamesman check`'s samples are made by.

use crate::game::{Footprint, GameError, GameResult};
use num_bigint::BigUint;

impl Footprint for BigUint {
    fn heap_bytes(&self) -> usize {
        (self.bits() as usize).div_ceil(64) * 8
    }
}

/// Heap sizes of any size: whole numbers separated by commas and/or whitespace (the same
/// text, and the same messages, as the scripts' `parse_heaps`).
pub fn parse_big_heaps(text: &str) -> GameResult<Vec<BigUint>> {
    let items: Vec<&str> = text.split([',', ' ', '\t', '\n', '\r']).filter(|s| !s.is_empty()).collect();
    if items.is_empty() {
        return Err(GameError::BadPosition("no heaps given: write heap sizes such as `3,4,5`".into()));
    }
    items
        .iter()
        .map(|s| {
            if let Some(rest) = s.strip_prefix('-')
                && !rest.is_empty()
                && rest.bytes().all(|b| b.is_ascii_digit())
            {
                return Err(GameError::BadPosition(format!(
                    "heap sizes cannot be negative ({})",
                    crate::input::quote(s)
                )));
            }
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(GameError::BadPosition(format!(
                    "{} is not a heap size (a whole number)",
                    crate::input::quote(s)
                )));
            }
            Ok(parse_decimal(s))
        })
        .collect()
}

/// Digits below which `num-bigint`'s own (quadratic) conversion is the faster.
const DIRECT_DIGITS: usize = 4096;

/// A string of ASCII digits as a number, in time below quadratic: the digits are split, the
/// halves converted, and the high half multiplied by a power of ten (`num-bigint` multiplies
/// by Karatsuba and Toom-3, so the whole takes O(M(n) log n)). `num-bigint`'s `parse` is
/// quadratic: 10^6 digits took 5 s, 4·10^6 took 85 s.
pub fn parse_decimal(digits: &str) -> BigUint {
    // powers[j] = 10^(DIRECT_DIGITS · 2^j), each the square of the one before.
    let mut powers: Vec<BigUint> = Vec::new();
    fn go(d: &[u8], powers: &mut Vec<BigUint>) -> BigUint {
        if d.len() <= DIRECT_DIGITS {
            return BigUint::parse_bytes(d, 10).unwrap_or_default();
        }
        // The largest DIRECT_DIGITS · 2^j below the length: the low part's digit count.
        let mut j = 0;
        while DIRECT_DIGITS << (j + 1) < d.len() {
            j += 1;
        }
        while powers.len() <= j {
            let next = match powers.last() {
                None => BigUint::from(10u32).pow(DIRECT_DIGITS as u32),
                Some(p) => p * p,
            };
            powers.push(next);
        }
        let (high, low) = d.split_at(d.len() - (DIRECT_DIGITS << j));
        let high = go(high, powers);
        let low = go(low, powers);
        high * &powers[j] + low
    }
    go(digits.as_bytes(), &mut powers)
}

pub fn format_big_heaps(heaps: &[BigUint]) -> String {
    heaps.iter().map(BigUint::to_string).collect::<Vec<_>>().join(",")
}

/// A position with `n` moves, more than [`MAX_MOVES`](crate::game::MAX_MOVES), is refused
/// when its moves are asked for (a heap of 10^9 has 10^9 moves).
pub(super) fn too_many_moves(n: impl std::fmt::Display) -> GameError {
    GameError::Unsupported(format!(
        "this position has {n} moves, more than the {} a position may list",
        crate::game::MAX_MOVES
    ))
}

/// A grid drawn for the web page: `#` for a token or a light that is on, `.` for none; a
/// click on (r, c) is the move `r:c`. Boards past 2^20 cells are not drawn.
pub fn grid_board(g: &crate::grid::Grid) -> Option<crate::game::Board> {
    let (rows, cols) = (g.rows(), g.cols());
    if rows.saturating_mul(cols) > 1 << 20 {
        return None;
    }
    let cells = (0..rows * cols).map(|i| if g.get(i / cols, i % cols) { "#" } else { "." }.to_string()).collect();
    Some(crate::game::Board::new(rows, cols, cells))
}

/// `steps` random moves from `p` in `g` (fewer if the game ends), for `gamesman check`'s samples.
pub(super) fn random_play<G: crate::game::Game>(g: &G, mut p: G::Pos, steps: usize, rng: &mut fastrand::Rng) -> G::Pos {
    for _ in 0..steps {
        let mut kids = g.children(&p).unwrap_or_default();
        if kids.is_empty() {
            break;
        }
        p = kids.swap_remove(rng.usize(..kids.len()));
    }
    p
}

#[cfg(test)]
mod decimal_tests {
    use super::parse_decimal;
    use num_bigint::BigUint;

    #[test]
    fn long_numbers_parse_as_num_bigint_parses_them() {
        // Lengths around every split point, against the (quadratic) conversion of num-bigint.
        let mut rng = fastrand::Rng::with_seed(27);
        for len in [1, 9, 4095, 4096, 4097, 8191, 8192, 8193, 20_000, 33_000] {
            let mut d: String = (0..len).map(|_| char::from(b'0' + rng.u8(0..10))).collect();
            if len > 3 {
                // Zeros where a half begins.
                d.replace_range(len - 4096.min(len - 1)..len - 4096.min(len - 1) + 1, "0");
            }
            assert_eq!(parse_decimal(&d), d.parse::<BigUint>().unwrap(), "{len} digits");
        }
        assert_eq!(parse_decimal("0000"), BigUint::from(0u32));
    }
}
