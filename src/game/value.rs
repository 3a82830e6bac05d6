//! The words every game shares: its kind, a position's value, the errors, its metadata, an
//! answer without search, a position drawn as a grid. Below the trait ([`super::rules`]) and
//! the capabilities, so that every file of `game/` can use them.

use std::fmt;

/// The kind of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Two players with the same moves from every position (Nim, TacTix, Chomp).
    /// Grundy values are defined under normal play.
    Impartial,
    /// Two players who may have different moves (tic-tac-toe).
    Partisan,
    /// One player: reach a solved position in as few moves as possible (Lights Out).
    Puzzle,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Impartial => "impartial",
            Kind::Partisan => "partisan",
            Kind::Puzzle => "puzzle",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        match text.trim().to_ascii_lowercase().as_str() {
            "impartial" => Some(Kind::Impartial),
            "partisan" | "partizan" => Some(Kind::Partisan),
            "puzzle" => Some(Kind::Puzzle),
            _ => None,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The game-theoretic value of a position for the player to move.
///
/// For a puzzle, `Win` means "solvable" and `Lose` means "unsolvable".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Win,
    Lose,
    Tie,
    /// Neither side can force an end (only in loopy games).
    Draw,
}

impl Value {
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Lose => "lose",
            Value::Tie => "tie",
            Value::Draw => "draw",
        }
    }

    /// What the value is called for a kind of game: a puzzle's `win` is "solvable" and
    /// anything else "unsolvable"; the values of two-player games are their own names.
    pub fn name_in(self, kind: Kind) -> &'static str {
        match (kind, self) {
            (Kind::Puzzle, Value::Win) => "solvable",
            (Kind::Puzzle, _) => "unsolvable",
            _ => self.as_str(),
        }
    }

    /// The value seen from the other side of the board.
    pub fn flip(self) -> Value {
        match self {
            Value::Win => Value::Lose,
            Value::Lose => Value::Win,
            other => other,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that can go wrong while asking a game about a position.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GameError {
    /// The position text could not be read.
    #[error("invalid position: {0}")]
    BadPosition(String),
    /// A move that is not legal here, or that the game cannot read.
    #[error("invalid move: {0}")]
    BadMove(String),
    /// The game definition itself failed (a script error, a broken descriptor).
    /// The message already names the file, line and column where there is one.
    #[error("{0}")]
    Definition(String),
    /// A question the game cannot answer (e.g. a Grundy value of a loopy game).
    #[error("{0}")]
    Unsupported(String),
    /// The solver ran out of its memory budget and could not go on.
    #[error("{0}")]
    OutOfMemory(String),
    /// The time budget (`--time-limit`) ran out.
    #[error("{0}")]
    TimeLimit(String),
    /// A solved-game database could not be read.
    #[error("{0}")]
    Database(String),
}

pub type GameResult<T> = Result<T, GameError>;

/// The most moves one position may list: beyond it, a search could not finish anyway, and
/// the list alone could exhaust memory (a TacTix row of 100,000 tokens has five billion).
pub const MAX_MOVES: u64 = 1_000_000;

/// How many heap bytes a value owns, so that a memo table can keep to a memory budget.
pub trait Footprint {
    fn heap_bytes(&self) -> usize {
        0
    }

    /// The value as bytes, when it is held as bytes that tell it apart: two values with
    /// bytes are equal exactly when their bytes are. A memo table then keeps the bytes
    /// instead of the value (a script's packed position), in a few bytes more than their
    /// length. `None` (the default): the table keeps the value itself.
    fn packed(&self) -> Option<&[u8]> {
        None
    }

    /// The value whose [`Footprint::packed`] bytes are `bytes`, when it can be made again from
    /// them. `Some` lets the explorer hold its positions as bytes (see
    /// [`Nodes`](crate::solve::graph::Nodes)); `None` (the default): it holds the values.
    fn unpacked(bytes: &[u8]) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = bytes;
        None
    }
}

impl Footprint for u64 {}
impl Footprint for u32 {}
impl Footprint for i64 {}
impl Footprint for u128 {}
impl<T: Footprint> Footprint for Vec<T> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * std::mem::size_of::<T>() + self.iter().map(Footprint::heap_bytes).sum::<usize>()
    }
}
impl Footprint for Box<[u8]> {
    fn heap_bytes(&self) -> usize {
        self.len()
    }
}

/// An answer a game can give without search (a closed form, a special algorithm).
#[derive(Clone, Debug)]
pub struct Shortcut<M> {
    pub value: Value,
    /// `None` when the shortcut does not know it; the solver may then search for it.
    pub remoteness: Option<u32>,
    pub grundy: Option<u64>,
    /// Two players: every move that keeps the value, in move order. A puzzle: the moves of one
    /// shortest solution.
    pub winning_moves: Vec<M>,
}

/// Metadata every game carries.
#[derive(Clone, Debug)]
pub struct GameInfo {
    /// Short name (`chomp`).
    pub name: String,
    /// One line saying what the game is.
    pub description: String,
    pub kind: Kind,
    /// The native module that implements the same rules, if any (`"chomp"`).
    pub native: Option<String>,
    /// How `play` announces a move of a puzzle (`"Flipping"` for Lights Out; default `"Move"`).
    pub move_verb: Option<String>,
    /// What `play` says when a puzzle is solved (default `"Solved!"`).
    pub solved_message: Option<String>,
    /// The two players' names, first player first (a script's `PLAYERS`; default X and O).
    pub players: Option<[String; 2]>,
}

impl GameInfo {
    /// The metadata of a game written in Rust and found by its own name (no definition file
    /// names it): its name, one line saying what it is, its kind; `native` is its own name.
    pub fn native(name: &str, description: &str, kind: Kind) -> GameInfo {
        GameInfo {
            name: name.into(),
            description: description.into(),
            kind,
            native: Some(name.into()),
            move_verb: None,
            solved_message: None,
            players: None,
        }
    }

    /// The name of player `side` (0: the first player, 1: the second).
    pub fn player_name(&self, side: usize) -> &str {
        match &self.players {
            Some(names) => &names[side & 1],
            None => ["X", "O"][side & 1],
        }
    }
}

/// A position drawn as a grid of cells, for the web page (`gamesman serve`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    pub rows: usize,
    pub cols: usize,
    /// One short text a cell, row by row. The page draws `x` and `o` as pieces, `#` as a
    /// token (or a light that is on), `.` and `0` as empty, anything else as text.
    pub cells: Vec<String>,
    /// What a click on each cell types as a move (as `play` reads moves), or `None`.
    pub clicks: Vec<Option<String>>,
}

impl Board {
    /// A board whose cell (r, c) is clicked as the move `r:c`.
    pub fn new(rows: usize, cols: usize, cells: Vec<String>) -> Board {
        let clicks = (0..rows * cols).map(|i| Some(format!("{}:{}", i / cols, i % cols))).collect();
        Board { rows, cols, cells, clicks }
    }
}
