//! What the commands share: their arguments (the game, the engine, the budgets, the watch
//! over a long command) and the catalogue they find games in.

use crate::catalog::{Catalog, Database, Engine, How, Session};
use crate::progress::Progress;
use crate::solve::Options;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

/// Which engine answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// The native module when the game names one that exists, else the game's definition
    Auto,
    /// Always the game's own definition (the script or descriptor interpreter)
    Script,
    /// The native module; an error if there is none
    Native,
}

impl From<EngineChoice> for Engine {
    fn from(e: EngineChoice) -> Engine {
        match e {
            EngineChoice::Auto => Engine::Auto,
            EngineChoice::Script => Engine::Definition,
            EngineChoice::Native => Engine::Native,
        }
    }
}

/// What every command that works on one game takes.
#[derive(Args)]
pub struct GameArgs {
    /// A game script or descriptor (games/chomp.rhai, games/kayles.ron), or the name of a
    /// game (chomp: chomp.rhai, or chomp.ron where the script does not read the position).
    /// Games are looked for in $GAMESMAN_GAMES, then ./games, then among the games shipped
    /// inside gamesman
    #[arg(value_name = "GAME")]
    pub(super) game: String,
    /// Position text, the path of a file holding it, or - to read it from stdin.
    /// Default: the game's start position
    #[arg(value_name = "POSITION", allow_hyphen_values = true)]
    pub(super) position: Option<String>,
    /// Take POSITION as text even when a file of that name exists (and `-` as the text `-`)
    #[arg(long)]
    pub(super) literal: bool,
    /// Misère play: whoever makes the last move loses
    #[arg(long)]
    pub(super) misere: bool,
    /// Memory budget in MiB. The solver's tables keep to it (when full, old entries are
    /// dropped), and so does anything an input would make large (a position's children, the
    /// positions on a search's path, a whole graph for analyze): past it, a clear error
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    pub(super) max_memory: usize,
    /// Which engine answers: a native module that implements the game's rules (named by a
    /// script's NATIVE constant or a descriptor's `native`) or the game's own definition
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub(super) engine: EngineChoice,
    /// The solved-game database to read, and to write with --save. Default: the one saved for
    /// this exact definition (script bytes, engine, --misere) in $XDG_CACHE_HOME/gamesman
    /// (~/.cache/gamesman); `gamesman db list` lists them
    #[arg(long, value_name = "PATH")]
    pub(super) db: Option<PathBuf>,
    /// Read no saved database: always search
    #[arg(long, conflicts_with = "db")]
    pub(super) no_db: bool,
    /// The position text read (from the argument, a file or stdin), once.
    #[arg(skip)]
    pub(super) text: std::sync::OnceLock<Option<String>>,
}

impl GameArgs {
    fn max_memory_bytes(&self) -> usize {
        self.max_memory.saturating_mul(1 << 20)
    }

    /// How to open the game with the solvers' `options`.
    pub fn how(&self, options: Options) -> How {
        How {
            engine: self.engine.into(),
            misere: self.misere,
            options: Options { max_memory: self.max_memory_bytes(), ..options },
            database: match (&self.db, self.no_db) {
                (Some(p), _) => Database::At(p.clone()),
                (None, true) => Database::Off,
                (None, false) => Database::Saved,
            },
        }
    }

    /// Open the game from the catalogue: of the definitions a bare name may mean, the first
    /// that reads the position.
    pub fn open(&self, options: Options) -> Result<Box<dyn Session>> {
        let text = self.text()?;
        Ok(catalog().open_reading(&self.game, &self.how(options), text.as_deref())?.0)
    }

    /// The position text given (the argument, a file's contents, stdin), read once.
    fn text(&self) -> Result<Option<String>> {
        if let Some(t) = self.text.get() {
            return Ok(t.clone());
        }
        let text = match (&self.position, self.literal) {
            (Some(p), true) => Some(p.clone()),
            (p, false) => position_text(p.as_deref(), self.max_memory_bytes())?,
            (None, true) => None,
        };
        let _ = self.text.set(text.clone());
        Ok(text)
    }

