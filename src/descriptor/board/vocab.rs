//! The vocabulary of a board descriptor: its shapes, moves, directions, pieces and ends, and
//! the rules as written (`BoardSpec`).

use serde::Deserialize;

/// The board's shape.
#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
pub enum BoardShape {
    /// Rows and columns; neighbours across, down and diagonally.
    #[default]
    Rectangle,
    /// The Hex rhombus: each cell touches six, (r, c±1), (r±1, c), (r-1, c+1), (r+1, c-1).
    Hex,
    /// A triangle of side n: row r (from the top) has r + 1 cells; a cell touches six,
    /// (r, c±1), (r±1, c), (r-1, c-1), (r+1, c+1) (peg solitaire).
    Triangle,
}

/// What a move is.
#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub enum BoardMove {
    /// Put a piece on any empty cell (tic-tac-toe, Hex).
    Place,
    /// Drop a piece into a column that is not full; it falls to the lowest empty cell
    /// (Connect-Four).
    Drop,
    /// Cover two adjacent empty cells with a domino.
    Domino(Orientation),
    /// Move one of your pieces one cell, in one of your directions, onto an empty cell; with
    /// `off: true` a piece whose step in its owner's first direction (forward) would leave the
    /// board may take it, and is gone (Dodgem).
    Step {
        first: Vec<Dir>,
        second: Vec<Dir>,
        #[serde(default)]
        off: bool,
    },
    /// A puzzle: a peg jumps over a neighbouring peg into the empty cell beyond, and the peg
    /// jumped over is removed (peg solitaire; across and down on a rectangle, also along the
    /// one diagonal on a triangle).
    Jump,
    /// A puzzle: a tile next to the blank slides into it (the 8-puzzle).
    Slide,
    /// A puzzle: the top disc of a peg moves onto an empty peg or a larger disc (the Tower
    /// of Hanoi).
    Hanoi,
}

/// A direction on the board: north is up (towards the first row), east is right.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    N,
    S,
    E,
    W,
    NE,
    NW,
    SE,
    SW,
}

impl Dir {
    /// (rows, columns) moved.
    #[inline]
    pub(super) fn delta(self) -> (i8, i8) {
        match self {
            Dir::N => (-1, 0),
            Dir::S => (1, 0),
            Dir::E => (0, 1),
            Dir::W => (0, -1),
            Dir::NE => (-1, 1),
            Dir::NW => (-1, -1),
            Dir::SE => (1, 1),
            Dir::SW => (1, -1),
        }
    }
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// Across or down, for both players (Cram).
    Either,
    /// The first player down (vertical), the second across (horizontal): Domineering.
    PerPlayer,
}

/// Whose marks the pieces are.
#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
pub enum Pieces {
    /// Each player has a mark (`x` and `o`).
    #[default]
    Own,
    /// Both players put down the same mark (Notakto, Cram, Domineering).
    Shared,
}

/// How a game ends, besides a full board (a tie, for pieces) or no move (a loss).
#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
pub enum BoardEnd {
    /// k of one mark in a row, across, down or diagonally: the player who made it wins
    /// (loses under misère play).
    InRow(u32),
    /// A chain of the player's pieces joining the player's two sides of a Hex board: the
    /// first player top and bottom, the second left and right.
    Connect,
    /// A player none of whose pieces is left on the board (all stepped off) has won, under
    /// normal and misère play alike (Dodgem).
    Gone,
    /// A puzzle is solved at this position (the 8-puzzle's `123/456/78.`).
    Goal(String),
    /// A puzzle is solved when this many pieces are left (peg solitaire: 1).
    Left(u32),
}

/// The board rules as written in a descriptor (the fields of `Board(...)`).
pub struct BoardSpec {
    pub size: Option<String>,
    pub shape: BoardShape,
    pub moves: BoardMove,
    /// `None` when the descriptor does not say (`Own` for pieces placed or stepped).
    pub pieces: Option<Pieces>,
    pub ends: Vec<BoardEnd>,
    pub cells: Option<String>,
}
