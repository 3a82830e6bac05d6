//! Commands over the solved-game database: `--save`, `gamesman db`, `export`, `strategy`.

use super::args::{EngineChoice, GameArgs, WatchArgs};
use super::output;
use crate::catalog::{Database, How};
use crate::db::{self, Record, Store};
use crate::solve::{Options, strategy};
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct DbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

/// Which database: a `.redb` file, or a game whose database in the default directory is meant.
#[derive(Args)]
struct Target {
    /// A database file (.redb), a tier save (its folder, or a file in it), an endgame table
    /// (.parts), or a game (as for `solve`) whose saved database is meant
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
        // A saved file named by its path: a database, a tier save (its folder, or one file
        // in it: a tier, its identity), an endgame table.
        let saved = p.extension().is_some_and(|e| e == "redb" || e == "tiers" || e == "tier" || e == "parts")
            || p.parent().and_then(Path::extension).is_some_and(|e| e == "tiers")
            || db::array::is_save(p);
        if saved && std::fs::symlink_metadata(p).is_ok() || p.extension().is_some_and(|e| e == "redb") {
            return Ok(p.to_path_buf());
        }
        let how = How { engine: self.engine.into(), misere: self.misere, database: Database::Saved, ..How::default() };
        super::args::catalog().database_path(&self.target, &how)
    }

    /// The saved databases the target names: its redb file, the directory of its tier save
    /// (`NAME.tiers/`, for a game with tiers), or both where both are there.
    fn saved(&self) -> Result<(PathBuf, Vec<PathBuf>)> {
        let path = self.path()?;
        // One file of a tier save (a tier, its identity) or an endgame table: that file.
        let one_file = path.extension().is_some_and(|e| e == "tier" || e == "parts")
            || path.parent().and_then(Path::extension).is_some_and(|e| e == "tiers");
        if one_file && std::fs::symlink_metadata(&path).is_ok() {
            return Ok((path.clone(), vec![path]));
        }
        let tiers = if path.extension().is_some_and(|e| e == "tiers") || db::array::is_save(&path) {
            path.clone()
        } else {
            path.with_extension("tiers")
        };
        let mut found = Vec::new();
        if path.is_file() && path.extension().is_some_and(|e| e == "redb") {
            found.push(path.clone());
        }
        if db::array::is_save(&tiers) {
            found.push(tiers);
        }
        Ok((path, found))
    }
}

/// Remove a database: a redb file, or a tier save's directory (only one: it holds an
/// identity file).
fn remove(p: &Path) -> Result<()> {
    let is_dir = std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if is_dir {
        if !db::array::is_save(p) {
            bail!("{}: not a gamesman database (no identity file): not removed", p.display());
        }
        std::fs::remove_dir_all(p).with_context(|| format!("cannot remove {}", p.display()))
    } else {
        std::fs::remove_file(p).with_context(|| format!("cannot remove {}", p.display()))
    }
}

