//! `gamesman bench`: positions solved per second for each shipped script, the native
//! modules against the scripts on the same positions, and the native modules' own targets.

use super::timing::{best, timed};
use crate::catalog::{Catalog, Database, Engine, How, Session};
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
    /// Memory budget in MiB for each solve's tables (as for `solve`)
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    max_memory: usize,
    #[command(flatten)]
    limit: super::args::LimitArgs,
}

/// The memory budget of every solve measured, in bytes (`--max-memory`).
static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// Shipped scripts with no native module, benchmarked beside the native games' rows:
/// (game, position, what it measures).
const SCRIPT_CASES: &[(&str, &str, &str)] = &[
    ("kayles", "30", "value + remoteness + Grundy"),
    ("tictactoe", ".........", "start position"),
    ("connect4", "4x4k3", "start position"),
    ("cram", "#####/#####/#####/#####", "value + remoteness + Grundy"),
];

/// The games with a descriptor beside their script (compared with each other).
const DESCRIBED: &[&str] =
    &["nim", "nimrod", "chomp", "tactix", "kayles", "lightsout", "tictactoe", "connect4", "cram"];

/// (game, position, what): the catalogue's native rows' bench positions, then the scripts'.
fn cases(catalog: &Catalog) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = catalog
        .natives()
        .iter()
        .filter(|n| n.info.is_none())
        .flat_map(|n| n.bench.iter().map(|(p, w)| (n.name.clone(), p.clone(), w.clone())))
        .collect();
    let at = out.iter().position(|c| c.0 == "tactix").map_or(out.len(), |i| i + 1);
    for (i, &(g, p, w)) in SCRIPT_CASES.iter().enumerate() {
        out.insert((at + i).min(out.len()), (g.into(), p.into(), w.into()));
    }
    out
}

fn open(spec: &str, engine: Engine) -> Result<Box<dyn Session>> {
    let max_memory = BUDGET.get().copied().unwrap_or(crate::solve::DEFAULT_MAX_MEMORY);
    let options = crate::solve::Options { max_memory, ..Default::default() };
    super::args::catalog().open(spec, &How { engine, database: Database::Off, options, ..How::default() })
}

/// Solve `text` as `gamesman solve` does: the time (parsing and solving, not loading the
/// game) and the positions visited.
fn solve(game: &mut dyn Session, text: &str) -> Result<(f64, u64)> {
    timed(|| {
        game.solve(text)?;
        Ok(game.visited())
    })
}

/// Best time of `repeat` solves of `text`, each by a copy of the game opened afresh, so that
/// nothing a run remembers (a script's memo of `canonical`, say) speeds up the next.
fn best_solve(repeat: u32, open: impl Fn() -> Result<Box<dyn Session>>, text: &str) -> Result<(f64, u64)> {
    best(repeat, || solve(&mut *open()?, text))
}

/// The games the shipped benchmarks cover.
const SHIPPED: &[&str] =
    &["nim", "nimrod", "chomp", "tactix", "kayles", "tictactoe", "lightsout", "connect4", "cram", "sequence"];

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
    let game = open(spec, Engine::Definition)?;
    let text = match &args.position {
        Some(t) => t.clone(),
        None => match game.start()? {
            Some(p) => p,
            None => anyhow::bail!("{spec}: the game has no start position: give one with --position"),
        },
    };
    bench_row(args, spec, Engine::Definition, &text, "`solve`")
}

/// One row: the best time of `repeat` solves of `text` by `spec` with `engine`.
fn bench_row(args: &BenchArgs, spec: &str, engine: Engine, text: &str, what: &str) -> Result<String> {
    let name = open(spec, engine)?.info().name.clone();
    let text = text.to_string();
    let (t, visited) = best_solve(args.repeat, || open(spec, engine), &text)?;
    let shown = if text.len() > 30 { format!("{}…", text.chars().take(28).collect::<String>()) } else { text };
    Ok(format!("| {name} | `{}` | {what} | {visited} | {t:.3} | {:.0} |", shown.replace('\n', "/"), visited as f64 / t))
}

