//! One game behind position text, whatever its type: what every front end holds.
//!
//! [`Session`] is object-safe: the CLI, the web server and sums hold a `Box<dyn Session>` and
//! never name a game's type. It is three traits by what they serve: [`SessionPositions`]
//! (position text, moves, ends), [`SessionAnswers`] (what a solve answers) and
//! [`SessionStore`] (the database). `Live` (`live.rs`) is the one implementation over any
//! game.

use crate::db::{Identity, Record};
use crate::game::{Board, GameInfo, GameResult, Kind, Value};
use crate::solve::{MoveInfo, Report, Solution, strategy};
use anyhow::Result;
use serde_json::Value as Json;
use std::path::PathBuf;

/// A cell of a drawn position, and what a click on it does.
#[derive(Clone, Debug)]
pub struct Cell {
    pub text: String,
    /// The move a click makes (its `name` is the click's text) and the value it leads to.
    pub click: Option<MoveInfo>,
}

/// A position drawn as a grid, each cell's click valued.
#[derive(Clone, Debug)]
pub struct BoardView {
    pub rows: usize,
    pub cols: usize,
    pub cells: Vec<Cell>,
}

/// What a save wrote.
#[derive(Clone, Debug)]
pub struct Saved {
    /// Positions saved: for a tier save, those reachable from the root (symmetry classes
    /// where `classes_only`), not the tiers' index slots.
    pub positions: u64,
    pub path: PathBuf,
    pub bytes: u64,
    pub seconds: f64,
    /// A tier save: the index slots of its tiers (every index, reachable or not) and its tiers.
    pub indices: Option<(u64, usize)>,
    /// A tier save whose root has symmetric images: `positions` counts symmetry classes.
    pub classes_only: bool,
    /// A tier save: the small tiers put into its pack (`tiers.pack`) once it was solved.
    pub packed: usize,
}

/// How `--save` solves and writes a game's database.
#[derive(Clone, Copy, Debug)]
pub struct SaveHow {
    /// Threads for the solve (a game with tiers: a tier at a time on all of them).
    pub threads: usize,
    /// A tier save: put its small tiers into one pack once solved ([`crate::db::array::ArrayDb::pack`]),
    /// where that takes fewer bytes than their files.
    pub pack: bool,
}

/// What `gamesman db bench` measures.
#[derive(Clone, Debug)]
pub struct DbBench {
    pub path: PathBuf,
    pub positions: usize,
    pub bytes: u64,
    pub open_seconds: f64,
    pub lookup_seconds: f64,
    pub samples: usize,
    pub move_mean_seconds: f64,
    pub move_worst_seconds: f64,
    pub moves_per_position: f64,
    /// The same moves again, the blocks they read now cached (a tier solve's arrays).
    pub move_warm_seconds: Option<f64>,
}

/// What a session answers of positions, without solving: their text, moves and ends.
pub trait SessionPositions {
    fn info(&self) -> &GameInfo;
    fn kind(&self) -> Kind {
        self.info().kind
    }
    /// "script", "descriptor", "native" or "sum": which engine answers.
    fn engine(&self) -> &'static str;
    /// What names the game's database (`None` for a game that has none, such as a sum).
    fn identity(&self) -> Option<&Identity>;
    /// The start position's text, if the game has one.
    fn start(&self) -> GameResult<Option<String>>;
    /// Position text as the game writes it (checked by reading it).
    fn normalize(&self, text: &str) -> GameResult<String>;
    /// One representative of the positions symmetric to `text`.
    fn canonical(&self, text: &str) -> GameResult<String>;
    /// The position drawn for a person.
    fn show(&self, text: &str) -> GameResult<String>;
    /// Whose turn: 0, 1, or `None` where the game does not say.
    fn to_move(&self, text: &str) -> GameResult<Option<usize>>;
    /// The value for the player to move if the game is over here (primitive).
    fn primitive(&self, text: &str) -> GameResult<Option<Value>>;
    /// The value if the game is over: primitive, or no moves left.
    fn ended(&self, text: &str) -> GameResult<Option<Value>>;
    /// The value of a non-primitive position with no moves.
    fn stalemate(&self) -> Value;
    /// The legal moves' names.
    fn move_names(&self, text: &str) -> GameResult<Vec<String>>;
    /// Every move's name and the position it leads to; none where the game is over.
    fn children(&self, text: &str) -> GameResult<Vec<(String, String)>>;
    /// A move as a person types it: its name as the game writes it, and the position after it.
    fn play(&self, text: &str, mv: &str) -> GameResult<(String, String)>;
    /// The `i`-th legal move (in the order of `move_names` and `moves`).
    fn play_nth(&self, text: &str, i: usize) -> GameResult<(String, String)>;
    /// `count` positions reached by random play (0 to `depth` moves) from `from`, or from the
    /// start position.
    fn random_positions(
        &self,
        from: Option<&str>,
        rng: &mut fastrand::Rng,
        count: usize,
        depth: usize,
    ) -> Result<Vec<String>>;
    /// The position as the game draws it (cells and the move each cell's click types),
    /// nothing valued: as cheap as reading the position.
    fn grid(&self, text: &str) -> GameResult<Option<Board>>;
    /// What the game's engine can do (`gamesman info`).
    fn features(&self) -> Features;
}