/// `db info` of a tier save: its `meta` file, its tiers and size.
fn tiers_info(dir: &Path) {
    let meta = db::array::read_meta(dir);
    let size = db::array::dir_bytes(dir);
    println!("directory:   {} (a tier save: one array file a tier)", dir.display());
    if meta.is_empty() {
        println!("(no meta file: the save did not finish; run it again to resume)");
    }
    let mut positions = None;
    for (k, v) in &meta {
        let v = match k.as_str() {
            "created" => v.parse::<u64>().map_or_else(|_| v.clone(), output::date_time),
            "positions" => {
                positions = v.parse::<u64>().ok();
                format!("{v} (reachable from the root)")
            }
            "indices" => format!("{v} (index slots of the tiers, reachable or not)"),
            _ => v.clone(),
        };
        println!("{:<12} {v}", format!("{k}:"));
    }
    println!("solved:      {}", output::count(db::array::tier_files(dir) as u64, "tier"));
    match positions {
        Some(n) => println!("size:        {size} bytes, {} a position", output::bytes_a_position(size, n)),
        None => println!("size:        {size} bytes"),
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
    /// Put a tier save's small tiers into one compressed file, for a smaller save to keep or
    /// ship (lookups read them from there; a later save of the game adds files beside it)
    Pack(PackArgs),
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
struct PackArgs {
    #[command(flatten)]
    target: Target,
    /// Memory budget in MiB: the tiers packed are held three times over (their files, the
    /// pack's bytes, compressed), and zstd's tables beside them (about 100 MiB)
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    max_memory: u64,
    #[command(flatten)]
    limit: super::args::LimitArgs,
}

#[derive(Args)]
pub struct DbBenchArgs {
    #[command(flatten)]
    g: GameArgs,
    #[command(flatten)]
    limit: super::args::LimitArgs,
    /// Positions to sample (at random, from the database)
    #[arg(long, default_value_t = 2000)]
    samples: usize,
}

/// `gamesman db bench`.
fn db_bench(args: &DbBenchArgs) -> Result<i32> {
    let mut session = args.g.open(Options { progress: args.limit.start(), ..Options::default() })?;
    let root = match &args.g.position {
        Some(_) => Some(args.g.position(&*session, "db bench")?),
        None => None,
    };
    let b = session.db_bench(args.samples, root.as_deref())?;
    println!("database:    {}", b.path.display());
    println!(
        "positions:   {} ({} bytes, {} a position)",
        b.positions,
        b.bytes,
        output::bytes_a_position(b.bytes, b.positions as u64)
    );
    let opened = if b.path.is_dir() {
        "every tier's header read and checked; a block's checksum is checked when it is read"
    } else {
        "every page's checksum verified"
    };
    println!("open:        {:.2} ms ({opened})", b.open_seconds * 1e3);
    println!("lookup:      {:.2} µs a position (mean of {})", b.lookup_seconds * 1e6, b.samples);
    println!(
        "play move:   {:.3} ms mean, {:.3} ms worst ({:.1} moves a position, each child formatted and looked up)",
        b.move_mean_seconds * 1e3,
        b.move_worst_seconds * 1e3,
        b.moves_per_position
    );
    if let Some(w) = b.move_warm_seconds {
        println!(
            "again:       {:.3} ms mean (the same moves, the blocks they read cached: {} MiB of blocks at most)",
            w * 1e3,
            crate::db::array::CACHE_BYTES >> 20
        );
    }
    Ok(0)
}

pub fn db_command(a: &DbArgs) -> Result<i32> {
    match &a.command {
        DbCommand::Bench(b) => db_bench(b),
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
                if f.is_dir() {
                    let meta: std::collections::BTreeMap<String, String> =
                        db::array::read_meta(&f).into_iter().collect();
                    let get = |k: &str| meta.get(k).cloned().unwrap_or_else(|| "?".into());
                    println!(
                        "  {name:<36} {:<12} {:>10} positions {:>8.1} MiB  {} (tiers){}",
                        get("game"),
                        get("positions"),
                        db::array::dir_bytes(&f) as f64 / (1 << 20) as f64,
                        get("file"),
                        if get("misere") == "yes" { " (misère)" } else { "" }
                    );
                    continue;
                }
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
        DbCommand::Pack(PackArgs { target: t, max_memory, limit }) => {
            let _clock = limit.start();
            let Some(raw) = db::pack_budget(max_memory << 20) else {
                bail!("--max-memory {max_memory}: packing needs at least 131 MiB (zstd's tables, and a MiB of tiers)");
            };
            let (path, found) = t.saved()?;
            let Some(dir) = found.iter().find(|p| p.is_dir()) else {
                bail!(
                    "{}: no tier save for {} (a pack is made of a tier save's files; save one with `gamesman solve {} \
                     --save`)",
                    path.display(),
                    t.target,
                    t.target
                );
            };
            let p = db::array::ArrayDb::open(dir, None)?.pack(raw)?;
            if p.tiers == 0 {
                println!("{}: not packed: its tiers are as small as files ({} bytes)", dir.display(), p.before);
                return Ok(0);
            }
            println!(
                "packed {} into {}: {} bytes before, {} after",
                output::count(p.tiers as u64, "tier"),
                dir.join("tiers.pack").display(),
                p.before,
                p.after
            );
            Ok(0)
        }
        DbCommand::Info(t) => {
            let (path, found) = t.saved()?;
            if let Some(dir) = found.iter().find(|p| p.is_dir()) {
                tiers_info(dir);
                if found.len() == 1 {
                    return Ok(0);
                }
            }
            if !path.is_file() {
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
                    "created" | "updated" => match v.parse::<u64>() {
                        Ok(secs) => output::date_time(secs),
                        Err(_) => v.clone(),
                    },
                    _ => v.clone(),
                };
                println!("{:<12} {v}", format!("{k}:"));
            }
            let n = s.len()?;
            println!("size:        {size} bytes, {} a position", output::bytes_a_position(size, n));
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
                (Some(t), false) => match t.saved()? {
                    (path, found) if found.is_empty() => bail!("{}: no such database", path.display()),
                    (_, found) => found,
                },
                (None, false) => {
                    bail!("say which database to remove (a game, a .redb file or a .tiers directory), or --all")
                }
            };
            for p in &paths {
                // The path itself, not what a link leads to (a link to /dev/zero is removed).
                if std::fs::symlink_metadata(p).is_err() {
                    bail!("{}: no such database", p.display());
                }
                remove(p)?;
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

/// `gamesman export`: every position of the saved database, or, without one (or with a
/// POSITION), everything reachable from the position, solved now.
pub fn export(args: &ExportArgs) -> Result<i32> {
    args.run()
}

impl ExportArgs {
    fn run(&self) -> Result<i32> {
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
        let progress = self.watch.progress();
        let mut session = self.g.open(Options { progress: progress.clone(), ..Options::default() })?;
        let root = match &self.g.position {
            Some(_) => Some(self.g.position(&*session, "export")?),
            None => None,
        };
        let done = session.export(root.as_deref(), &mut emit);
        progress.finish();
        done?;
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

/// `gamesman strategy`.
pub fn strategy(args: &StrategyArgs) -> Result<i32> {
    args.run()
}

impl StrategyArgs {
    fn run(&self) -> Result<i32> {
        let progress = self.watch.progress();
        let opts = Options { progress: progress.clone(), full_search: true, ..Options::default() };
        let mut session = self.g.open(opts)?;
        if session.kind() == crate::game::Kind::Puzzle {
            bail!("{} is a puzzle: `gamesman solve` prints a shortest solution", session.info().name);
        }
        let root = self.g.position(&*session, "strategy")?;
        let nodes = session.strategy(&root, self.max_nodes);
        progress.finish();
        let nodes = nodes?;
        let info = session.info();
        let names = [info.player_name(0), info.player_name(1)];
        let winner = session.to_move(&root)?.map(|side| if nodes[0].winner_to_move { side } else { 1 - side });
        if self.json {
            println!("{}", strategy::to_json(&nodes));
            return Ok(0);
        }
        let draw = nodes[0].value == crate::game::Value::Draw;
        let who = |winner_turn: bool| match winner {
            Some(w) => names[if winner_turn { w } else { 1 - w }].to_string(),
            None if draw => if winner_turn { "player:" } else { "reply:" }.to_string(),
            None => if winner_turn { "winner:" } else { "reply:" }.to_string(),
        };
        let at = nodes[0].position.trim_end().replace('\n', "/");
        let moves = output::count(u64::from(nodes[0].remoteness.unwrap_or(0)), "move");
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
            _ if draw => println!(
                "Neither player can force a win from {at}: {} keeps the draw, and wins if the other lets it.",
                match winner {
                    Some(_) => who(true),
                    None => "the player to move".to_string(),
                }
            ),
            (Some(_), _) => println!("{} wins from {at} in at most {moves}.", who(true)),
            (None, true) => println!("The player to move wins from {at} in at most {moves}."),
            (None, false) => println!("The player to move loses from {at}: the other wins in at most {moves}."),
        }
        let again = if nodes.iter().any(|n| n.again) { "; `again`: played as above" } else { "" };
        println!(
            "The {} move at each step, and under it every reply ({}{again}):",
            if draw { "drawing player's" } else { "winner's" },
            output::count(nodes.len() as u64, "position")
        );
        print_tree(&nodes, &who);
        Ok(0)
    }
}

fn print_tree(nodes: &[strategy::Node], who: &dyn Fn(bool) -> String) {
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
        let end = match (c.again, c.moves.is_empty()) {
            (true, _) => "  (again)",
            (false, true) => "  (game over)",
            (false, false) => "",
        };
        println!(
            "{}{} {mv} -> {}{end}",
            "  ".repeat(depth),
            who(n.winner_to_move),
            c.position.trim_end().replace('\n', "/")
        );
        stack.push((child, 0, depth + 1));
    }
}