pub fn run(args: &BenchArgs) -> Result<()> {
    // The clock ends the process at the limit (a search is not stopped by it: a measured solve
    // runs whole or not at all).
    args.limit.start();
    let _ = BUDGET.set(args.max_memory.saturating_mul(1 << 20));
    let catalog = super::args::catalog();
    let cases = cases(catalog);
    let short = |p: &str| if p.len() > 30 { format!("{}…", &p[..28]) } else { p.to_string() };
    let mut rows = Vec::new();
    for (name, position, what) in &cases {
        if !wanted(args, name) {
            continue;
        }
        let (t, visited) = best_solve(args.repeat, || open(name, Engine::Definition), position)?;
        rows.push(format!(
            "| {name} | `{}` | {what} | {visited} | {t:.3} | {:.0} |",
            short(position),
            visited as f64 / t
        ));
    }
    let mut rust = Vec::new();
    for spec in args.games.iter().filter(|g| !SHIPPED.contains(&g.as_str())) {
        if catalog.rust_game(spec).is_none() {
            rows.push(bench_other(args, spec)?);
        }
    }
    table(
        "Scripts (`gamesman solve`, engine script):",
        "| game | position | what | positions visited | best time (s) | positions/s |",
        3,
        &rows,
    );
    // Games written in Rust, found by their own name: their own benchmark positions (or
    // --position, or the start), by the native engine.
    for n in catalog.natives().iter().filter(|n| n.info.is_some() && wanted(args, &n.name)) {
        let cases: Vec<(String, String)> = match (&args.position, n.bench.is_empty()) {
            (Some(p), _) => vec![(p.clone(), "`solve`".into())],
            (None, false) => n.bench.clone(),
            (None, true) => match open(&n.name, Engine::Auto)?.start()? {
                Some(p) => vec![(p, "start position".into())],
                None => anyhow::bail!("{}: the game has no start position: give one with --position", n.name),
            },
        };
        for (position, what) in cases {
            rust.push(bench_row(args, &n.name, Engine::Auto, &position, &what)?);
        }
    }
    table(
        "Games written in Rust (`gamesman solve`, engine native):",
        "| game | position | what | positions visited | best time (s) | positions/s |",
        3,
        &rust,
    );

    let mut rows = Vec::new();
    for (name, position, _) in &cases {
        let def = catalog.load(name)?;
        if catalog.native_for(&def, Engine::Auto)?.is_none() || !wanted(args, name) {
            continue;
        }
        let (ts, _) = best_solve(args.repeat, || open(name, Engine::Definition), position)?;
        let (tn, _) = best_solve(args.repeat, || open(name, Engine::Native), position)?;
        rows.push(format!("| {name} | `{}` | {ts:.4} | {tn:.4} | {:.0}× |", short(position), ts / tn));
    }
    table(
        "Native modules against the scripts on the same positions (the whole `solve` report):",
        "| game | position | script (s) | native (s) | speed-up |",
        2,
        &rows,
    );

    let mut rows = Vec::new();
    for (name, position, _) in cases.iter().filter(|c| DESCRIBED.contains(&c.0.as_str())) {
        let Ok(ron) = catalog.find(&format!("{name}.ron")) else { continue };
        if !wanted(args, name) {
            continue;
        }
        let ron = ron.display().to_string();
        let (ts, _) = best_solve(args.repeat, || open(name, Engine::Definition), position)?;
        let (td, _) = best_solve(args.repeat, || open(&ron, Engine::Definition), position)?;
        rows.push(format!("| {name} | `{}` | {ts:.4} | {td:.4} | {:.1}× |", short(position), ts / td));
    }
    table(
        "Descriptors (`games/*.ron`) against the scripts of the same games (neither native):",
        "| game | position | script (s) | descriptor (s) | script / descriptor |",
        2,
        &rows,
    );

    let rows = super::assignments::bench_targets(args.repeat, &|name| wanted(args, name))?;
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
/// sparse yet at 10^5), Nim written as a code (values that grow), Grundy's game (`Split`: no period).
const SEQUENCES: &[(&str, usize)] = &[
    ("0.77", 100_000),
    ("0.07", 100_000),
    ("0.16", 100_000),
    ("0.64", 100_000),
    ("0.106", 100_000),
    ("0.3…", 1_000_000),
    ("grundys-game", 100_000),
];

/// Time one code's sequence by the plain mex and by the rare/common split (best of `repeat`).
fn bench_sequence(repeat: u32, code: &str, to: usize) -> Result<String> {
    use crate::solve::sequence::{Method, NimSequence};
    let crate::catalog::HeapGame::Descriptor(game) = super::args::catalog().heap_game(code, &Default::default())?
    else {
        anyhow::bail!("{code}: not an octal code");
    };
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