/// What a session answers by solving: values, remoteness, Grundy values, moves' values.
pub trait SessionAnswers {
    fn solve(&mut self, text: &str) -> GameResult<Report>;
    /// Value and remoteness, and the Grundy value where defined.
    fn value(&mut self, text: &str) -> GameResult<(Solution, Option<u64>)>;
    /// "database" where the saved database holds the position, else "search".
    fn source(&mut self, text: &str) -> GameResult<&'static str>;
    /// Every move with the value of the position it leads to.
    fn moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>>;
    /// `moves` in two steps, the first: every move with its value, `each` called with each
    /// as soon as it is known (and whether its remoteness is still to come). A remoteness
    /// that needs a full search is left out (`None`) for [`SessionAnswers::fill_remoteness`].
    fn move_values(&mut self, text: &str, each: &mut dyn FnMut(&MoveInfo, bool)) -> GameResult<Vec<MoveInfo>>;
    /// `moves` in two steps, the second: the remoteness `move_values` left out, filled in
    /// `list` where the full search finishes in its share of time (else
    /// [`SessionAnswers::remoteness_note`] says why). Nothing to do when none was left out.
    fn fill_remoteness(&mut self, list: &mut [MoveInfo]) -> GameResult<()>;
    /// Did `move_values` leave a remoteness for later?
    fn remoteness_pending(&self) -> bool;
    /// The Grundy value: the game's closed form where it has one, else by search.
    fn grundy(&mut self, text: &str) -> GameResult<Option<u64>>;
    /// Every move with the Grundy value of the position it leads to (what a sum needs).
    fn grundy_moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>>;
    /// The position as a grid whose cells are clicked as moves, each click valued.
    fn board(&mut self, text: &str) -> GameResult<Option<BoardView>>;
    /// Positions searched so far.
    fn visited(&self) -> u64;
    /// Why a remoteness search was skipped, if one was.
    fn remoteness_note(&self) -> Option<String>;
    /// Forget every search (after an error); the database stays.
    fn reset(&mut self);
    /// A winning strategy from `text`, as a tree (at most `max_nodes` positions).
    fn strategy(&mut self, text: &str, max_nodes: usize) -> GameResult<Vec<strategy::Node>>;
    /// The first way the game disagrees with its own moves at one of `positions`.
    fn self_check(&mut self, positions: &[String]) -> GameResult<Option<String>>;
}

/// What a session keeps: its database, written whole (`analyze`, `--save`) and read back.
pub trait SessionStore {
    /// The path of the game's database, saved or not.
    fn database_path(&self) -> Result<PathBuf>;
    /// `analyze`: the report of everything reachable (saved with the database when `save`,
    /// read from it when it holds one), as JSON.
    fn analyze(&mut self, text: &str, threads: usize, save: bool) -> Result<(Json, Option<Saved>)>;
    /// Solve everything reachable and save it in the game's database.
    fn save(&mut self, text: &str, how: SaveHow) -> Result<Saved>;
    /// `--save --mpi`: the tier solver over MPI, run under `mpirun` (docs/mpi.md). On rank 0,
    /// the manager, what was saved; on a worker rank, `None` once the manager has stopped it.
    /// Workers solve with `how.threads` threads. An error in a build without the feature `mpi`.
    fn save_mpi(&mut self, text: &str, how: SaveHow) -> Result<Option<Saved>>;
    /// Every position of the saved database (`text` = `None`), or of everything reachable from
    /// `text` (or the start) solved now.
    fn export(&mut self, text: Option<&str>, emit: &mut dyn FnMut(&str, Record) -> Result<()>) -> Result<()>;
    /// Time the saved database: opening, lookups, `play` moves.
    /// `root`: the position a tier solve was saved from (default: the start).
    fn db_bench(&mut self, samples: usize, root: Option<&str>) -> Result<DbBench>;
}

/// A game behind position text, as every front end holds it: its positions, its answers and
/// its store. Positions go in and out as the game writes them.
pub trait Session: SessionPositions + SessionAnswers + SessionStore {}

impl<T: SessionPositions + SessionAnswers + SessionStore> Session for T {}

/// What a game's engine can do, and whether its database is saved.
#[derive(Clone, Debug)]
pub struct Features {
    /// Solved tier by tier (`--save` writes an array database).
    pub tiers: bool,
    /// A position splits into parts whose Grundy values add up.
    pub split: bool,
    /// The saved database (a file, or a folder of tiers), if there is one.
    pub saved: Option<PathBuf>,
}
