//! Native Rust modules for classic games. Each implements [`crate::game::Game`] with the same
//! position text as its script in `games/`, plus a [`crate::game::Shortcut`]: an answer
//! from a closed form or a special algorithm instead of a search. A script that declares
//! `const NATIVE = "nim";` is solved by the module of that name unless `--engine script`
//! says otherwise; `gamesman check` compares the two.
//!
//! Adding one is one file here and one row in the catalogue's table
//! ([`crate::catalog::table::natives`]).

pub mod chomp;
pub mod gf2;
pub mod lightsout;
pub mod nim;
pub mod nimrod;
pub mod quixo;
pub mod tactix;

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
            Ok(s.parse::<BigUint>().expect("digits"))
        })
        .collect()
}

pub fn format_big_heaps(heaps: &[BigUint]) -> String {
    heaps.iter().map(BigUint::to_string).collect::<Vec<_>>().join(",")
}

/// Refuse to list more moves than this (a heap of 10^9 has 10^9 moves).
pub const MAX_LISTED_MOVES: u64 = 1_000_000;

fn too_many_moves(n: &BigUint) -> GameError {
    GameError::Unsupported(format!(
        "this position has {n} moves, too many to list (`solve` still gives the winning moves)"
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
