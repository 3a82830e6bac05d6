//! `gamesman bench`: positions solved per second for each shipped script.

use super::load;
use crate::game::Game;
use crate::solve::{Analyzer, Options};
use anyhow::Result;
use clap::Args;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// Only the benchmarks of these games (default: all)
    games: Vec<String>,
    /// Runs of each benchmark; the fastest is reported
    #[arg(long, default_value_t = 3)]
    repeat: u32,
}

/// (game, position, what it measures)
const CASES: &[(&str, &str, &str)] = &[
    ("nim", "4,5,6,7", "value + remoteness + Grundy"),
    ("nimrod", "20,30", "value + remoteness + Grundy"),
    ("chomp", "88888888", "value + remoteness + Grundy"),
    ("tactix", "P1 4 4 1111 1111 1111 1111", "full 4×4 board"),
    ("kayles", "30", "value + remoteness + Grundy"),
    ("tictactoe", ".........", "start position"),
    ("lightsout", "#0#0##0/0#0#0#0/##00#0#/#000000/#0#0#00/#0##0##", "7×6, 21 presses"),
];

pub fn run(args: &BenchArgs) -> Result<()> {
    println!("| game | position | what | positions visited | best time (s) | positions/s |");
    println!("|---|---|---|---:|---:|---:|");
    for &(name, position, what) in CASES {
        if !args.games.is_empty() && !args.games.iter().any(|g| g == name) {
            continue;
        }
        let game = load(name)?;
        let pos = game.parse(position)?;
        let mut best = f64::INFINITY;
        let mut visited = 0;
        for _ in 0..args.repeat.max(1) {
            let started = Instant::now();
            let mut analyzer = Analyzer::new(&game, Options::default());
            analyzer.solve(&pos)?;
            best = best.min(started.elapsed().as_secs_f64());
            visited = analyzer.visited();
        }
        let shown = position.replace('|', "\\|");
        println!("| {name} | `{shown}` | {what} | {visited} | {best:.3} | {:.0} |", visited as f64 / best);
    }
    Ok(())
}
