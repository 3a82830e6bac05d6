//! What a game is.
//!
//! Every way of defining a game (a Rhai script, a RON descriptor, a native Rust module)
//! implements [`Game`]. The solvers in [`crate::solve`] know nothing else about a game.
//!
//! The trait follows GAMESMAN's split between what a solver needs (moves, play, primitive
//! value, the optional `split` and `canonical` hooks) and what a person needs (parse and
//! format positions, name moves).

mod misere;
pub mod packed;
pub mod tier;

pub use misere::Misere;

use std::fmt;
use std::hash::Hash;

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

/// A position on its way between threads (see [`Replica`]).
pub type Wire = Box<dyn std::any::Any + Send>;

/// What a parallel solve needs of a game: a recipe for an independent copy of it on another
/// thread (a script engine is not shared between threads), and a way for positions to cross.
pub struct Replica<'a, G: Game> {
    pub make: std::sync::Arc<dyn Fn() -> GameResult<G> + Send + Sync + 'a>,
    pub send: fn(&G::Pos) -> Wire,
    pub receive: fn(Wire) -> G::Pos,
}

/// A game, as the solvers see it.
///
/// Required: position text in and out, moves, play, the primitive value.
/// Optional hooks and their fallbacks:
/// - [`Game::split`]: `None` (the position is one indivisible game).
/// - [`Game::canonical`]: the position itself (no symmetry reduction).
/// - [`Game::start`]: `None` (a position must be given).
/// - [`Game::stalemate`]: `Lose` — a position that is not primitive and has no moves is a
///   loss for the player to move (normal play; for a puzzle, a dead end).
/// - [`Game::tiers`]: `None` — no positions by index: `--save` explores the game whole and
///   keeps it in the redb store (see [`tier`]).
/// - [`Game::packed`]: `None` — a puzzle is searched over its own positions (see [`packed`]).
/// - [`Game::packed_sum`]: `None` — Grundy values are searched over the game's own positions
///   through `split`, `canonical`, `children` and `move_count` (see [`packed::PackedSum`]).
/// - [`Game::packed_play`]: `None` — the full search of value and remoteness works on the
///   game's own positions (see [`packed::PackedPlay`]).
pub trait Game {
    /// A position. Memo tables key on it, so equality must mean "same position".
    type Pos: Clone + Eq + Hash + Footprint;
    /// A move from some position.
    type Move: Clone;

    fn info(&self) -> &GameInfo;

    fn kind(&self) -> Kind {
        self.info().kind
    }

    /// The usual starting position, if the game has one.
    fn start(&self) -> GameResult<Option<Self::Pos>> {
        Ok(None)
    }

    /// Read position text.
    fn parse(&self, text: &str) -> GameResult<Self::Pos>;

    /// Write position text that [`Game::parse`] reads back.
    fn format(&self, pos: &Self::Pos) -> GameResult<String>;

    /// The legal moves from `pos` (empty at the end of the game).
    fn moves(&self, pos: &Self::Pos) -> GameResult<Vec<Self::Move>>;

    /// The position after `mv`.
    fn play(&self, pos: &Self::Pos, mv: &Self::Move) -> GameResult<Self::Pos>;

    /// A short name for `mv` that a person can type.
    fn move_name(&self, pos: &Self::Pos, mv: &Self::Move) -> GameResult<String>;

    /// The value of `pos` for the player to move if the game is over there, else `None`.
    fn primitive(&self, pos: &Self::Pos) -> GameResult<Option<Value>>;

    /// The value of a non-primitive position with no moves.
    fn stalemate(&self) -> Value {
        Value::Lose
    }

    /// Decomposition: `Some(parts)` when `pos` is a sum of independent games.
    /// An empty list means the empty game (Grundy value 0).
    fn split(&self, _pos: &Self::Pos) -> GameResult<Option<Vec<Self::Pos>>> {
        Ok(None)
    }

    /// Symmetry: one representative of the positions equivalent to `pos`.
    fn canonical(&self, pos: &Self::Pos) -> GameResult<Self::Pos> {
        Ok(pos.clone())
    }

    /// Whose turn it is at `pos`: 0 for the first player, 1 for the second; `None` when the
    /// game does not say (players then alternate from whatever position play starts at).
    fn to_move(&self, _pos: &Self::Pos) -> GameResult<Option<usize>> {
        Ok(None)
    }

    /// True when the game defines `split` (so Grundy values can fold over parts).
    fn has_split(&self) -> bool {
        false
    }

