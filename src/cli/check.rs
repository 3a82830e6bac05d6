//! `gamesman check`: the same random positions through the script and its native module.

use super::{EngineChoice, load, native_for, with_native};
use crate::game::{Game, GameInfo, Kind, Misere};
use crate::native::NativeKind;
use crate::native::{chomp::Chomp, lightsout::LightsOut, nim::Nim, nimrod::Nimrod, tactix::TacTix};
use crate::solve::{Analyzer, Options, Report};
use anyhow::{Result, bail};
use clap::Args;

#[derive(Args)]
pub struct CheckArgs {
    /// A game script that declares a native module (`const NATIVE = "...";`)
    #[arg(value_name = "GAME")]
    game: String,
    /// How many random positions
    #[arg(long, default_value_t = 300)]
    count: usize,
    /// Seed for the random positions (default: random)
    #[arg(long)]
    seed: Option<u64>,
    /// Compare under misère play
    #[arg(long)]
    misere: bool,
}

/// A random small position of a native game, as text.
pub fn sample(kind: NativeKind, rng: &mut fastrand::Rng) -> String {
    let join = |v: Vec<u32>| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    match kind {
        NativeKind::Nim => join((0..rng.usize(1..=4)).map(|_| rng.u32(0..=7)).collect()),
        NativeKind::Nimrod => join(vec![rng.u32(0..=24), rng.u32(0..=24)]),
        NativeKind::Chomp => {
            let mut h: Vec<u32> = (0..rng.usize(1..=5)).map(|_| rng.u32(0..=6)).collect();
            h.sort_unstable_by(|a, b| b.cmp(a));
            h[0] = h[0].max(1);
            h.iter().map(u32::to_string).collect()
        }
        NativeKind::TacTix => {
            // Small enough for the script to search whole (remoteness included).
            let (rows, cols) = (rng.usize(1..=3), rng.usize(1..=4));
            let board: Vec<String> =
                (0..rows).map(|_| (0..cols).map(|_| if rng.u8(0..3) > 0 { '1' } else { '0' }).collect()).collect();
            board.join("/")
        }
        NativeKind::LightsOut => {
            let (rows, cols) = (rng.usize(1..=4), rng.usize(1..=4));
            let board: Vec<String> =
                (0..rows).map(|_| (0..cols).map(|_| if rng.bool() { '#' } else { '0' }).collect()).collect();
            // Mostly whole boards; sometimes a position part-way through, as the script has them.
            let next = if rng.u8(0..4) == 0 { rng.usize(0..=rows * cols) } else { 0 };
            if next == 0 { board.join("/") } else { format!("{} @{next}", board.join("/")) }
        }
    }
}

/// What must agree: the value, remoteness, Grundy value and the winning moves' positions
/// (for a puzzle, one shortest solution among several may differ: its length is compared).
fn summary(r: &Report, puzzle: bool) -> String {
    let grundy = r.grundy.map_or("-".into(), |g| g.to_string());
    let remoteness = r.remoteness.map_or("-".into(), |g| g.to_string());
    if puzzle {
        format!("value {} remoteness {remoteness}", r.value)
    } else {
        let moves: Vec<String> = r.winning_moves.iter().map(|m| m.position.replace('\n', "/")).collect();
        format!("value {} remoteness {remoteness} grundy {grundy} winning moves [{}]", r.value, moves.join(" "))
    }
}

fn solve<G: Game>(game: &G, text: &str) -> Result<Report> {
    let pos = game.parse(text)?;
    Ok(Analyzer::new(game, Options::default()).solve(&pos)?)
}

fn compare<A: Game, B: Game>(script: &A, native: &B, positions: &[String]) -> Result<usize> {
    let puzzle = script.kind() == Kind::Puzzle;
    let mut bad = 0;
    for text in positions {
        let a = summary(&solve(script, text)?, puzzle);
        let b = summary(&solve(native, text)?, puzzle);
        if a != b {
            bad += 1;
            println!("disagreement at {}\n  script: {a}\n  native: {b}", text.replace('\n', "/"));
        }
    }
    Ok(bad)
}

pub fn run(args: &CheckArgs) -> Result<i32> {
    let script = load(&args.game)?;
    let Some(kind) = native_for(&script, EngineChoice::Native)? else { unreachable!("--engine native") };
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let mut rng = fastrand::Rng::with_seed(seed);
    let positions: Vec<String> = (0..args.count).map(|_| sample(kind, &mut rng)).collect();
    let info: GameInfo = script.info().clone();
    if args.misere && script.kind() == Kind::Puzzle {
        bail!("--misere applies to two-player games");
    }
    let bad = with_native!(kind, info, |native| {
        if args.misere {
            compare(&Misere::new(script), &Misere::new(native), &positions)?
        } else {
            compare(&script, &native, &positions)?
        }
    });
    let mode = if args.misere { " (misère)" } else { "" };
    println!(
        "{}{mode}: {} random positions (seed {seed}), {bad} disagreements between the script and the native module",
        kind.name(),
        positions.len()
    );
    Ok(if bad == 0 { 0 } else { 1 })
}
