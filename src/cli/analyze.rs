//! `gamesman analyze`: solve everything reachable from a position and count it.

use super::{Ctx, GameArgs, GameCommand, WatchArgs, database, output};
use crate::game::{Game, Kind, Value};
use crate::solve::census::{ByValue, Census, census_threaded};
use anyhow::Result;
use clap::Args;
use serde_json::{Value as Json, json};
use std::time::Instant;

#[derive(Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    g: GameArgs,
    #[command(flatten)]
    watch: WatchArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Save every position's value, remoteness and Grundy value in the game's database (see
    /// --db), so that solve, moves, play and analyze answer from it later
    #[arg(long, conflicts_with = "no_db")]
    save: bool,
    /// Threads that expand positions (a script game runs a copy of itself on each). Default:
    /// every core. The answers are the same for any number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
}

impl GameCommand for AnalyzeArgs {
    fn args(&self) -> &GameArgs {
        &self.g
    }

    fn run<G: Game>(&self, game: &G, ctx: &Ctx) -> Result<i32> {
        let root = self.g.position(game, "analyze")?;
        let started = Instant::now();
        // A report saved with the database, unless this run is to save one.
        if !self.save
            && let Some(store) = self.g.database(ctx)?
            && let Some(text) = store.census(&game.format(&root)?)?
        {
            let mut report: Json = serde_json::from_str(&text)
                .map_err(|e| anyhow::anyhow!("{}: a saved report is unreadable ({e})", store.path().display()))?;
            report["source"] = "database".into();
            report["seconds"] = started.elapsed().as_secs_f64().into();
            report["positions_visited"] = 0.into();
            self.print(game, &report)?;
            return Ok(0);
        }
        let progress = self.watch.progress();
        let threads = self.threads.map_or_else(super::default_threads, usize::from);
        let c = census_threaded(game, &root, self.g.max_memory_bytes(), &progress, threads);
        progress.finish();
        let c = c?;
        let mut report = to_json(game, &c, ctx.engine, started.elapsed().as_secs_f64())?;
        if self.save {
            database::write(game, &c, &report, &self.g, ctx)?;
        }
        report["source"] = "search".into();
        report["threads"] = c.threads.into();
        self.print(game, &report)?;
        Ok(0)
    }
}

impl AnalyzeArgs {
    fn print<G: Game>(&self, game: &G, report: &Json) -> Result<()> {
        if self.json {
            println!("{report}");
            Ok(())
        } else {
            print_text(game.info().kind, report)
        }
    }
}

const VALUES: [Value; 4] = [Value::Win, Value::Lose, Value::Tie, Value::Draw];

/// What a value is called for this kind of game.
fn name(kind: Kind, v: Value) -> &'static str {
    match (kind, v) {
        (Kind::Puzzle, Value::Win) => "solvable",
        (Kind::Puzzle, _) => "unsolvable",
        _ => v.as_str(),
    }
}

fn values_json(kind: Kind, b: &ByValue) -> Json {
    let mut m = serde_json::Map::new();
    for v in VALUES {
        if kind != Kind::Puzzle || matches!(v, Value::Win | Value::Lose) {
            m.insert(name(kind, v).into(), b.get(v).into());
        }
    }
    Json::Object(m)
}

fn position_json<G: Game>(game: &G, c: &Census<G::Pos>, i: Option<usize>) -> Result<Json> {
    Ok(match i {
        None => Json::Null,
        Some(i) => json!({
            "position": game.format(&c.graph.nodes[i])?,
            "remoteness": c.solutions[i].remoteness,
        }),
    })
}