    /// A fast answer for `pos` without search, where the game has one (native modules).
    fn shortcut(&self, _pos: &Self::Pos) -> GameResult<Option<Shortcut<Self::Move>>> {
        Ok(None)
    }

    /// [`Game::shortcut`] without its winning moves (left empty): all a position's value
    /// needs. A game whose winning moves cost a scan of every move overrides it, so that the
    /// value of each child of a position is not a scan of the child's moves too.
    fn shortcut_value(&self, pos: &Self::Pos) -> GameResult<Option<Shortcut<Self::Move>>> {
        Ok(self.shortcut(pos)?.map(|sc| Shortcut { winning_moves: Vec::new(), ..sc }))
    }

    /// The same under misère play (see [`Misere`]).
    fn shortcut_misere(&self, _pos: &Self::Pos) -> GameResult<Option<Shortcut<Self::Move>>> {
        Ok(None)
    }

    /// Roughly how much work a search from `pos` would be, in moves examined (positions
    /// times the moves from each), when the game can tell; a solver skips a remoteness search
    /// that could not finish. (One Nim heap of 100,000 has only 100,001 positions, but five
    /// billion moves between them.)
    fn search_size(&self, _pos: &Self::Pos) -> Option<f64> {
        None
    }

    // --- The gameplay API (what `gamesman play` needs beyond the solver's API) ---

    /// A copy of this game for another thread, where the game can make one; `None` keeps
    /// the solvers on one thread.
    fn replicate(&self) -> Option<Replica<'_, Self>>
    where
        Self: Sized,
    {
        None
    }

    /// `pos` as a grid of cells for the web page, where the game is drawn that way.
    fn board(&self, _pos: &Self::Pos) -> GameResult<Option<Board>> {
        Ok(None)
    }

    /// How to draw `pos` for a person (several lines allowed). Default: the position text.
    fn show(&self, pos: &Self::Pos) -> GameResult<String> {
        self.format(pos)
    }

    /// The move a person typed. Default: the legal move whose [`Game::move_name`] it is
    /// (ignoring case and surrounding spaces). A game may accept moves the solver never
    /// generates (Lights Out lets a person press any light, while its solver only presses
    /// lights in reading order).
    fn parse_move(&self, pos: &Self::Pos, text: &str) -> GameResult<Self::Move> {
        default_parse_move(self, pos, text)
    }

    /// How many moves `pos` has: the value-first search tries the children whose player has
    /// the fewest first. Override when counting is cheaper than listing them.
    fn move_count(&self, pos: &Self::Pos) -> GameResult<usize> {
        Ok(self.moves(pos)?.len())
    }

    /// Every position one move away. Override when it is cheaper than `moves` + `play`.
    fn children(&self, pos: &Self::Pos) -> GameResult<Vec<Self::Pos>> {
        let moves = self.moves(pos)?;
        moves.iter().map(|m| self.play(pos, m)).collect()
    }

    /// Positions by index (see [`tier`]): the game's tiers, and each position's place in
    /// its tier, so that the tier solver and the array database can work on it. Its moves,
    /// primitive values and symmetry must agree with the rest of the trait.
    fn tiers(&self) -> Option<&dyn tier::Tiers<Pos = Self::Pos>> {
        None
    }

    /// A puzzle's positions reachable from `root` packed in 128 bits, maybe numbered (see
    /// [`packed`]): the puzzle search and `analyze` then run on keys, natively, with a flat
    /// array or a table of keys. Its children and primitive values must agree with the rest of
    /// the trait.
    fn packed(&self, _root: &Self::Pos) -> Option<Box<dyn packed::Packed<Self::Pos> + '_>> {
        None
    }

    /// An impartial game's positions reachable from `root` as 64-bit keys that split into
    /// canonical parts (see [`packed::PackedSum`]): the Grundy search then runs on keys,
    /// natively. Only for normal play (a misère wrapper leaves it out); its parts, children
    /// and move counts must agree with `split`, `canonical`, `children` and `move_count`.
    fn packed_sum(&self, _root: &Self::Pos) -> Option<Box<dyn packed::PackedSum<Self::Pos>>> {
        None
    }

    /// A two-player game's positions reachable from `root` as 128-bit keys (see
    /// [`packed::PackedPlay`]): the full search of value and remoteness, and the value-first
    /// search with its depth-bounded remoteness searches, then run on keys, natively. Its
    /// children, ends and symmetries must agree with `children`, `primitive`, `stalemate` and
    /// `canonical`; a wrapper that changes the ends (misère play) leaves it out.
    fn packed_play(&self, _root: &Self::Pos) -> Option<Box<dyn packed::PackedPlay<Self::Pos>>> {
        None
    }
}

