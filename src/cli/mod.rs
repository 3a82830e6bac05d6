//! The `gamesman` commands. Commands only: parsing arguments, finding games, printing.

mod analyze;
mod assignments;
mod bench;
mod check;
mod database;
mod output;
mod play;
mod sequence;
mod serve;
mod sum;

use crate::db::{self, Identity, Store};
use crate::descriptor::DescriptorGame;
use crate::game::{Game, GameInfo, Kind, Misere};
use crate::native::{NativeKind, chomp::Chomp, lightsout::LightsOut, nim::Nim, nimrod::Nimrod, tactix::TacTix};
use crate::progress::Progress;
use crate::script::ScriptGame;
use crate::solve::{Analyzer, Options};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Read;
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

/// What every command that works on one game takes.
#[derive(Args)]
pub struct GameArgs {
    /// A game script or descriptor (games/chomp.rhai, games/kayles.ron), or the name of one
    /// in the games directory (chomp: chomp.rhai, else chomp.ron). Games are looked for in
    /// $GAMESMAN_GAMES, then ./games, then the games directory of the source tree gamesman
    /// was built from
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
}

impl GameArgs {
    fn max_memory_bytes(&self) -> usize {
        self.max_memory.saturating_mul(1 << 20)
    }

    /// Where this game's database is: --db, else its name in the default directory.
    pub fn db_path(&self, ctx: &Ctx) -> Result<PathBuf> {
        match &self.db {
            Some(p) => Ok(p.clone()),
            None => Ok(db::default_dir()?.join(ctx.id.file_name())),
        }
    }

    /// The saved database for this game, when there is one (and --no-db is not given). One
    /// that exists but is damaged, or saved for another definition, is an error.
    pub fn database(&self, ctx: &Ctx) -> Result<Option<Store>> {
        if self.no_db {
            return Ok(None);
        }
        let path = match (&self.db, db::default_dir()) {
            (Some(p), _) => p.clone(),
            (None, Ok(dir)) => dir.join(ctx.id.file_name()),
            (None, Err(_)) => return Ok(None),
        };
        if !path.exists() {
            if self.db.is_some() {
                bail!("{}: no such database (write one with `--save`)", path.display());
            }
            return Ok(None);
        }
        Ok(Some(Store::open(&path, Some(&ctx.id.hash))?))
    }

    /// An analyzer that reads the game's saved database first, where there is one.
    pub fn analyzer<'g, G: Game>(&self, game: &'g G, opts: Options, ctx: &Ctx) -> Result<Analyzer<'g, G>> {
        let a = Analyzer::new(game, opts);
        Ok(match self.database(ctx)? {
            Some(store) => a.with_database(store),
            None => a,
        })
    }

    /// The position to start from: the argument, or the game's start position.
    fn position<G: Game>(&self, game: &G, command: &str) -> Result<G::Pos> {
        let text = match (&self.position, self.literal) {
            (Some(p), true) => Some(p.clone()),
            (p, false) => position_text(p.as_deref())?,
            (None, true) => None,
        };
        match text {
            Some(text) => Ok(game.parse(&text)?),
            None => game.start()?.ok_or_else(|| {
                anyhow!(
                    "{} has no start position: give one, e.g. `gamesman {command} {} POSITION`",
                    game.info().name,
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

impl WatchArgs {
    pub fn progress(&self) -> Progress {
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
    /// Search for remoteness even where the game estimates the search too large to finish
    /// (by default such a search is skipped, and the report says so)
    #[arg(long, conflicts_with = "no_remoteness")]
    full_search: bool,
    /// First solve everything reachable from the position and save it in the game's database
    /// (see --db); this and later commands then answer from it
    #[arg(long, conflicts_with_all = ["no_db", "no_remoteness"])]
    save: bool,
    /// Threads for a long search: one still running after a quarter of a second, of a game
    /// that can copy itself to other threads (scripts, descriptors), explores the whole game
    /// on all of them. Default: every core. The answers are the same for any number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
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
            threads: self.threads.map_or_else(default_threads, usize::from),
            parallel_after: self.parallel_after,
        }
    }
}

/// What a command knows about the game beside its rules: which engine answers, and the
/// identity its database is named by.
pub struct Ctx {
    /// "script", "descriptor" or "native".
    pub engine: &'static str,
    pub id: Identity,
}

/// A command on one game, run with whichever engine answers (script, native, misère).
pub trait GameCommand {
    fn args(&self) -> &GameArgs;
    /// Run on `game`. Returns the exit code.
    fn run<G: Game>(&self, game: &G, ctx: &Ctx) -> Result<i32>;
}

struct Solve<'a>(&'a SolveArgs, bool);

impl GameCommand for Solve<'_> {
    fn args(&self) -> &GameArgs {
        &self.0.g
    }

    fn run<G: Game>(&self, game: &G, ctx: &Ctx) -> Result<i32> {
        let (args, moves) = (self.0, self.1);
        let pos = args.g.position(game, if moves { "moves" } else { "solve" })?;
        let started = Instant::now();
        if args.save {
            database::save(game, &pos, &args.g, &args.watch, ctx)?;
        }
        let opts = args.options();
        let progress = opts.progress.clone();
        let mut analyzer = args.g.analyzer(game, opts, ctx)?;
        if moves {
            let list = analyzer.moves(&pos);
            progress.finish();
            let over = game.primitive(&pos)?;
            output::moves(game, &list?, over, args.json, analyzer.visited(), started.elapsed());
            if let (Some(why), false) = (analyzer.remoteness_note(), args.json) {
                eprintln!("remoteness: {why}");
            }
        } else {
            let report = analyzer.solve(&pos);
            progress.finish();
            output::report(game, &report?, args.json, ctx.engine, started.elapsed());
        }
        Ok(0)
    }
}

/// Run the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(a) if sum::is_sum(&a.g.game) => sum::run(&a, false),
        Command::Moves(a) if sum::is_sum(&a.g.game) => sum::run(&a, true),
        Command::Solve(a) => with_game(&Solve(&a, false)),
        Command::Moves(a) => with_game(&Solve(&a, true)),
        Command::Play(a) => with_game(&a),
        Command::Analyze(a) => with_game(&a),
        Command::Db(a) => database::db_command(&a),
        Command::Serve(a) => serve::run(a),
        Command::Export(a) => with_game(&a),
        Command::Strategy(a) => with_game(&a),
        Command::Games { dir } => list_games(dir).map(|()| 0),
        Command::Sequence(a) => sequence::run(&a),
        Command::Bench(a) => bench::run(&a).map(|()| 0),
        Command::Check(a) => check::run(&a),
        Command::Nim { args } => Ok(assignments::nim(&args)),
        Command::Nimrod(a) => assignments::nimrod(&a),
        Command::Chomp { state } => assignments::chomp(state.as_deref()),
        Command::Lightsout { board, max_memory } => assignments::lightsout(&board, max_memory.saturating_mul(1 << 20)),
        Command::Tactix(a) => Ok(assignments::tactix(&a)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // One line, whatever text the error quotes (a position with a newline in it).
            eprintln!("gamesman: error: {}", format!("{e:#}").replace('\n', "\\n").replace('\r', "\\r"));
            1
        }
    }
}

