//! `gamesman check`: the same random positions through two definitions of one game: a script
//! or descriptor and its native module, or a descriptor and the script of the same name (or a
//! script and the descriptor of the same name). A game with nothing to compare it with is
//! checked against itself: the solved values must follow from the moves (see [`self_check`]).

use crate::catalog::{Database, Engine, How, Session, load_path_within};
use crate::game::Kind;
use crate::solve::Report;
use anyhow::{Result, bail};
use clap::Args;

#[derive(Args)]
pub struct CheckArgs {
    /// A game. It is compared with its native module (a script's `const NATIVE`, a
    /// descriptor's `native`) and with the definition of the same name beside it (.ron for a
    /// .rhai, .rhai for a .ron); with neither, it is checked against itself: `children` must
    /// agree with `moves` + `play`, `canonical` must keep values, `split` parts must add up,
    /// and every solved value must follow from the values of the position's moves
    #[arg(value_name = "GAME")]
    game: String,
    /// Play the random games from this position instead of the game's start position
    #[arg(long, value_name = "POSITION")]
    from: Option<String>,
    /// How many random positions
    #[arg(long, default_value_t = 300)]
    count: usize,
    /// Seed for the random positions (default: random)
    #[arg(long)]
    seed: Option<u64>,
    /// Compare under misère play
    #[arg(long)]
    misere: bool,
    /// Memory budget in MiB, for each solve and for the positions kept (a position is counted
    /// as 1 KiB: --count may be at most the budget in KiB)
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    max_memory: usize,
    #[command(flatten)]
    limit: super::args::LimitArgs,
}

/// What must agree: the value, remoteness, Grundy value and the positions the winning moves
/// lead to, as a set of canonical forms (two definitions may order moves differently, list a
/// move twice, or write a heap left empty as 0 or not at all). `canon` is one game's
/// canonical form, used for both sides. For a puzzle, one shortest solution among several may
/// differ: its length is compared.
fn summary(canon: &dyn Session, r: &Report, puzzle: bool) -> Result<String> {
    let grundy = r.grundy.map_or("-".into(), |g| g.to_string());
    let remoteness = r.remoteness.map_or("-".into(), |g| g.to_string());
    if puzzle {
        return Ok(format!("value {} remoteness {remoteness}", r.value));
    }
    let mut moves = Vec::new();
    for m in &r.winning_moves {
        moves.push(canon.canonical(&m.position)?.replace('\n', "/"));
    }
    moves.sort();
    moves.dedup();
    Ok(format!("value {} remoteness {remoteness} grundy {grundy} winning moves to [{}]", r.value, moves.join(" ")))
}

/// Disagreements between two sessions of one game on `positions` (each solved afresh).
fn compare(a: &mut dyn Session, b: &mut dyn Session, names: [&str; 2], positions: &[String]) -> Result<usize> {
    let puzzle = a.kind() == Kind::Puzzle;
    let mut bad = 0;
    for text in positions {
        a.reset();
        b.reset();
        let (ra, rb) = (a.solve(text)?, b.solve(text)?);
        let x = summary(a, &ra, puzzle)?;
        let y = summary(a, &rb, puzzle)?;
        if x != y {
            bad += 1;
            println!("disagreement at {}\n  {}: {x}\n  {}: {y}", text.replace('\n', "/"), names[0], names[1]);
        }
    }
    Ok(bad)
}

pub fn run(args: &CheckArgs) -> Result<i32> {
    let catalog = super::args::catalog();
    let budget = args.max_memory.saturating_mul(1 << 20);
    // Every position is kept (its text, the two summaries compared): 1 KiB each is counted.
    if args.count > budget >> 10 {
        bail!(
            "--count {} is more than the memory budget allows (a position kept is counted as 1 KiB: at most {} \
             with --max-memory {})",
            args.count,
            budget >> 10,
            args.max_memory
        );
    }
    let options = crate::solve::Options { max_memory: budget, progress: args.limit.start(), ..Default::default() };
    let how = |engine| How { engine, misere: args.misere, database: Database::Off, options: options.clone() };
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let mode = if args.misere { " (misère)" } else { "" };
    if let Some(rust) = catalog.rust_game(&args.game) {
        // A game written in Rust has no definition to compare it with: it is checked against
        // its own moves.
        if args.misere && rust.info.as_ref().is_some_and(|i| i.kind == Kind::Puzzle) {
            bail!("--misere applies to two-player games");
        }
        let mut own = catalog.open(&args.game, &how(Engine::Auto))?;
        let mut rng = fastrand::Rng::with_seed(seed);
        let positions = own.random_positions(args.from.as_deref(), &mut rng, args.count, 64)?;
        let name = own.info().name.clone();
        return Ok(match own.self_check(&positions)? {
            None => {
                println!(
                    "{name}{mode}: {} random positions (seed {seed}) checked against the game's own moves: \
                     no disagreement (a game written in Rust: no definition to compare it with)",
                    args.count
                );
                0
            }
            Some(why) => {
                println!("{name}{mode} disagrees with itself {why} (seed {seed})");
                1
            }
        });
    }
    let primary = catalog.load_within(&args.game, budget)?;
    if args.misere && primary.info().kind == Kind::Puzzle {
        bail!("--misere applies to two-player games");
    }
    let native = catalog.native_for(&primary, Engine::Auto)?.is_some();
    let sampler = catalog.sampler(&primary);
    let other = primary.sibling();
    let file = primary.file().to_string();
    let name = primary.info().name.clone();
    let first = primary.engine_name();
    let native_name = primary.info().native.clone().unwrap_or_default();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut own = catalog.open_definition(primary, &how(Engine::Definition))?;
    if !native && other.is_none() {
        let positions = own.random_positions(args.from.as_deref(), &mut rng, args.count, 64)?;
        return Ok(match own.self_check(&positions)? {
            None => {
                println!(
                    "{name}{mode}: {} random positions (seed {seed}) checked against the game's own moves: \
                     no disagreement (nothing else to compare with: no native module, no .rhai/.ron of the same name)",
                    args.count
                );
                0
            }
            Some(why) => {
                println!("{file}: {name}{mode} disagrees with itself {why} (seed {seed})");
                1
            }
        });
    }
    let positions: Vec<String> = match sampler {
        Some(sample) => (0..args.count).map(|_| sample(&mut rng)).collect(),
        None => own.random_positions(args.from.as_deref(), &mut rng, args.count, 16)?,
    };
    let mut total = 0;
    if let Some(other) = &other {
        let def = load_path_within(other, budget)?;
        let second = def.engine_name();
        let mut b = catalog.open_definition(def, &how(Engine::Definition))?;
        let bad = compare(&mut *own, &mut *b, [first, second], &positions)?;
        println!(
            "{name}{mode}: {} random positions (seed {seed}), {bad} disagreements between the {first} ({file}) and the {second} ({})",
            positions.len(),
            other.display()
        );
        total += bad;
    }
    if native {
        let mut n = catalog.open(&file, &how(Engine::Native))?;
        let bad = compare(&mut *own, &mut *n, [first, "native"], &positions)?;
        println!(
            "{native_name}{mode}: {} random positions (seed {seed}), {bad} disagreements between the {first} and the native module",
            positions.len()
        );
        total += bad;
    }
    Ok(if total == 0 { 0 } else { 1 })
}
