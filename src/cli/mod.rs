//! The `gamesman` commands. Commands only: parsing arguments, finding games, printing.

mod analyze;
mod assignments;
mod bench;
mod check;
mod database;
mod info;
mod moves;
mod output;
mod play;
mod sequence;
mod serve;
mod sum;
mod timing;

use crate::catalog::{Call, Catalog, Database, Engine, How, Session, Target};
use crate::progress::Progress;
use crate::solve::Options;
use anyhow::{Context, Result};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "gamesman",
    version,
    about = "Strongly solve, play and analyze two-player games and puzzles described as Rhai scripts or RON descriptors",
    after_help = "Examples:\n  gamesman solve chomp 4432\n  gamesman solve games/nim.rhai 3,4,5 --misere\n  \
                  gamesman moves tictactoe x...o....\n  gamesman games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a position: value, remoteness, Grundy value and the winning moves
    Solve(SolveArgs),
    /// List every move from a position with the value of the position it leads to
    Moves(SolveArgs),
    /// Play a game in the terminal: people, a perfect player or a random one, with hints
    Play(play::PlayArgs),
    /// Solve everything reachable from a position and count it: by value, remoteness, Grundy value
    Analyze(analyze::AnalyzeArgs),
    /// The nim-sequence of a heap game (octal or subtraction) and its period
    Sequence(sequence::SequenceArgs),
    /// What a game is: its rules in brief, position syntax, start, players, moves, engine and
    /// what it can do
    Info(info::InfoArgs),
    /// List the games found in the games directory
    Games {
        /// Directory to look in (default: see GAME in `gamesman solve --help`)
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Saved solved-game databases: list, info, rm
    Db(database::DbArgs),
    /// Print every position of a game's saved database (or of everything reachable from a
    /// position, solved now) with its value, remoteness and Grundy value
    Export(database::ExportArgs),
    /// A winning strategy from a won (or lost) position: the winner's move at each step and
    /// every reply of the loser, as a tree
    Strategy(database::StrategyArgs),
    /// A web page to play and study the games: moves coloured by value, the value history
    Serve(serve::ServeArgs),
    /// Measure positions solved per second: scripts, native modules and descriptors
    Bench(bench::BenchArgs),
    /// Solve random positions with two definitions of a game (script, descriptor, native); report disagreements
    Check(check::CheckArgs),
    /// The Nim assignment: `nim [-m] n1 [n2 ...]` prints loss!, or win! and every winning move
    #[command(disable_help_flag = true)]
    Nim {
        /// -m for misère play, then the heap sizes
        #[arg(allow_hyphen_values = true, trailing_var_arg = true, value_name = "ARGS")]
        args: Vec<String>,
    },
    /// The Nimrod assignment: whether the player to move loses at piles A B, and every winning move
    Nimrod(assignments::NimrodArgs),
    /// The Chomp assignment: LOSS, or WIN: and the state after the winning move on the leftmost piece
    Chomp {
        /// Column heights, non-increasing digits starting with a non-zero one (4432), or comma-separated
        #[arg(allow_hyphen_values = true, value_name = "STATE")]
        state: Option<String>,
        /// Memory budget in MiB for the table of the states below STATE (two bits a state): a
        /// board with more states is refused with a clear error
        #[arg(long, value_name = "MIB", default_value_t = 2048)]
        max_memory: usize,
        #[command(flatten)]
        limit: LimitArgs,
    },
    /// The TacTix contest: the nimsum of a P1 PBM board (stdin or FILE), or -1 when it cannot
    Tactix(assignments::TactixArgs),
    /// The Lights Out assignment: the presses (row:col) of a solution with the fewest presses
    Lightsout {
        /// A file of rows of # (on) and 0 (off), or - for stdin
        #[arg(value_name = "BOARD")]
        board: String,
        /// Memory budget in MiB: a board that would need more is refused with a clear error
        #[arg(long, value_name = "MIB", default_value_t = 1024)]
        max_memory: usize,
        #[command(flatten)]
        limit: LimitArgs,
    },
}

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
    game: String,
    /// Position text, the path of a file holding it, or - to read it from stdin.
    /// Default: the game's start position
    #[arg(value_name = "POSITION", allow_hyphen_values = true)]
    position: Option<String>,
    /// Take POSITION as text even when a file of that name exists (and `-` as the text `-`)
    #[arg(long)]
    literal: bool,
    /// Misère play: whoever makes the last move loses
    #[arg(long)]
    misere: bool,
    /// Memory budget in MiB. The solver's tables keep to it (when full, old entries are
    /// dropped), and so does anything an input would make large (a position's children, the
    /// positions on a search's path, a whole graph for analyze): past it, a clear error
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    max_memory: usize,
    /// Which engine answers: a native module that implements the game's rules (named by a
    /// script's NATIVE constant or a descriptor's `native`) or the game's own definition
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    engine: EngineChoice,
    /// The solved-game database to read, and to write with --save. Default: the one saved for
    /// this exact definition (script bytes, engine, --misere) in $XDG_CACHE_HOME/gamesman
    /// (~/.cache/gamesman); `gamesman db list` lists them
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Read no saved database: always search
    #[arg(long, conflicts_with = "db")]
    no_db: bool,
    /// The position text read (from the argument, a file or stdin), once.
    #[arg(skip)]
    text: std::sync::OnceLock<Option<String>>,
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
    time_limit: Option<std::time::Duration>,
    /// Write a progress line on stderr every 5 seconds even when stderr is not a terminal
    /// (a terminal shows a live indicator anyway)
    #[arg(long)]
    progress: bool,
}