    /// The position to start from: the argument (text, a file, stdin), or the start position.
    pub fn position(&self, session: &dyn Session, command: &str) -> Result<String> {
        match self.text()? {
            Some(t) => Ok(session.normalize(&t)?),
            None => session.start()?.ok_or_else(|| {
                anyhow::anyhow!(
                    "{} has no start position: give one, e.g. `gamesman {command} {} POSITION`",
                    session.info().name,
                    self.game
                )
            }),
        }
    }
}

/// The watch over a long command: a time budget and progress lines.
#[derive(Args)]
pub struct WatchArgs {
    /// Stop after this many seconds with a clear message (exit status 1). Default: no limit
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub(super) time_limit: Option<std::time::Duration>,
    /// Write a progress line on stderr every 5 seconds even when stderr is not a terminal
    /// (a terminal shows a live indicator anyway)
    #[arg(long)]
    pub(super) progress: bool,
}

/// A time limit alone, for the commands that show no progress: `--time-limit`.
#[derive(Args)]
pub struct LimitArgs {
    /// Stop after this many seconds with a clear message (exit status 1). Default: no limit
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub(super) time_limit: Option<std::time::Duration>,
}

impl LimitArgs {
    /// Start the clock: past the limit (and a tenth) the process ends with the time-limit
    /// error ([`crate::progress::enforce`]); the handle returned, given to the solvers, lets
    /// them stop first with their own message. No limit: a handle that is off.
    pub fn start(&self) -> Progress {
        match self.time_limit {
            Some(limit) => {
                crate::progress::enforce(limit);
                Progress::budget(limit)
            }
            None => Progress::default(),
        }
    }
}

impl WatchArgs {
    pub fn progress(&self) -> Progress {
        if let Some(limit) = self.time_limit {
            crate::progress::enforce(limit);
        }
        Progress::new(self.progress, self.time_limit)
    }
}

/// Threads for a whole-game solve: every core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--threads N` given: every parallel part of the command (the solver's own pools and
/// rayon's global pool, which the walk of a saved tier solve and lookups run on) holds to
/// `N` threads. The first call of the process sets the global pool; later calls keep it.
pub fn hold_threads(threads: Option<u16>) {
    if let Some(n) = threads {
        // Fails only once the global pool exists (a library caller's, or a second command).
        let _ = rayon::ThreadPoolBuilder::new().num_threads(usize::from(n).max(1)).build_global();
    }
}

/// A number of seconds, 0 or more.
pub(super) fn parse_seconds_or_zero(text: &str) -> Result<std::time::Duration, String> {
    if text.trim().parse::<f64>() == Ok(0.0) {
        return Ok(std::time::Duration::ZERO);
    }
    parse_seconds(text)
}

/// A positive number of seconds (below a billion, so that it is a `Duration`).
pub(super) fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("{text:?} is not a positive number of seconds"))
}