pub fn to_json<G: Game>(game: &G, c: &Census<G::Pos>, engine: &str, seconds: f64) -> Result<Json> {
    let kind = game.kind();
    let root = c.solutions[0];
    Ok(json!({
        "game": game.info().name,
        "kind": kind.as_str(),
        "engine": engine,
        "position": game.format(&c.graph.nodes[0])?,
        "value": name(kind, root.value),
        "remoteness": root.remoteness,
        "grundy": c.grundy.as_ref().map(|g| g[0]),
        "positions": c.graph.len(),
        "moves": c.graph.edges(),
        "by_value": values_json(kind, &c.by_value),
        "primitive": values_json(kind, &c.ends),
        "by_remoteness": c.by_remoteness.iter().map(|(r, b)| {
            let mut o = values_json(kind, b);
            o["remoteness"] = (*r).into();
            o
        }).collect::<Vec<_>>(),
        "by_grundy": c.grundy.as_ref().map(|_| c.by_grundy.iter().map(|(g, n)| json!({"grundy": g, "positions": n})).collect::<Vec<_>>()),
        "longest_win": position_json(game, c, c.longest_win)?,
        "longest_loss": position_json(game, c, c.longest_loss)?,
        "positions_visited": c.visited,
        "memory_bytes": c.graph.bytes,
        "seconds": seconds,
    }))
}

/// The report for people, from its JSON (computed now or saved in a database).
fn print_text(kind: Kind, r: &Json) -> Result<()> {
    let shown: Vec<&str> = VALUES
        .into_iter()
        .filter(|&v| if kind == Kind::Puzzle { v != Value::Tie && v != Value::Draw } else { true })
        .map(|v| name(kind, v))
        .collect();
    let num = |j: &Json| j.as_u64().unwrap_or(0);
    let text = |j: &Json| j.as_str().unwrap_or("").to_string();
    let line = |b: &Json| shown.iter().map(|v| format!("{v} {}", num(&b[*v]))).collect::<Vec<_>>().join(", ");
    println!("game:        {} ({kind}, {})", text(&r["game"]), text(&r["engine"]));
    println!("position:    {}", one_line(&text(&r["position"])));
    let rem = r["remoteness"].as_u64().map_or(String::new(), |n| format!(", remoteness {n}"));
    println!("value:       {}{rem}", text(&r["value"]));
    if let Some(g) = r["grundy"].as_u64() {
        println!("grundy:      {g}");
    }
    println!(
        "positions:   {} reachable, {} between them",
        num(&r["positions"]),
        output::count(num(&r["moves"]), "move")
    );
    println!("by value:    {}", line(&r["by_value"]));
    let ends: u64 = shown.iter().map(|v| num(&r["primitive"][*v])).sum();
    println!("primitive:   {ends} ({})", line(&r["primitive"]));
    println!("by remoteness:");
    print!("  {:>10}", "remoteness");
    for v in &shown {
        print!(" {v:>10}");
    }
    println!();
    for b in r["by_remoteness"].as_array().into_iter().flatten() {
        print!("  {:>10}", num(&b["remoteness"]));
        for v in &shown {
            print!(" {:>10}", num(&b[*v]));
        }
        println!();
    }
    match r["by_grundy"].as_array() {
        Some(by) => {
            println!("by grundy value:");
            for b in by {
                println!("  {:>10} {:>10}", num(&b["grundy"]), num(&b["positions"]));
            }
        }
        None if kind == Kind::Impartial => {
            println!("grundy:      - (not defined: misère play, a primitive win, or a cycle)")
        }
        None => {}
    }
    let longest = |label: &str, j: &Json| {
        if j.is_object() {
            let n = output::count(num(&j["remoteness"]), "move");
            println!("{label}{n}, from {}", one_line(&text(&j["position"])));
        }
    };
    if kind == Kind::Puzzle {
        longest("longest:     ", &r["longest_win"]);
    } else {
        longest("longest win:  ", &r["longest_win"]);
        longest("longest loss: ", &r["longest_loss"]);
    }
    if r["source"] == "database" {
        println!("source:      the saved database (solved once, read now)");
    } else {
        println!("visited:     {}", output::count(num(&r["positions_visited"]), "position"));
        println!("memory:      {:.1} MiB (estimated)", num(&r["memory_bytes"]) as f64 / (1 << 20) as f64);
    }
    println!("time:        {:.3} s", r["seconds"].as_f64().unwrap_or(0.0));
    Ok(())
}

/// Position text on one line (rows joined by `/`).
fn one_line(text: &str) -> String {
    text.trim_end().replace('\n', "/")
}
