//! The `gamesman` commands. Commands only: parsing arguments, finding games, printing.

mod analyze;
mod args;
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

use crate::catalog::{Call, Catalog, SaveHow, Target};
use anyhow::Result;
pub use args::catalog;
use args::{CATALOG, LimitArgs, SolveArgs, default_threads};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;
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
    args::hold_threads(args.threads);
    let opts = args.options();
    let progress = opts.progress.clone();
    let mut session = args.g.open(opts)?;
    let pos = args.g.position(&*session, if moves { "moves" } else { "solve" })?;
    let started = Instant::now();
    if args.save {
        let how = SaveHow { threads: args.threads.map_or_else(default_threads, usize::from), pack: !args.no_pack };
        let saved = if args.mpi {
            match session.save_mpi(&pos, how) {
                // A worker rank: the manager prints.
                Ok(None) => {
                    progress.finish();
                    return Ok(0);
                }
                Ok(Some(s)) => Ok(s),
                Err(e) => Err(e),
            }
        } else {
            session.save(&pos, how)
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
