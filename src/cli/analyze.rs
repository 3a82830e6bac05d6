//! `gamesman analyze`: solve everything reachable from a position and count it.

use super::{GameArgs, GameCommand, WatchArgs, output};
use crate::game::{Game, Kind, Value};
use crate::solve::census::{ByValue, Census, census};
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
}

impl GameCommand for AnalyzeArgs {
    fn args(&self) -> &GameArgs {
        &self.g
    }

    fn run<G: Game>(&self, game: &G, engine: &str) -> Result<i32> {
        let root = self.g.position(game, "analyze")?;
        let started = Instant::now();
        let progress = self.watch.progress();
        let c = census(game, &root, self.g.max_memory_bytes(), &progress);
        progress.finish();
        let c = c?;
        let seconds = started.elapsed().as_secs_f64();
        if self.json {
            println!("{}", to_json(game, &c, engine, seconds)?);
        } else {
            print_text(game, &c, engine, seconds)?;
        }
        Ok(0)
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

fn to_json<G: Game>(game: &G, c: &Census<G::Pos>, engine: &str, seconds: f64) -> Result<Json> {
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

fn print_text<G: Game>(game: &G, c: &Census<G::Pos>, engine: &str, seconds: f64) -> Result<()> {
    let info = game.info();
    let kind = info.kind;
    let shown: Vec<Value> = VALUES
        .into_iter()
        .filter(|&v| if kind == Kind::Puzzle { v != Value::Tie && v != Value::Draw } else { true })
        .collect();
    let root = c.solutions[0];
    let line =
        |b: &ByValue| shown.iter().map(|&v| format!("{} {}", name(kind, v), b.get(v))).collect::<Vec<_>>().join(", ");
    println!("game:        {} ({kind}, {engine})", info.name);
    println!("position:    {}", one_line(&game.format(&c.graph.nodes[0])?));
    let r = root.remoteness.map_or(String::new(), |r| format!(", remoteness {r}"));
    println!("value:       {}{r}", name(kind, root.value));
    if let Some(g) = &c.grundy {
        println!("grundy:      {}", g[0]);
    }
    println!(
        "positions:   {} reachable, {} between them",
        c.graph.len(),
        output::count(c.graph.edges() as u64, "move")
    );
    println!("by value:    {}", line(&c.by_value));
    println!("primitive:   {} ({})", c.ends.0.iter().sum::<u64>(), line(&c.ends));
    println!("by remoteness:");
    print!("  {:>10}", "remoteness");
    for &v in &shown {
        print!(" {:>10}", name(kind, v));
    }
    println!();
    for (r, b) in &c.by_remoteness {
        print!("  {r:>10}");
        for &v in &shown {
            print!(" {:>10}", b.get(v));
        }
        println!();
    }
    if c.grundy.is_some() {
        println!("by grundy value:");
        for (g, n) in &c.by_grundy {
            println!("  {g:>10} {n:>10}");
        }
    } else if kind == Kind::Impartial {
        println!("grundy:      - (not defined: misère play, a primitive win, or a cycle)");
    }
    let longest = |label: &str, i: Option<usize>| -> Result<()> {
        if let Some(i) = i {
            let r = c.solutions[i].remoteness.unwrap_or(0);
            println!("{label}{}, from {}", output::count(r, "move"), one_line(&game.format(&c.graph.nodes[i])?));
        }
        Ok(())
    };
    if kind == Kind::Puzzle {
        longest("longest:     ", c.longest_win)?;
    } else {
        longest("longest win:  ", c.longest_win)?;
        longest("longest loss: ", c.longest_loss)?;
    }
    println!("visited:     {}", output::count(c.visited, "position"));
    println!("memory:      {:.1} MiB (estimated)", c.graph.bytes as f64 / (1 << 20) as f64);
    println!("time:        {seconds:.3} s");
    Ok(())
}

/// Position text on one line (rows joined by `/`).
fn one_line(text: &str) -> String {
    text.trim_end().replace('\n', "/")
}