/// A time limit alone, for the commands that show no progress: `--time-limit`.
#[derive(Args)]
pub struct LimitArgs {
    /// Stop after this many seconds with a clear message (exit status 1). Default: no limit
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    time_limit: Option<std::time::Duration>,
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

/// A number of seconds, 0 or more.
fn parse_seconds_or_zero(text: &str) -> Result<std::time::Duration, String> {
    if text.trim().parse::<f64>() == Ok(0.0) {
        return Ok(std::time::Duration::ZERO);
    }
    parse_seconds(text)
}

/// A positive number of seconds (below a billion, so that it is a `Duration`).
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("{text:?} is not a positive number of seconds"))
}

#[derive(Args)]
struct SolveArgs {
    #[command(flatten)]
    g: GameArgs,
    #[command(flatten)]
    watch: WatchArgs,
    /// Print one JSON object (an array for `moves`) instead of text
    #[arg(long)]
    json: bool,
    /// Do not search for remoteness: an impartial game's value then comes from its Grundy
    /// value alone, which is much faster where the position splits into parts
    #[arg(long)]
    no_remoteness: bool,
    /// `solve`: report the value, remoteness and Grundy value alone, without the moves that
    /// keep the value (or a puzzle's solution), and spend no search on them
    #[arg(long)]
    no_moves: bool,
    /// Search for remoteness even where the game estimates the search too large to finish
    /// (by default such a search is skipped, and the report says so)
    #[arg(long, conflicts_with = "no_remoteness")]
    full_search: bool,
    /// First solve everything reachable from the position and save it in the game's database
    /// (see --db); this and later commands then answer from it
    #[arg(long, conflicts_with_all = ["no_db", "no_remoteness"])]
    save: bool,
    /// With --save: solve the game's tiers over MPI, under `mpirun -np N` (or Slurm's `srun`):
    /// rank 0 manages and writes the database, the other ranks solve tiers with --threads
    /// threads each. Needs a gamesman built with the feature `mpi` (docs/mpi.md)
    #[arg(long, requires = "save")]
    mpi: bool,
    /// Threads for `--save` (a game with tiers is solved a tier at a time on all of them) and
    /// for a long search: one still running after a quarter of a second, of a game that can
    /// copy itself to other threads (scripts, descriptors), explores the whole game on all of
    /// them. Default: every core. The answers are the same for any number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// An endgame database of the nimbers of every part within BOX (Cram: `4x8`, every part
    /// that fits in 4 rows and 8 columns; one side the board's shorter side, at most 32 cells),
    /// asked before a part is searched: built if absent (said on stderr, with the time it
    /// took) and saved beside the game's database ($XDG_CACHE_HOME/gamesman), loaded by later
    /// runs. Without it, `solve` uses the largest one saved for the game and board, if any
    /// (--no-db: none). Games without parts on keys refuse it
    #[arg(long, value_name = "BOX", conflicts_with = "no_db")]
    endgame: Option<String>,
    /// Seconds of one-thread search before going over to all threads (default 0.25; for tests)
    #[arg(long, value_name = "SECONDS", hide = true, value_parser = parse_seconds_or_zero)]
    parallel_after: Option<std::time::Duration>,
}

