//! Why the nimber searches (on positions, [`super::nimber`], and on keys,
//! [`super::nimber_packed`]) stop without an answer, and how deep they go.

use crate::game::GameError;

/// The deepest the recursive search goes before it hands the game to the iterative solver.
pub const MAX_DEPTH: usize = 400;

/// Why a search stopped without an answer.
#[derive(Debug)]
pub enum Stop {
    /// The game is deeper than [`MAX_DEPTH`], or splits a part again: use the iterative
    /// solver.
    Deep,
    /// An error of the game, the time limit or the memory budget.
    Game(GameError),
}

impl From<GameError> for Stop {
    fn from(e: GameError) -> Self {
        Stop::Game(e)
    }
}
