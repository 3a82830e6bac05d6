//! The answer every search gives for a position, and the check every search makes before it
//! lists a large position's children.

use crate::game::{Game, GameError, GameResult, Value};

/// The value of a position and its remoteness (`None` for a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution {
    pub value: Value,
    pub remoteness: Option<u32>,
}

impl Solution {
    pub fn primitive(value: Value) -> Self {
        Solution { value, remoteness: Some(0) }
    }
}

/// Refuse to expand `pos` when the positions its moves lead to could not fit in `budget`
/// bytes: a large position with many moves (60,000 Nim heaps of 1 have 60,000 children of
/// 60,000 heaps each) would otherwise exhaust memory before any table noticed. Small
/// positions are not checked (it costs a call to `moves`).
pub fn check_fanout<G: Game>(game: &G, pos: &G::Pos, budget: usize) -> GameResult<()> {
    use crate::game::Footprint;
    let bytes = pos.heap_bytes() + std::mem::size_of::<G::Pos>();
    if bytes <= 4096 {
        return Ok(());
    }
    let n = game.moves(pos)?.len();
    let need = n as f64 * bytes as f64 * 2.0;
    if need > budget as f64 {
        return Err(GameError::OutOfMemory(format!(
            "a position here has {n} moves, and the positions they lead to would need about {:.0} MiB, more \
             than the memory budget of {} MiB (raise --max-memory)",
            need / (1 << 20) as f64,
            budget >> 20
        )));
    }
    Ok(())
}
