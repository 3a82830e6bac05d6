//! `gamesman bench`: positions solved per second for each shipped script, the native
//! modules against the scripts on the same positions, and the native modules' own targets.

use super::{Loaded, load, with_loaded, with_native};
use crate::game::{Game, GameInfo};
use crate::grid::Grid;
use crate::native::{NativeKind, chomp, lightsout};
use crate::native::{chomp::Chomp, lightsout::LightsOut, nim::Nim, nimrod::Nimrod, tactix::TacTix};
use crate::solve::{Analyzer, Options};
use anyhow::Result;
use clap::Args;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// Only the benchmarks of these shipped games (default: all). Any other game (a path or a
    /// name) is benchmarked on its start position, or on --position
    games: Vec<String>,
    /// The position to solve for games that are not among the shipped benchmarks
    #[arg(long, value_name = "POSITION")]
    position: Option<String>,
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

/// Descriptor against script: the positions of `CASES` that both can solve.
const DESCRIPTOR_CASES: &[(&str, &str)] = &[
    ("nim", "4,5,6,7"),
    ("nimrod", "20,30"),
    ("chomp", "88888888"),
    ("tactix", "P1 4 4 1111 1111 1111 1111"),
    ("kayles", "30"),
    ("lightsout", "#0#0##0/0#0#0#0/##00#0#/#000000/#0#0#00/#0##0##"),
];

/// Best time of `repeat` runs of `f` (each returns the time it measured), and what the last
/// run returned.
fn best<T>(repeat: u32, mut f: impl FnMut() -> Result<(f64, T)>) -> Result<(f64, T)> {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..repeat.max(1) {
        let (t, o) = f()?;
        out = Some(o);
        best = best.min(t);
    }
    Ok((best, out.expect("ran at least once")))
}

/// Run `f` and time it.
fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(f64, T)> {
    let started = Instant::now();
    let out = f()?;
    Ok((started.elapsed().as_secs_f64(), out))
}

/// Solve `text` as `gamesman solve` does: the time (parsing and solving, not loading the
/// game) and the positions visited.
fn solve<G: Game>(game: &G, text: &str) -> Result<(f64, u64)> {
    timed(|| {
        let pos = game.parse(text)?;
        let mut analyzer = Analyzer::new(game, Options::default());
        analyzer.solve(&pos)?;
        Ok(analyzer.visited())
    })
}

/// Best time of `repeat` solves of `text`, each by a copy of the game loaded afresh, so that
/// nothing a run remembers (a script's memo of `canonical`, say) speeds up the next.
fn best_solve(repeat: u32, load: impl Fn() -> Result<Loaded>, text: &str) -> Result<(f64, u64)> {
    best(repeat, || {
        let game = load()?;
        with_loaded!(&game, |g| solve(g, text))
    })
}

/// The games the shipped benchmarks cover.
const SHIPPED: &[&str] = &["nim", "nimrod", "chomp", "tactix", "kayles", "tictactoe", "lightsout", "sequence"];

fn wanted(args: &BenchArgs, name: &str) -> bool {
    args.games.is_empty() || args.games.iter().any(|g| g == name)
}

/// Print a markdown table: a title, a header, and its rows; nothing when there are no rows.
/// `left`: how many columns (from the first) hold text rather than numbers.
fn table(title: &str, header: &str, left: usize, rows: &[String]) {
    if rows.is_empty() {
        return;
    }
    println!("{title}\n");
    let cols = header.matches('|').count() - 1;
    let align: Vec<&str> = (0..cols).map(|i| if i < left { "---" } else { "---:" }).collect();
    println!("{header}\n|{}|", align.join("|"));
    for r in rows {
        println!("{r}");
    }
    println!();
}

/// A game given on the command line that is not a shipped benchmark: solve its start
/// position (or `--position`).
fn bench_other(args: &BenchArgs, spec: &str) -> Result<String> {
    let game = load(spec)?;
    let name = game.info().name.clone();
    let text = with_loaded!(&game, |g| match &args.position {
        Some(t) => t.clone(),
        None => match g.start()? {
            Some(p) => g.format(&p)?,
            None => anyhow::bail!("{spec}: the game has no start position: give one with --position"),
        },
    });
    let (t, visited) = best_solve(args.repeat, || load(spec), &text)?;
    let shown = if text.len() > 30 { format!("{}…", text.chars().take(28).collect::<String>()) } else { text };
    Ok(format!(
        "| {name} | `{}` | `solve` | {visited} | {t:.3} | {:.0} |",
        shown.replace('\n', "/"),
        visited as f64 / t
    ))
}

