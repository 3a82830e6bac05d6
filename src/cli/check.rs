//! `gamesman check`: the same random positions through two definitions of one game: a script
//! or descriptor and its native module, or a descriptor and the script of the same name.

use super::{EngineChoice, Loaded, load, load_path, native_for, with_loaded, with_native};
use crate::game::{Game, GameInfo, Kind, Misere};
use crate::native::NativeKind;
use crate::native::{chomp::Chomp, lightsout::LightsOut, nim::Nim, nimrod::Nimrod, tactix::TacTix};
use crate::solve::{Analyzer, Options, Report};
use anyhow::{Result, bail};
use clap::Args;

#[derive(Args)]
pub struct CheckArgs {
    /// A game that declares a native module (a script's `const NATIVE`, a descriptor's
    /// `native`), or a .ron descriptor with a .rhai script of the same name beside it
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

/// What must agree: the value, remoteness, Grundy value and the positions the winning moves
/// lead to, as a set of canonical forms (two definitions may order moves differently, list a
/// move twice, or write a heap left empty as 0 or not at all). `canon` is one game's
/// canonical form, used for both sides. For a puzzle, one shortest solution among several may
/// differ: its length is compared.
fn summary<G: Game>(canon: &G, r: &Report, puzzle: bool) -> Result<String> {
    let grundy = r.grundy.map_or("-".into(), |g| g.to_string());
    let remoteness = r.remoteness.map_or("-".into(), |g| g.to_string());
    if puzzle {
        return Ok(format!("value {} remoteness {remoteness}", r.value));
    }
    let mut moves = Vec::new();
    for m in &r.winning_moves {
        let pos = canon.canonical(&canon.parse(&m.position)?)?;
        moves.push(canon.format(&pos)?.replace('\n', "/"));
    }
    moves.sort();
    moves.dedup();
    Ok(format!("value {} remoteness {remoteness} grundy {grundy} winning moves to [{}]", r.value, moves.join(" ")))
}

fn solve<G: Game>(game: &G, text: &str) -> Result<Report> {
    let pos = game.parse(text)?;
    Ok(Analyzer::new(game, Options::default()).solve(&pos)?)
}

/// Random positions reached by random play from the game's start position, as text.
fn walk<G: Game>(game: &G, rng: &mut fastrand::Rng, count: usize) -> Result<Vec<String>> {
    let Some(start) = game.start()? else {
        bail!("{} has no start position to play random games from", game.info().name);
    };
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let mut pos = start.clone();
        for _ in 0..rng.usize(0..=16) {
            if game.primitive(&pos)?.is_some() {
                break;
            }
            let moves = game.moves(&pos)?;
            if moves.is_empty() {
                break;
            }
            pos = game.play(&pos, &moves[rng.usize(..moves.len())])?;
        }
        out.push(game.format(&pos)?);
    }
    Ok(out)
}

fn compare<A: Game, B: Game>(a: &A, b: &B, names: [&str; 2], positions: &[String], misere: bool) -> Result<usize> {
    if misere {
        return compare_on(&Misere::new(a), &Misere::new(b), names, positions);
    }
    compare_on(a, b, names, positions)
}

fn compare_on<A: Game, B: Game>(a: &A, b: &B, names: [&str; 2], positions: &[String]) -> Result<usize> {
    let puzzle = a.kind() == Kind::Puzzle;
    let mut bad = 0;
    for text in positions {
        let x = summary(a, &solve(a, text)?, puzzle)?;
        let y = summary(a, &solve(b, text)?, puzzle)?;
        if x != y {
            bad += 1;
            println!("disagreement at {}\n  {}: {x}\n  {}: {y}", text.replace('\n', "/"), names[0], names[1]);
        }
    }
    Ok(bad)
}

/// The `.rhai` script beside a `.ron` descriptor (same directory and name), if there is one.
fn sibling_script(game: &Loaded) -> Option<std::path::PathBuf> {
    let Loaded::Descriptor(_) = game else { return None };
    let p = std::path::Path::new(game.file()).with_extension("rhai");
    p.is_file().then_some(p)
}

pub fn run(args: &CheckArgs) -> Result<i32> {
    let primary = load(&args.game)?;
    if args.misere && primary.info().kind == Kind::Puzzle {
        bail!("--misere applies to two-player games");
    }
    let native = native_for(&primary, EngineChoice::Auto)?;
    let script = sibling_script(&primary).map(|p| load_path(&p)).transpose()?;
    if native.is_none() && script.is_none() {
        bail!(
            "{}: nothing to compare it with (it names no native module, and there is no .rhai script of the same name beside it)",
            primary.file()
        );
    }
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let mut rng = fastrand::Rng::with_seed(seed);
    let positions: Vec<String> = match native {
        Some(kind) => (0..args.count).map(|_| sample(kind, &mut rng)).collect(),
        None => with_loaded!(&primary, |g| walk(g, &mut rng, args.count)?),
    };
    let first = primary.engine_name();
    let mode = if args.misere { " (misère)" } else { "" };
    let mut total = 0;
    if let Some(other) = &script {
        let bad = with_loaded!(&primary, |a| with_loaded!(other, |b| compare(
            a,
            b,
            [first, "script"],
            &positions,
            args.misere
        )?));
        println!(
            "{}{mode}: {} random positions (seed {seed}), {bad} disagreements between the {first} ({}) and the script ({})",
            primary.info().name,
            positions.len(),
            primary.file(),
            other.file()
        );
        total += bad;
    }
    if let Some(kind) = native {
        let info: GameInfo = primary.info().clone();
        let bad = with_loaded!(&primary, |a| with_native!(kind, info, |n| compare(
            a,
            &n,
            [first, "native"],
            &positions,
            args.misere
        )?));
        println!(
            "{}{mode}: {} random positions (seed {seed}), {bad} disagreements between the {first} and the native module",
            kind.name(),
            positions.len()
        );
        total += bad;
    }
    Ok(if total == 0 { 0 } else { 1 })
}