/// [`Game::parse_move`]'s default: the legal move whose name `text` is.
pub fn default_parse_move<G: Game + ?Sized>(game: &G, pos: &G::Pos, text: &str) -> GameResult<G::Move> {
    let want = text.trim();
    let moves = game.moves(pos)?;
    let mut names = Vec::with_capacity(moves.len());
    for mv in moves {
        let name = game.move_name(pos, &mv)?;
        if name.eq_ignore_ascii_case(want) {
            return Ok(mv);
        }
        names.push(name);
    }
    Err(GameError::BadMove(if names.is_empty() {
        format!("{want:?}: there are no moves here")
    } else {
        format!("{want:?} is not a legal move here (legal: {})", names.join(", "))
    }))
}

/// A borrowed game is a game (so that wrappers such as [`Misere`] can borrow one).
impl<G: Game + ?Sized> Game for &G {
    type Pos = G::Pos;
    type Move = G::Move;

    fn info(&self) -> &GameInfo {
        (**self).info()
    }
    fn kind(&self) -> Kind {
        (**self).kind()
    }
    fn start(&self) -> GameResult<Option<G::Pos>> {
        (**self).start()
    }
    fn parse(&self, text: &str) -> GameResult<G::Pos> {
        (**self).parse(text)
    }
    fn format(&self, pos: &G::Pos) -> GameResult<String> {
        (**self).format(pos)
    }
    fn moves(&self, pos: &G::Pos) -> GameResult<Vec<G::Move>> {
        (**self).moves(pos)
    }
    fn play(&self, pos: &G::Pos, mv: &G::Move) -> GameResult<G::Pos> {
        (**self).play(pos, mv)
    }
    fn move_name(&self, pos: &G::Pos, mv: &G::Move) -> GameResult<String> {
        (**self).move_name(pos, mv)
    }
    fn primitive(&self, pos: &G::Pos) -> GameResult<Option<Value>> {
        (**self).primitive(pos)
    }
    fn stalemate(&self) -> Value {
        (**self).stalemate()
    }
    fn split(&self, pos: &G::Pos) -> GameResult<Option<Vec<G::Pos>>> {
        (**self).split(pos)
    }
    fn canonical(&self, pos: &G::Pos) -> GameResult<G::Pos> {
        (**self).canonical(pos)
    }
    fn has_split(&self) -> bool {
        (**self).has_split()
    }
    fn to_move(&self, pos: &G::Pos) -> GameResult<Option<usize>> {
        (**self).to_move(pos)
    }
    fn shortcut(&self, pos: &G::Pos) -> GameResult<Option<Shortcut<G::Move>>> {
        (**self).shortcut(pos)
    }
    fn shortcut_value(&self, pos: &G::Pos) -> GameResult<Option<Shortcut<G::Move>>> {
        (**self).shortcut_value(pos)
    }
    fn shortcut_misere(&self, pos: &G::Pos) -> GameResult<Option<Shortcut<G::Move>>> {
        (**self).shortcut_misere(pos)
    }
    fn search_size(&self, pos: &G::Pos) -> Option<f64> {
        (**self).search_size(pos)
    }
    fn show(&self, pos: &G::Pos) -> GameResult<String> {
        (**self).show(pos)
    }
    fn board(&self, pos: &G::Pos) -> GameResult<Option<Board>> {
        (**self).board(pos)
    }
    fn parse_move(&self, pos: &G::Pos, text: &str) -> GameResult<G::Move> {
        (**self).parse_move(pos, text)
    }
    fn move_count(&self, pos: &G::Pos) -> GameResult<usize> {
        (**self).move_count(pos)
    }
    fn children(&self, pos: &G::Pos) -> GameResult<Vec<G::Pos>> {
        (**self).children(pos)
    }
    fn tiers(&self) -> Option<&dyn tier::Tiers<Pos = G::Pos>> {
        (**self).tiers()
    }
    fn packed(&self, root: &G::Pos) -> Option<Box<dyn packed::Packed<G::Pos> + '_>> {
        (**self).packed(root)
    }
    fn packed_sum(&self, root: &G::Pos) -> Option<Box<dyn packed::PackedSum<G::Pos>>> {
        (**self).packed_sum(root)
    }
    fn packed_play(&self, root: &G::Pos) -> Option<Box<dyn packed::PackedPlay<G::Pos>>> {
        (**self).packed_play(root)
    }
}