impl SolveArgs {
    fn options(&self) -> Options {
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

/// `solve` and `moves`: on one game, or on a sum of games.
fn solve_or_sum(args: &SolveArgs, moves: bool) -> Result<i32> {
    if moves && args.no_moves {
        anyhow::bail!("--no-moves is for `gamesman solve`: `moves` lists every move");
    }
    match catalog().target(&args.g.game)? {
        Target::Sum(terms) => sum::run(args, &terms, moves),
        Target::Game(_) => solve(args, moves),
    }
}

/// `solve` and `moves` on one game.
fn solve(args: &SolveArgs, moves: bool) -> Result<i32> {
    let opts = args.options();
    let progress = opts.progress.clone();
    let mut session = args.g.open(opts)?;
    let pos = args.g.position(&*session, if moves { "moves" } else { "solve" })?;
    let started = Instant::now();
    if args.save {
        let saved = if args.mpi {
            match session.save_mpi(&pos, args.threads.map_or_else(default_threads, usize::from)) {
                // A worker rank: the manager prints.
                Ok(None) => {
                    progress.finish();
                    return Ok(0);
                }
                Ok(Some(s)) => Ok(s),
                Err(e) => Err(e),
            }
        } else {
            session.save(&pos, args.threads.map_or_else(default_threads, usize::from))
        };
        progress.finish();
        output::saved(&saved?);
    }
    if moves {
        return moves::run(args, &mut *session, &pos, &progress, started);
    } else {
        let report = session.solve(&pos);
        progress.finish();
        output::report(&*session, &report?, args.json, started.elapsed());
    }
    Ok(0)
}

/// The catalogue the commands use: the one [`main_with`] was given, else the shipped games.
pub fn catalog() -> &'static Catalog {
    CATALOG.get_or_init(Catalog::new)
}

static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();

/// Run the command line on the shipped games; returns the process exit code.
pub fn main() -> i32 {
    main_with(Catalog::new())
}

/// Run the command line with `catalog` (the shipped games and a library user's own, see
/// [`crate::catalog::Catalog::with_native`]); returns the process exit code. Every command
/// and the web page work on every game it holds:
///
/// ```no_run
/// use gamesman::catalog::{Catalog, Native};
/// # fn my_game(_: gamesman::game::GameInfo) -> gamesman::native::nim::Nim { unimplemented!() }
/// fn main() {
///     let info = gamesman::game::GameInfo::native("my-game", "what it is", gamesman::game::Kind::Impartial);
///     let catalog = Catalog::new().with_native(Native::new("my-game", my_game).standalone(info));
///     std::process::exit(gamesman::cli::main_with(catalog));
/// }
/// ```
///
/// Like every Unix tool, it stops quietly when the reader of its output goes away
/// (`... | head`): it restores the default action of SIGPIPE, which Rust's runtime ignores.
/// A file size limit (`ulimit -f`) is a write error like a full disk (EFBIG, reported with the
/// file's name), not a silent death by SIGXFSZ.
pub fn main_with(catalog: Catalog) -> i32 {
    #[cfg(unix)]
    // SAFETY: SIG_DFL and SIG_IGN are valid dispositions; changing them races with nothing
    // that reads them.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let _ = CATALOG.set(catalog);
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let matches = Cli::command().get_matches_from(&argv);
    if let Some(e) = mistyped_flag(&matches, &argv) {
        e.exit();
    }
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Solve(a) => solve_or_sum(&a, false),
        Command::Moves(a) => solve_or_sum(&a, true),
        Command::Play(a) => play::run(&a),
        Command::Analyze(a) => analyze::run(&a),
        Command::Db(a) => database::db_command(&a),
        Command::Serve(a) => serve::run(a),
        Command::Export(a) => database::export(&a),
        Command::Strategy(a) => database::strategy(&a),
        Command::Info(a) => info::run(&a),
        Command::Games { dir } => list_games(dir).map(|()| 0),
        Command::Sequence(a) => sequence::run(&a),
        Command::Bench(a) => bench::run(&a).map(|()| 0),
        Command::Check(a) => check::run(&a),
        Command::Nim { args } => assignments::run("nim", &Call { words: args, ..Call::default() }),
        Command::Nimrod(a) => {
            a.limit.start();
            assignments::run("nimrod", &a.call())
        }
        Command::Chomp { state, max_memory, limit } => {
            limit.start();
            let call = Call {
                words: state.into_iter().collect(),
                budget: max_memory.saturating_mul(1 << 20),
                ..Call::default()
            };
            assignments::run("chomp", &call)
        }
        Command::Lightsout { board, max_memory, limit } => {
            limit.start();
            let call = Call { words: vec![board], budget: max_memory.saturating_mul(1 << 20), ..Call::default() };
            assignments::run("lightsout", &call)
        }
        Command::Tactix(a) => assignments::run("tactix", &a.call()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // One line, whatever text the error quotes (a position with a newline in it).
            // One line, and a short one: a message that quotes input at length (a script's own
            // error text, say) is cut.
            let text = format!("{e:#}").replace('\n', "\\n").replace('\r', "\\r");
            match text.char_indices().nth(crate::input::MAX_MESSAGE) {
                Some((cut, _)) => eprintln!("gamesman: error: {}… (cut)", &text[..cut]),
                None => eprintln!("gamesman: error: {text}"),
            }
            1
        }
    }
}