#[derive(Args)]
pub(super) struct SolveArgs {
    #[command(flatten)]
    pub(super) g: GameArgs,
    #[command(flatten)]
    pub(super) watch: WatchArgs,
    /// Print one JSON object (an array for `moves`) instead of text
    #[arg(long)]
    pub(super) json: bool,
    /// Do not search for remoteness: an impartial game's value then comes from its Grundy
    /// value alone, which is much faster where the position splits into parts
    #[arg(long)]
    pub(super) no_remoteness: bool,
    /// `solve`: report the value, remoteness and Grundy value alone, without the moves that
    /// keep the value (or a puzzle's solution), and spend no search on them
    #[arg(long)]
    pub(super) no_moves: bool,
    /// Search for remoteness even where the game estimates the search too large to finish
    /// (by default such a search is skipped, and the report says so)
    #[arg(long, conflicts_with = "no_remoteness")]
    pub(super) full_search: bool,
    /// First solve everything reachable from the position and save it in the game's database
    /// (see --db); this and later commands then answer from it
    #[arg(long, conflicts_with_all = ["no_db", "no_remoteness"])]
    pub(super) save: bool,
    /// With --save: solve the game's tiers over MPI, under `mpirun -np N` (or Slurm's `srun`):
    /// rank 0 manages and writes the database, the other ranks solve tiers with --threads
    /// threads each. Needs a gamesman built with the feature `mpi` (docs/mpi.md)
    #[arg(long, requires = "save")]
    pub(super) mpi: bool,
    /// With --save of a game with tiers: keep one file a tier. By default, once solved, the
    /// small tiers' files (64 KiB or less) go into one compressed pack, `tiers.pack`, where
    /// that takes fewer bytes (as `gamesman db pack` does)
    #[arg(long, requires = "save")]
    pub(super) no_pack: bool,
    /// Threads for `--save` (a game with tiers is solved a tier at a time on all of them) and
    /// for a long search: one still running after a quarter of a second, of a game that can
    /// copy itself to other threads (scripts, descriptors), explores the whole game on all of
    /// them. Default: every core. The answers are the same for any number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub(super) threads: Option<u16>,
    /// An endgame database of the nimbers of every part within BOX (Cram: `4x8`, every part
    /// that fits in 4 rows and 8 columns; one side the board's shorter side, at most 32 cells),
    /// asked before a part is searched: built if absent (said on stderr, with the time it
    /// took) and saved beside the game's database ($XDG_CACHE_HOME/gamesman), loaded by later
    /// runs. Without it, `solve` uses the largest one saved for the game and board, if any
    /// (--no-db: none). Games without parts on keys refuse it
    #[arg(long, value_name = "BOX", conflicts_with = "no_db")]
    pub(super) endgame: Option<String>,
    /// Seconds of one-thread search before going over to all threads (default 0.25; for tests)
    #[arg(long, value_name = "SECONDS", hide = true, value_parser = parse_seconds_or_zero)]
    pub(super) parallel_after: Option<std::time::Duration>,
}

impl SolveArgs {
    pub(super) fn options(&self) -> Options {
        Options {
            max_memory: self.g.max_memory_bytes(),
            remoteness: !self.no_remoteness,
            progress: self.watch.progress(),
            full_search: self.full_search,
            moves: !self.no_moves,
            threads: self.threads.map_or_else(default_threads, usize::from),
            parallel_after: self.parallel_after,
            endgame: (!self.g.no_db)
                .then(|| crate::solve::part_db::Endgame { bound: self.endgame.clone(), ..Default::default() }),
        }
    }
}

/// The catalogue the commands use: the one [`main_with`](super::main_with) was given, else the
/// shipped games.
pub fn catalog() -> &'static Catalog {
    CATALOG.get_or_init(Catalog::new)
}

pub(super) static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();

/// Position text from the argument: text, a file's contents, or stdin for `-`; a file or
/// stdin is read up to [`crate::input::position_limit`] of the memory budget of `budget` bytes.
pub(super) fn position_text(arg: Option<&str>, budget: usize) -> Result<Option<String>> {
    let limit = crate::input::position_limit(budget);
    match arg {
        None => Ok(None),
        Some("-") => Ok(Some(
            crate::input::read_text(std::io::stdin().lock(), limit, "the position on stdin")
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        )),
        Some(a) if Path::new(a).is_file() => {
            let f = std::fs::File::open(a).with_context(|| format!("cannot read the position file {a}"))?;
            let what = format!("the position file {a}");
            Ok(Some(crate::input::read_text(f, limit, &what).map_err(|e| anyhow::anyhow!("{e}"))?))
        }
        Some(a) => Ok(Some(a.to_string())),
    }
}