/// A game definition loaded from `games/`: a Rhai script or a RON descriptor.
pub enum Loaded {
    Script(ScriptGame),
    Descriptor(DescriptorGame),
}

impl Loaded {
    pub fn info(&self) -> &GameInfo {
        match self {
            Loaded::Script(g) => g.info(),
            Loaded::Descriptor(g) => g.info(),
        }
    }

    pub fn file(&self) -> &str {
        match self {
            Loaded::Script(g) => g.file(),
            Loaded::Descriptor(g) => g.file(),
        }
    }

    /// "script" or "descriptor": which engine runs the definition itself.
    pub fn engine_name(&self) -> &'static str {
        match self {
            Loaded::Script(_) => "script",
            Loaded::Descriptor(_) => "descriptor",
        }
    }
}

/// Call `$body` with `$g` bound to the game inside a [`Loaded`] (each a different type).
macro_rules! with_loaded {
    ($loaded:expr, |$g:ident| $body:expr) => {
        match $loaded {
            Loaded::Script($g) => $body,
            Loaded::Descriptor($g) => $body,
        }
    };
}
pub(crate) use with_loaded;

/// The native module a game definition names, as `--engine` asks for it.
pub fn native_for(game: &Loaded, choice: EngineChoice) -> Result<Option<NativeKind>> {
    let declared = game.info().native.as_deref();
    match (choice, declared) {
        (EngineChoice::Script, _) | (EngineChoice::Auto, None) => Ok(None),
        (EngineChoice::Native, None) => {
            bail!("{}: the game names no native module (`const NATIVE = \"...\";`, or `native: \"...\"`)", game.file())
        }
        (choice, Some(name)) => match NativeKind::from_name(name) {
            Some(k) => Ok(Some(k)),
            None if choice == EngineChoice::Native => bail!(
                "{}: there is no native module {name:?} (there are: {})",
                game.file(),
                NativeKind::ALL.map(NativeKind::name).join(", ")
            ),
            None => Ok(None),
        },
    }
}

/// Call `$body` with `$g` bound to the native game of `$kind` (each a different type).
macro_rules! with_native {
    ($kind:expr, $info:expr, |$g:ident| $body:expr) => {
        match $kind {
            NativeKind::Nim => {
                let $g = Nim::new($info);
                $body
            }
            NativeKind::Nimrod => {
                let $g = Nimrod::new($info);
                $body
            }
            NativeKind::Chomp => {
                let $g = Chomp::new($info);
                $body
            }
            NativeKind::LightsOut => {
                let $g = LightsOut::new($info);
                $body
            }
            NativeKind::TacTix => {
                let $g = TacTix::new($info);
                $body
            }
        }
    };
}
pub(crate) use with_native;