/// A flag the command does not have, taken as a value: positions may start with `-` (`-` is
/// stdin), so clap takes `--no-remotenes` as the position. A value of a positional argument that
/// starts with `--` and came before a `--` that ends the flags is a mistyped flag: clap's own
/// error for it (the flag named, with the nearest flag of the command), found by parsing that
/// word alone where the command takes no value starting with a hyphen. The Nim assignment
/// takes its words as they come.
fn mistyped_flag(matches: &clap::ArgMatches, argv: &[std::ffi::OsString]) -> Option<clap::Error> {
    let mut path = Vec::new();
    let mut cmd = Cli::command();
    let mut m = matches;
    while let Some((name, sub)) = m.subcommand() {
        cmd = cmd.find_subcommand(name)?.clone();
        path.push(name.to_string());
        m = sub;
    }
    if path.first().is_some_and(|p| p == "nim") {
        return None;
    }
    let end = argv.iter().skip(1).position(|a| a == "--").map_or(argv.len(), |i| i + 1);
    let flag = cmd
        .get_positionals()
        .filter_map(|a| m.try_get_raw(a.get_id().as_str()).ok().flatten())
        .flatten()
        .filter_map(|v| v.to_str())
        .find(|v| v.len() > 2 && v.starts_with("--") && argv[..end].iter().any(|a| a == v))?
        .to_string();
    // The command again, its positional arguments taking no hyphen, and the word alone.
    fn strict(mut c: clap::Command, path: &[String]) -> clap::Command {
        match path.split_first() {
            None => {
                let ids: Vec<clap::Id> = c.get_positionals().map(|a| a.get_id().clone()).collect();
                for id in ids {
                    c = c.mut_arg(id, |a| a.allow_hyphen_values(false));
                }
                c
            }
            Some((first, rest)) => c.mut_subcommand(first, |s| strict(s, rest)),
        }
    }
    let mut words: Vec<String> = vec![argv.first().and_then(|a| a.to_str()).unwrap_or("gamesman").to_string()];
    words.extend(path.iter().cloned());
    words.push(flag);
    strict(Cli::command(), &path)
        .try_get_matches_from(words)
        .err()
        .filter(|e| e.kind() == clap::error::ErrorKind::UnknownArgument)
}

/// Position text from the argument: text, a file's contents, or stdin for `-`; a file or
/// stdin is read up to [`crate::input::position_limit`] of the memory budget of `budget` bytes.
fn position_text(arg: Option<&str>, budget: usize) -> Result<Option<String>> {
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

fn list_games(dir: Option<PathBuf>) -> Result<()> {
    let (dir, games) = catalog().list(dir.as_deref())?;
    println!("games in {}:", dir.display());
    let mut shared = Vec::new();
    for (name, info) in &games {
        match info {
            Ok(i) => println!("  {name:<22} {:<10} {}", i.kind.as_str(), i.description),
            Err(e) => println!("  {name:<22} (broken)  {e:#}"),
        }
        if let Some(stem) = name.strip_suffix(".ron")
            && games.iter().any(|(n, _)| n.strip_suffix(".rhai") == Some(stem))
        {
            shared.push(stem);
        }
    }
    if !shared.is_empty() {
        println!(
            "A bare name shared by a script and a descriptor ({}) means the script, or the descriptor where the \
             script does not read the position; name the file (cram.ron) to choose one. \
             `gamesman info GAME` tells more of a game.",
            shared.join(", ")
        );
    }
    Ok(())
}
