//! Commands over the solved-game database: `--save`, `gamesman db`, `export`, `strategy`.

use super::{Ctx, EngineChoice, GameArgs, GameCommand, WatchArgs, analyze, identity, load, native_for, output};
use crate::db::{self, Record, Store};
use crate::game::{Game, Kind, Value};
use crate::solve::census::{Census, census, census_threaded};
use crate::solve::{Analyzer, Options};
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value as Json, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Solve everything reachable from `root` and save it in the game's database.
pub fn save<G: Game>(game: &G, root: &G::Pos, args: &GameArgs, watch: &WatchArgs, ctx: &Ctx) -> Result<()> {
    let started = Instant::now();
    let progress = watch.progress();
    let c = census_threaded(game, root, args.max_memory_bytes(), &progress, super::default_threads());
    progress.finish();
    let c = c?;
    let report = analyze::to_json(game, &c, ctx.engine, started.elapsed().as_secs_f64())?;
    write(game, &c, &report, args, ctx)
}

/// Save a solved census and its `analyze` report in the game's database.
pub fn write<G: Game>(game: &G, c: &Census<G::Pos>, report: &Json, args: &GameArgs, ctx: &Ctx) -> Result<()> {
    let started = Instant::now();
    let path = args.db_path(ctx)?;
    let root = game.format(&c.graph.nodes[0])?;
    let mut rows = (0..c.graph.len()).map(|i| -> Result<(String, Record)> {
        let s = c.solutions[i];
        let grundy = c.grundy.as_ref().map(|g| g[i]);
        Ok((game.format(&c.graph.nodes[i])?, Record { value: s.value, remoteness: s.remoteness, grundy }))
    });
    let n = db::save(&path, &ctx.id, &mut rows, Some((&root, &report.to_string())))
        .with_context(|| format!("saving the database {}", path.display()))?;
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "saved: {} in {} ({:.1} MiB, {:.0} bytes a position) in {:.2} s",
        output::count(n, "position"),
        path.display(),
        bytes as f64 / (1 << 20) as f64,
        bytes as f64 / n.max(1) as f64,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[derive(Args)]
pub struct DbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

/// Which database: a `.redb` file, or a game whose database in the default directory is meant.
#[derive(Args)]
struct Target {
    /// A database file (.redb), or a game (as for `solve`) whose saved database is meant
    #[arg(value_name = "GAME|FILE")]
    target: String,
    /// The database of the misère game
    #[arg(long)]
    misere: bool,
    /// The database of the game as this engine answers it (see `solve --help`)
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    engine: EngineChoice,
}

impl Target {
    fn path(&self) -> Result<PathBuf> {
        let p = Path::new(&self.target);
        if p.extension().is_some_and(|e| e == "redb") {
            return Ok(p.to_path_buf());
        }
        let loaded = load(&self.target)?;
        let engine = match native_for(&loaded, self.engine)? {
            Some(_) => "native",
            None => loaded.engine_name(),
        };
        Ok(db::default_dir()?.join(identity(&loaded, engine, self.misere)?.file_name()))
    }
}

#[derive(Subcommand)]
enum DbCommand {
    /// List the saved databases
    List {
        /// Directory to look in (default: $XDG_CACHE_HOME/gamesman, or ~/.cache/gamesman)
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Everything about one database: game, definition, counts, size
    Info(Target),
    /// Measure a game's saved database: opening it, one lookup, and one move of `play`
    /// (every move from a position with its value, and the best one chosen)
    Bench(DbBenchArgs),
    /// Remove databases
    Rm {
        #[command(flatten)]
        target: Option<Target>,
        /// Remove every database in the default directory
        #[arg(long, conflicts_with = "target")]
        all: bool,
    },
}

#[derive(Args)]
pub struct DbBenchArgs {
    #[command(flatten)]
    g: GameArgs,
    /// Positions to sample (at random, from the database)
    #[arg(long, default_value_t = 2000)]
    samples: usize,
}

impl GameCommand for DbBenchArgs {
    fn args(&self) -> &GameArgs {
        &self.g
    }

    fn run<G: Game>(&self, game: &G, ctx: &Ctx) -> Result<i32> {
        let started = Instant::now();
        let Some(store) = self.g.database(ctx)? else {
            bail!("no database saved for {} (save one with `gamesman solve {} --save`)", self.g.game, self.g.game);
        };
        let open = started.elapsed().as_secs_f64();
        let bytes = std::fs::metadata(store.path()).map(|m| m.len()).unwrap_or(0);
        let mut keys = Vec::new();
        store.for_each(|k, _| {
            keys.push(k.to_string());
            Ok(())
        })?;
        if keys.is_empty() {
            bail!("{}: the database is empty", store.path().display());
        }
        let mut rng = fastrand::Rng::with_seed(1);
        let sample: Vec<&String> = (0..self.samples.max(1)).map(|_| &keys[rng.usize(..keys.len())]).collect();
        let t = Instant::now();
        for k in &sample {
            std::hint::black_box(store.get(k)?);
        }
        let lookup = t.elapsed().as_secs_f64() / sample.len() as f64;
        let positions: Vec<G::Pos> = sample.iter().map(|k| game.parse(k)).collect::<Result<_, _>>()?;
        let mut a = Analyzer::new(game, Options::default()).with_database(store);
        let (mut total, mut worst) = (0.0f64, 0.0f64);
        let mut moves = 0usize;
        for p in &positions {
            let t = Instant::now();
            let list = a.moves(p)?;
            // What `play`'s perfect player does with the list: the best move for the mover.
            std::hint::black_box(list.iter().min_by_key(|m| (m.value as u8, m.remoteness)));
            let dt = t.elapsed().as_secs_f64();
            total += dt;
            worst = worst.max(dt);
            moves += list.len();
        }
        let n = keys.len() as f64;
        println!("database:    {}", self.g.db_path(ctx)?.display());
        println!("positions:   {} ({} bytes, {:.1} a position)", keys.len(), bytes, bytes as f64 / n);
        println!("open:        {:.2} ms (every page's checksum verified)", open * 1e3);
        println!("lookup:      {:.2} µs a position (mean of {})", lookup * 1e6, sample.len());
        println!(
            "play move:   {:.3} ms mean, {:.3} ms worst ({:.1} moves a position, each child formatted and looked up)",
            total / positions.len() as f64 * 1e3,
            worst * 1e3,
            moves as f64 / positions.len() as f64
        );
        Ok(0)
    }
}

pub fn db_command(a: &DbArgs) -> Result<i32> {
    match &a.command {
        DbCommand::Bench(b) => super::with_game(b),
        DbCommand::List { dir } => {
            let dir = match dir {
                Some(d) => d.clone(),
                None => db::default_dir()?,
            };
            let files = db::list(&dir)?;
            let left = db::leftovers(&dir);
            if !left.is_empty() {
                println!(
                    "({} left by a save that was stopped; the next save of that database, or `gamesman db rm --all`, removes them)",
                    output::count(left.len() as u64, "temporary file")
                );
            }
            if files.is_empty() {
                println!("no databases in {} (save one with `gamesman solve GAME --save`)", dir.display());
                return Ok(0);
            }
            println!("databases in {}:", dir.display());
            for f in files {
                let name = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
                let size = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
                match Store::open(&f, None) {
                    Ok(s) => {
                        let m = s.meta();
                        let get = |k: &str| m.get(k).cloned().unwrap_or_default();
                        println!(
                            "  {name:<36} {:<12} {:>10} positions {:>8.1} MiB  {}{}",
                            get("game"),
                            get("positions"),
                            size as f64 / (1 << 20) as f64,
                            get("file"),
                            if get("misere") == "yes" { " (misère)" } else { "" }
                        );
                    }
                    Err(e) => println!("  {name:<36} (unreadable: {e})"),
                }
            }
            Ok(0)
        }
        DbCommand::Info(t) => {
            let path = t.path()?;
            if !path.exists() {
                bail!(
                    "{}: no database saved for {} (save one with `gamesman solve {} --save`)",
                    path.display(),
                    t.target,
                    t.target
                );
            }
            let s = Store::open(&path, None)?;
            let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            println!("file:        {}", path.display());
            for (k, v) in s.meta() {
                let v = match k.as_str() {
                    "created" | "updated" => format!("{v} (seconds since 1970)"),
                    _ => v.clone(),
                };
                println!("{:<12} {v}", format!("{k}:"));
            }
            let n = s.len()?;
            println!("size:        {size} bytes, {:.1} a position", size as f64 / n.max(1) as f64);
            for r in s.roots()? {
                println!("analyzed:    from {}", r.trim_end().replace('\n', "/"));
            }
            Ok(0)
        }
        DbCommand::Rm { target, all } => {
            let paths = match (target, all) {
                (_, true) => {
                    let dir = db::default_dir()?;
                    let mut all = db::list(&dir)?;
                    all.extend(db::leftovers(&dir));
                    all
                }
                (Some(t), false) => vec![t.path()?],
                (None, false) => bail!("say which database to remove (a game or a .redb file), or --all"),
            };
            for p in &paths {
                if !p.exists() {
                    bail!("{}: no such database", p.display());
                }
                std::fs::remove_file(p).with_context(|| format!("cannot remove {}", p.display()))?;
                println!("removed {}", p.display());
            }
            if paths.is_empty() {
                println!("no databases to remove");
            }
            Ok(0)
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// One JSON object a line: {"position", "value", "remoteness", "grundy"}
    Jsonl,
    /// A header line, then position,value,remoteness,grundy (empty where there is none)
    Csv,
}

#[derive(Args)]
pub struct ExportArgs {
    #[command(flatten)]
    g: GameArgs,
    #[command(flatten)]
    watch: WatchArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    format: Format,
}

impl GameCommand for ExportArgs {
    fn args(&self) -> &GameArgs {
        &self.g
    }

    /// Every position of the saved database, or, without one, everything reachable from the
    /// position (solved now).
    fn run<G: Game>(&self, game: &G, ctx: &Ctx) -> Result<i32> {
        enum Sink {
            Csv(Box<csv::Writer<std::io::StdoutLock<'static>>>),
            Jsonl(std::io::BufWriter<std::io::StdoutLock<'static>>),
        }
        let mut sink = match self.format {
            Format::Csv => {
                let mut w = csv::Writer::from_writer(std::io::stdout().lock());
                w.write_record(["position", "value", "remoteness", "grundy"])?;
                Sink::Csv(Box::new(w))
            }
            Format::Jsonl => Sink::Jsonl(std::io::BufWriter::new(std::io::stdout().lock())),
        };
        let mut emit = |position: &str, r: Record| -> Result<()> {
            match &mut sink {
                Sink::Csv(w) => {
                    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
                    w.write_record([position, r.value.as_str(), &opt(r.remoteness.map(u64::from)), &opt(r.grundy)])?;
                }
                Sink::Jsonl(out) => {
                    let line = json!({
                        "position": position,
                        "value": r.value.as_str(),
                        "remoteness": r.remoteness,
                        "grundy": r.grundy,
                    });
                    writeln!(out, "{line}")?;
                }
            }
            Ok(())
        };
        let from_db = if self.g.position.is_none() { self.g.database(ctx)? } else { None };
        match from_db {
            Some(store) => store.for_each(|p, r| emit(p, r))?,
            None => {
                let root = self.g.position(game, "export")?;
                let progress = self.watch.progress();
                let c = census(game, &root, self.g.max_memory_bytes(), &progress);
                progress.finish();
                let c = c?;
                for i in 0..c.graph.len() {
                    let s = c.solutions[i];
                    let grundy = c.grundy.as_ref().map(|g| g[i]);
                    let rec = Record { value: s.value, remoteness: s.remoteness, grundy };
                    emit(&game.format(&c.graph.nodes[i])?, rec)?;
                }
            }
        }
        match &mut sink {
            Sink::Csv(w) => w.flush()?,
            Sink::Jsonl(out) => out.flush()?,
        }
        Ok(0)
    }
}

#[derive(Args)]
pub struct StrategyArgs {
    #[command(flatten)]
    g: GameArgs,
    #[command(flatten)]
    watch: WatchArgs,
    /// Print the tree as one JSON object (for checkers) instead of indented text
    #[arg(long)]
    json: bool,
    /// Refuse a tree of more positions than this
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_nodes: usize,
}

/// One position of a strategy tree: the winner's positions have one move (the chosen one),
/// the loser's every move.
struct Node {
    position: String,
    winner_to_move: bool,
    remoteness: u32,
    moves: Vec<(String, usize)>,
}

impl GameCommand for StrategyArgs {
    fn args(&self) -> &GameArgs {
        &self.g
    }

    fn run<G: Game>(&self, game: &G, ctx: &Ctx) -> Result<i32> {
        if game.kind() == Kind::Puzzle {
            bail!("{} is a puzzle: `gamesman solve` prints a shortest solution", game.info().name);
        }
        let root = self.g.position(game, "strategy")?;
        let opts = Options {
            max_memory: self.g.max_memory_bytes(),
            progress: self.watch.progress(),
            full_search: true,
            ..Options::default()
        };
        let mut a = self.g.analyzer(game, opts, ctx)?;
        let nodes = tree(game, &mut a, &root, self.max_nodes);
        self.watch.progress().finish();
        let nodes = nodes?;
        let info = game.info();
        let names = [info.player_name(0), info.player_name(1)];
        let winner = game.to_move(&root)?.map(|side| if nodes[0].winner_to_move { side } else { 1 - side });
        if self.json {
            println!("{}", to_json(&nodes, 0));
            return Ok(0);
        }
        let who = |winner_turn: bool| match winner {
            Some(w) => names[if winner_turn { w } else { 1 - w }].to_string(),
            None => if winner_turn { "winner:" } else { "reply:" }.to_string(),
        };
        let at = nodes[0].position.trim_end().replace('\n', "/");
        let moves = output::count(nodes[0].remoteness, "move");
        if nodes[0].moves.is_empty() {
            // Nothing to play: the game is over at the root.
            match winner {
                Some(w) => println!("The game is over at {at}: {} has won.", names[w]),
                None if nodes[0].winner_to_move => println!("The game is over at {at}: the player to move has won."),
                None => println!("The game is over at {at}: the player to move has lost."),
            }
            return Ok(0);
        }
        match (winner, nodes[0].winner_to_move) {
            (Some(_), _) => println!("{} wins from {at} in at most {moves}.", who(true)),
            (None, true) => println!("The player to move wins from {at} in at most {moves}."),
            (None, false) => println!("The player to move loses from {at}: the other wins in at most {moves}."),
        }
        println!(
            "The winner's move at each step, and under it every reply ({}):",
            output::count(nodes.len() as u64, "position")
        );
        print_tree(&nodes, &who);
        Ok(0)
    }
}

fn print_tree(nodes: &[Node], who: &dyn Fn(bool) -> String) {
    // Depth-first without recursion (the tree may be deep): one line a move, indented by depth.
    let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, 0)];
    while let Some((i, k, depth)) = stack.pop() {
        let n = &nodes[i];
        if k >= n.moves.len() {
            continue;
        }
        stack.push((i, k + 1, depth));
        let (mv, child) = (&n.moves[k].0, n.moves[k].1);
        let c = &nodes[child];
        let end = if c.moves.is_empty() { "  (game over)" } else { "" };
        println!(
            "{}{} {mv} -> {}{end}",
            "  ".repeat(depth),
            who(n.winner_to_move),
            c.position.trim_end().replace('\n', "/")
        );
        stack.push((child, 0, depth + 1));
    }
}

/// The tree, iteratively: node 0 is the root.
fn tree<G: Game>(game: &G, a: &mut Analyzer<'_, G>, root: &G::Pos, max_nodes: usize) -> Result<Vec<Node>> {
    let (s, _) = a.value(root)?;
    let winner_first = match s.value {
        Value::Win => true,
        Value::Lose => false,
        v => bail!("no player can force a win from here: the position is a {v} with best play"),
    };
    let mut nodes = vec![Node {
        position: game.format(root)?,
        winner_to_move: winner_first,
        remoteness: s.remoteness.unwrap_or(0),
        moves: Vec::new(),
    }];
    let mut todo = vec![(0usize, root.clone())];
    while let Some((i, pos)) = todo.pop() {
        if game.primitive(&pos)?.is_some() {
            continue;
        }
        let winner_turn = nodes[i].winner_to_move;
        let mut chosen: Option<(u32, String, G::Pos, u32)> = None;
        let mut all = Vec::new();
        for mv in game.moves(&pos)? {
            let child = game.play(&pos, &mv)?;
            let (cs, _) = a.value(&child)?;
            let name = game.move_name(&pos, &mv)?;
            let r = cs
                .remoteness
                .ok_or_else(|| anyhow::anyhow!("a strategy needs remoteness, and it is not known here"))?;
            if winner_turn {
                if cs.value == Value::Lose && chosen.as_ref().is_none_or(|c| r < c.0) {
                    chosen = Some((r, name, child, r));
                }
            } else {
                all.push((name, child, r));
            }
        }
        if let Some((_, name, child, r)) = chosen {
            all.push((name, child, r));
        } else if winner_turn {
            bail!("internal error: a won position has no move to a lost one: {}", nodes[i].position);
        }
        for (name, child, r) in all {
            if nodes.len() >= max_nodes {
                bail!("the strategy tree has more than {max_nodes} positions (raise --max-nodes)");
            }
            let id = nodes.len();
            nodes.push(Node {
                position: game.format(&child)?,
                winner_to_move: !winner_turn,
                remoteness: r,
                moves: Vec::new(),
            });
            nodes[i].moves.push((name, id));
            todo.push((id, child));
        }
    }
    Ok(nodes)
}

/// The tree as nested JSON, built bottom-up (no recursion).
fn to_json(nodes: &[Node], root: usize) -> Json {
    let mut built: Vec<Option<Json>> = (0..nodes.len()).map(|_| None).collect();
    // Children always have larger indices than their parent.
    for i in (root..nodes.len()).rev() {
        let n = &nodes[i];
        let moves: Vec<Json> =
            n.moves.iter().map(|(mv, c)| json!({"move": mv, "next": built[*c].take().unwrap_or(Json::Null)})).collect();
        built[i] = Some(json!({
            "position": n.position,
            "to_move": if n.winner_to_move { "winner" } else { "loser" },
            "remoteness": n.remoteness,
            "moves": moves,
        }));
    }
    built[root].take().unwrap_or(Json::Null)
}