/// Where games are looked for by name.
pub fn game_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("GAMESMAN_GAMES") {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(PathBuf::from("games"));
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("games"));
    dirs
}

/// A game argument: a path to a script, or the name of one in the games directories.
pub fn find_game(spec: &str) -> Result<PathBuf> {
    let p = Path::new(spec);
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    let bare = !spec.is_empty() && !spec.contains(['/', '\\']);
    let ext = p.extension().and_then(|e| e.to_str());
    // `kayles.ron` (a file name with no directory) is looked for in the games directories too.
    if bare && matches!(ext, Some("rhai" | "ron")) {
        if let Some(found) = game_dirs().into_iter().map(|d| d.join(spec)).find(|c| c.is_file()) {
            return Ok(found);
        }
        bail!("{spec}: no such file here or in the games directory (`gamesman games` lists them)");
    }
    let is_name = bare && ext.is_none();
    if is_name {
        for dir in game_dirs() {
            for ext in ["rhai", "ron"] {
                let candidate = dir.join(format!("{spec}.{ext}"));
                if candidate.is_file() {
                    return Ok(candidate);
                }
            }
        }
        bail!(
            "no game named {spec:?}: it is not a file, and there is no {spec}.rhai or {spec}.ron in the games directory \
             (`gamesman games` lists them)"
        );
    }
    if p.exists() {
        bail!("{spec}: not a file");
    }
    bail!("{spec}: no such file");
}

/// Load a game: a `.rhai` script or a `.ron` descriptor.
pub fn load(spec: &str) -> Result<Loaded> {
    load_path(&find_game(spec)?)
}

pub fn load_path(path: &Path) -> Result<Loaded> {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "rhai" => Ok(Loaded::Script(ScriptGame::load(path)?)),
        "ron" => Ok(Loaded::Descriptor(DescriptorGame::load(path)?)),
        _ => bail!("{}: a game is a .rhai script or a .ron descriptor", path.display()),
    }
}

/// Position text from the argument: text, a file's contents, or stdin for `-`.
fn position_text(arg: Option<&str>) -> Result<Option<String>> {
    match arg {
        None => Ok(None),
        Some("-") => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).context("cannot read the position from stdin")?;
            Ok(Some(s))
        }
        Some(a) if Path::new(a).is_file() => {
            Ok(Some(std::fs::read_to_string(a).with_context(|| format!("cannot read the position file {a}"))?))
        }
        Some(a) => Ok(Some(a.to_string())),
    }
}

/// The identity of a loaded game as `args` runs it: what names its database.
pub fn identity(loaded: &Loaded, engine: &str, misere: bool) -> Result<Identity> {
    let bytes = std::fs::read(loaded.file()).with_context(|| format!("cannot read {}", loaded.file()))?;
    Ok(Identity::new(&loaded.info().name, loaded.file(), &bytes, engine, misere))
}

/// Load the game `cmd` names and run `cmd` on the engine that answers for it.
pub fn with_game<C: GameCommand>(cmd: &C) -> Result<i32> {
    let args = cmd.args();
    let loaded = load(&args.game)?;
    match native_for(&loaded, args.engine)? {
        None => {
            let engine = loaded.engine_name();
            let ctx = Ctx { engine, id: identity(&loaded, engine, args.misere)? };
            with_loaded!(loaded, |g| with_rules(g, cmd, &ctx))
        }
        Some(kind) => {
            let ctx = Ctx { engine: "native", id: identity(&loaded, "native", args.misere)? };
            let info: GameInfo = loaded.info().clone();
            with_native!(kind, info, |g| with_rules(g, cmd, &ctx))
        }
    }
}

fn with_rules<G: Game, C: GameCommand>(game: G, cmd: &C, ctx: &Ctx) -> Result<i32> {
    if cmd.args().misere {
        if game.kind() == Kind::Puzzle {
            bail!("--misere applies to two-player games, and {} is a puzzle", game.info().name);
        }
        cmd.run(&Misere::new(game), ctx)
    } else {
        cmd.run(&game, ctx)
    }
}

fn list_games(dir: Option<PathBuf>) -> Result<()> {
    let dirs = match dir {
        Some(d) => vec![d],
        None => game_dirs(),
    };
    let Some(dir) = dirs.iter().find(|d| d.is_dir()) else {
        bail!(
            "no games directory found (looked in {})",
            dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rhai" || e == "ron"))
        .collect();
    files.sort();
    println!("games in {}:", dir.display());
    for f in files {
        let name = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
        match load_path(&f) {
            Ok(g) => {
                let i = g.info();
                println!("  {name:<22} {:<10} {}", i.kind.as_str(), i.description);
            }
            Err(e) => println!("  {name:<22} (broken)  {e:#}"),
        }
    }
    Ok(())
}
