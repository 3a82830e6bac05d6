//! `gamesman analyze`: solve everything reachable from a position and count it.

use super::args::{GameArgs, WatchArgs};
use super::output;
use crate::game::{GameError, Kind, Value};
use crate::solve::Options;
use anyhow::Result;
use clap::Args;
use serde_json::Value as Json;

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

/// `gamesman analyze`: the report of everything reachable (from the database where it holds
/// one), saved with the database on `--save`.
pub fn run(args: &AnalyzeArgs) -> Result<i32> {
    super::args::hold_threads(args.threads);
    let progress = args.watch.progress();
    let mut session = args.g.open(Options { progress: progress.clone(), ..Options::default() })?;
    let root = args.g.position(&*session, "analyze")?;
    let threads = args.threads.map_or_else(super::args::default_threads, usize::from);
    let report = session.analyze(&root, threads, args.save);
    progress.finish();
    let (report, saved) = match report {
        Ok(r) => r,
        // What the count had reached when the time limit stopped it.
        Err(e) if matches!(e.downcast_ref(), Some(GameError::TimeLimit(_))) && progress.stopped_at().is_some() => {
            let limit =
                args.watch.time_limit.map_or_else(String::new, |l| format!("of {} ", crate::progress::seconds(l)));
            anyhow::bail!(
                "the time limit {limit}ran out (--time-limit) after {} of the game were visited, not yet all that \
                 are reachable: none were counted by value",
                output::count(progress.stopped_at().unwrap_or(0), "position")
            );
        }
        Err(e) => return Err(e),
    };
    if let Some(saved) = &saved {
        output::saved(saved);
    }
    if args.json {
        println!("{report}");
        Ok(0)
    } else {
        print_text(session.kind(), &report).map(|()| 0)
    }
}

const VALUES: [Value; 4] = [Value::Win, Value::Lose, Value::Tie, Value::Draw];

/// The report for people, from its JSON (computed now or saved in a database).
fn print_text(kind: Kind, r: &Json) -> Result<()> {
    let shown: Vec<&str> = VALUES
        .into_iter()
        .filter(|&v| if kind == Kind::Puzzle { v != Value::Tie && v != Value::Draw } else { true })
        .map(|v| v.name_in(kind))
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
    match r["counted"].as_str() {
        // A saved tier solve: counted from its arrays.
        Some(what) => {
            println!("positions:   {} in {} tiers ({what})", num(&r["positions"]), num(&r["tiers"]));
            println!("classes:     {} (one a symmetry class, as the arrays hold them)", num(&r["classes"]));
            println!("by class:    {}", line(&r["classes_by_value"]));
        }
        None => {
            println!(
                "positions:   {} reachable, {} between them",
                num(&r["positions"]),
                output::count(num(&r["moves"]), "move")
            );
            if let Some(n) = r["classes"].as_u64() {
                println!("classes:     {n} (explored one a class under the symmetries that fix the position)");
            }
        }
    }
    println!("by value:    {}", line(&r["by_value"]));
    if r["primitive"].is_object() {
        let ends: u64 = shown.iter().map(|v| num(&r["primitive"][*v])).sum();
        println!("primitive:   {ends} ({})", line(&r["primitive"]));
    }
    println!("by remoteness:");
    print!("  {:>10}", "remoteness");
    for v in &shown {
        print!(" {v:>10}");
    }
    println!();
    for b in r["by_remoteness"].as_array().into_iter().flatten() {
        match b["remoteness_to"].as_u64() {
            Some(to) => print!("  {:>10}", format!("{}-{to}", num(&b["remoteness"]))),
            None => print!("  {:>10}", num(&b["remoteness"])),
        }
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