/// A board made by pressing random lights on a dark one: solvable by construction.
fn solvable_lights_out(n: usize, seed: u64) -> Grid {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut g = Grid::new(n, n);
    for r in 0..n {
        for c in 0..n {
            if rng.bool() {
                g.toggle_plus(r, c);
            }
        }
    }
    g
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let mut rows = Vec::new();
    for &(name, position, what) in CASES {
        if !wanted(args, name) {
            continue;
        }
        let (t, visited) = best_solve(args.repeat, || load(name), position)?;
        let shown = if position.len() > 30 { format!("{}…", &position[..28]) } else { position.to_string() };
        rows.push(format!("| {name} | `{shown}` | {what} | {visited} | {t:.3} | {:.0} |", visited as f64 / t));
    }
    for spec in args.games.iter().filter(|g| !SHIPPED.contains(&g.as_str())) {
        rows.push(bench_other(args, spec)?);
    }
    table(
        "Scripts (`gamesman solve`, engine script):",
        "| game | position | what | positions visited | best time (s) | positions/s |",
        3,
        &rows,
    );

    let mut rows = Vec::new();
    for &(name, position, _) in CASES {
        let script = load(name)?;
        let Some(kind) = script.info().native.as_deref().and_then(NativeKind::from_name) else { continue };
        if !wanted(args, name) {
            continue;
        }
        let (ts, _) = best_solve(args.repeat, || load(name), position)?;
        let info: GameInfo = script.info().clone();
        let (tn, _) = best(args.repeat, || with_native!(kind, info.clone(), |g| solve(&g, position)))?;
        let shown = if position.len() > 30 { format!("{}…", &position[..28]) } else { position.to_string() };
        rows.push(format!("| {name} | `{shown}` | {ts:.4} | {tn:.4} | {:.0}× |", ts / tn));
    }
    table(
        "Native modules against the scripts on the same positions (the whole `solve` report):",
        "| game | position | script (s) | native (s) | speed-up |",
        2,
        &rows,
    );

    let mut rows = Vec::new();
    for &(name, position) in DESCRIPTOR_CASES {
        let path = super::game_dirs().into_iter().map(|d| d.join(format!("{name}.ron"))).find(|p| p.is_file());
        let Some(path) = path else { continue };
        if !wanted(args, name) {
            continue;
        }
        let (ts, _) = best_solve(args.repeat, || load(name), position)?;
        let (td, _) = best_solve(args.repeat, || super::load_path(&path), position)?;
        let shown = if position.len() > 30 { format!("{}…", &position[..28]) } else { position.to_string() };
        rows.push(format!("| {name} | `{shown}` | {ts:.4} | {td:.4} | {:.1}× |", ts / td));
    }
    table(
        "Descriptors (`games/*.ron`) against the scripts of the same games (neither native):",
        "| game | position | script (s) | descriptor (s) | script / descriptor |",
        2,
        &rows,
    );

    let mut rows = Vec::new();
    if wanted(args, "chomp") {
        let h = vec![9u32; 20];
        let (t, answer) = best(args.repeat, || timed(|| Ok(chomp::answer(&h)?)))?;
        let states = chomp::count_states(&h).unwrap_or(0);
        rows.push(format!("| Chomp, 20 columns of height 9 ({states} states) | `{answer}` | {t:.3} |"));
    }
    if wanted(args, "lightsout") {
        let board = solvable_lights_out(2048, 1);
        let (t, sol) = best(args.repeat, || timed(|| Ok(lightsout::solve(&board, 0))))?;
        let what = match sol {
            Some(s) => format!("{} presses, 2^{} solutions", s.presses.count(), s.nullity),
            None => "no solution".into(),
        };
        rows.push(format!("| Lights Out, random solvable 2048×2048 board | {what} | {t:.3} |"));
    }
    if wanted(args, "nimrod") {
        let a: num_bigint::BigUint = "1618033988749894848204586834365".parse().expect("digits");
        let b: num_bigint::BigUint = &a + 1_000_000_000_000_000_000_000_000_000_000u128 + 7u32;
        let (t, out) = best(args.repeat, || timed(|| Ok(crate::native::nimrod::report(&a, &b))))?;
        rows.push(format!("| Nimrod, piles near 10^30 | {} | {t:.6} |", out.trim_end().replace('\n', "; ")));
    }
    table("Native targets (the assignments' commands' work):", "| what | result | best time (s) |", 2, &rows);

    let mut rows = Vec::new();
    if wanted(args, "sequence") {
        for &(code, to) in SEQUENCES {
            rows.push(bench_sequence(args.repeat, code, to)?);
        }
    }
    table(
        "Nim-sequences (`gamesman sequence`; `bench sequence` runs only these):",
        "| code | to n | result | plain mex (s) | rare/common (s) |",
        3,
        &rows,
    );
    Ok(())
}

/// (octal code, last heap) for the nim-sequence benchmarks: Kayles and Dawson's Kayles (their
/// periods end the work), 0.16 and 0.64 (sparse values: the rare/common split), 0.106 (not
/// sparse yet at 10^5), Nim written as a code (values that grow).
const SEQUENCES: &[(&str, usize)] = &[
    ("0.77", 100_000),
    ("0.07", 100_000),
    ("0.16", 100_000),
    ("0.64", 100_000),
    ("0.106", 100_000),
    ("0.3…", 1_000_000),
];

/// Time one code's sequence by the plain mex and by the rare/common split (best of `repeat`).
fn bench_sequence(repeat: u32, code: &str, to: usize) -> Result<String> {
    use crate::solve::sequence::{Method, NimSequence};
    let game = crate::descriptor::DescriptorGame::octal(code)?;
    let fresh = |method| -> Result<NimSequence> {
        let mut s = game.nim_sequence().map(|s| s.clone()).ok_or_else(|| anyhow::anyhow!("{code}: no sequence"))?;
        s.set_method(method);
        Ok(s)
    };
    let run = |method| {
        best(repeat, || {
            let mut s = fresh(method)?;
            let started = Instant::now();
            s.extend_to(to);
            Ok((started.elapsed().as_secs_f64(), s))
        })
    };
    let (plain, _) = run(Method::Plain)?;
    let (split, s) = run(Method::RareCommon)?;
    let result = match (s.period(), s.pattern()) {
        (Some((n0, p)), _) => format!("period {p} from n = {n0}"),
        (None, Some(a)) => format!("g(n + {}) = g(n) + {} (seen)", a.period, a.saltus),
        (None, None) => format!("no period by n = {}", s.computed().saturating_sub(1)),
    };
    Ok(format!("| {code} | {to} | {result} | {plain:.3} | {split:.3} |"))
}
