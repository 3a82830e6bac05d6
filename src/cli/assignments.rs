//! The original assignments' own commands, with their exact input/output contracts.

use crate::native::{chomp, lightsout, nim, nimrod};
use anyhow::{Context, Result, bail};
use clap::Args;
use num_bigint::BigUint;
use std::io::Read;

/// `gamesman nim [-m] n1 [n2 ...]`: the usage text (on stdout, exit 1) on no arguments, a
/// non-number or a negative number.
pub fn nim(args: &[String]) -> i32 {
    match nim::assignment(args) {
        Ok(out) => {
            print!("{out}");
            0
        }
        Err(usage) => {
            print!("{usage}");
            1
        }
    }
}

#[derive(Args)]
pub struct NimrodArgs {
    /// Pile A
    #[arg(value_name = "A", allow_hyphen_values = true)]
    a: Option<String>,
    /// Pile B
    #[arg(value_name = "B", allow_hyphen_values = true)]
    b: Option<String>,
    /// Instead, list the first K losing positions, as in the assignment: (0 0) (1 2) (3 5) …
    #[arg(long, value_name = "K", conflicts_with_all = ["a", "b"])]
    lose_positions: Option<u64>,
    #[command(flatten)]
    limit: super::LimitArgs,
}

fn pile(text: Option<&str>, name: &str) -> Result<BigUint> {
    let Some(t) = text else { bail!("give two piles, e.g. `gamesman nimrod 5 9` (pile {name} is missing)") };
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        bail!("pile {name} must be a whole number of rods, not {t:?}");
    }
    Ok(t.parse().expect("digits"))
}

/// `gamesman nimrod A B`: `lose`, or `win` and every winning move;
/// `gamesman nimrod --lose-positions K`: the first K losing positions.
pub fn nimrod(args: &NimrodArgs) -> Result<i32> {
    args.limit.start();
    if let Some(k) = args.lose_positions {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let written = nimrod::write_lose_positions(k, &mut out).and_then(|()| std::io::Write::flush(&mut out));
        return match written {
            Ok(()) => Ok(0),
            // `| head`: the reader has what it wanted.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
            Err(e) => Err(e.into()),
        };
    }
    let a = pile(args.a.as_deref(), "A")?;
    let b = pile(args.b.as_deref(), "B")?;
    print!("{}", nimrod::report(&a, &b));
    Ok(0)
}

/// `gamesman chomp STATE`: `LOSS` or `WIN: state`; the usage text (stderr, exit 1) on a
/// non-digit, increasing or empty state.
pub fn chomp(state: Option<&str>, budget: usize) -> Result<i32> {
    match chomp::assignment(state.unwrap_or(""), budget) {
        Ok(line) => {
            println!("{line}");
            Ok(0)
        }
        Err(None) => {
            eprint!("{}", chomp::USAGE);
            Ok(1)
        }
        Err(Some(e)) => Err(e.into()),
    }
}

/// `gamesman lightsout BOARD`: the presses of a solution with the fewest presses as `row:col`
/// lines, exit 0; when there is none, nothing on stdout, `No solution` on stderr, exit 1.
pub fn lightsout(board: &str, budget: usize) -> Result<i32> {
    let text = read_bounded(board, budget / 2)?;
    let grid = crate::grid::Grid::parse(&text).map_err(|e| anyhow::anyhow!("{board}: {e}"))?;
    match lightsout::solve_within(&grid, 0, budget).map_err(|e| anyhow::anyhow!("{board}: {e}"))? {
        None => {
            eprintln!("No solution");
            Ok(1)
        }
        Some(s) => {
            use std::io::Write;
            // Written by hand into one buffer: formatting 50 million lines through `writeln!`
            // took longer than solving the board.
            let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
            let mut line = Vec::with_capacity(48);
            let digits = |mut n: usize, line: &mut Vec<u8>| {
                let start = line.len();
                loop {
                    line.push(b'0' + (n % 10) as u8);
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                line[start..].reverse();
            };
            for (r, c) in s.presses.cells() {
                line.clear();
                digits(r, &mut line);
                line.push(b':');
                digits(c, &mut line);
                line.push(b'\n');
                out.write_all(&line)?;
            }
            out.flush()?;
            if !s.minimal {
                eprintln!(
                    "note: this solves the board, but may not use the fewest presses: there are 2^{} solutions, \
                     too many to compare",
                    s.nullity
                );
            }
            Ok(0)
        }
    }
}

/// The text of `path` (or stdin for `-`), refused with a clear error past `limit` bytes
/// rather than read whole into memory.
pub fn read_bounded(path: &str, limit: usize) -> Result<String> {
    let mut bytes = Vec::new();
    let limit = limit as u64;
    let read = if path == "-" {
        std::io::stdin().lock().take(limit + 1).read_to_end(&mut bytes).context("cannot read the board from stdin")?
    } else {
        let f = std::fs::File::open(path).with_context(|| format!("cannot read the board file {path}"))?;
        f.take(limit + 1).read_to_end(&mut bytes).with_context(|| format!("cannot read the board file {path}"))?
    };
    if read as u64 > limit {
        bail!(
            "{path}: the board is more than {} MiB of text, past the memory budget (raise --max-memory)",
            limit >> 20
        );
    }
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{path}: the board is not text (UTF-8)"))
}

/// `gamesman tactix [--max-memory MIB] [--time-limit SECONDS] [--threads N] [FILE]`: the
/// contest program's contract (the nimsum, or -1 with the reason on stderr; exit 0), using
/// every core.
#[derive(Args)]
#[command(after_help = "A board that is not a P1 PBM, or that cannot be finished within the limits, prints -1 \
(the reason goes to stderr) and exits 0, as the contest requires.")]
pub struct TactixArgs {
    /// The board, a P1 PBM file (standard input when absent or -)
    #[arg(value_name = "FILE")]
    file: Option<String>,
    /// Memory for the tables and the board, in MiB
    #[arg(long, value_name = "MIB", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..1 << 20))]
    max_memory: u64,
    /// Give up (print -1) after this many seconds
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    time_limit: Option<f64>,
    /// Threads to solve with [default: all cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
}

fn positive_seconds(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or_else(|| format!("takes a positive number of seconds, not {v:?}"))
}

/// `gamesman tactix [FILE]`: the contest binary's work, with threads.
pub fn tactix(args: &TactixArgs) -> i32 {
    let threads =
        args.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |n| n as usize);
    let budget = (args.max_memory as usize) << 20;
    let limit = args.time_limit.and_then(::tactix::time_limit);
    if let Some(limit) = limit {
        tactix_watchdog(limit);
    }
    let file = args.file.clone();
    let started = std::time::Instant::now();
    let read = |r: &mut dyn Read| {
        let max_cells = (budget / 2 * 8) as u64;
        ::tactix::pbm::read(r, max_cells).map_err(|e| e.0)
    };
    let board = match file.as_deref() {
        None | Some("-") => read(&mut std::io::stdin().lock()),
        Some(f) => match std::fs::File::open(f) {
            Ok(mut file) => read(&mut file),
            Err(e) => Err(format!("cannot read {f}: {e}")),
        },
    };
    let result = board.and_then(|mut b| {
        let tables = budget.saturating_sub(b.bytes());
        ::tactix::nimsum_parallel(&mut b, tables, limit.map(|l| started + l), threads).map_err(|e| e.to_string())
    });
    // One answer: the work's, or the watchdog's -1, whichever takes the lock first.
    let _answer = ANSWER.lock().unwrap_or_else(|e| e.into_inner());
    match result {
        Ok(g) => println!("{g}"),
        Err(e) => {
            eprintln!("gamesman tactix: {e}");
            println!("-1");
        }
    }
    0
}

/// Held while `gamesman tactix` prints its answer, so that the watchdog's -1 and the work's
/// answer never both appear.
static ANSWER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The contest's contract for `--time-limit`: -1 (exit 0) when the limit runs out, wherever
/// the work is, reading a 100 MB board included (whose reading makes no check). A tenth of
/// the limit (at most 0.3 s) is left for the work's own checks to answer first.
fn tactix_watchdog(limit: std::time::Duration) {
    let at = std::time::Instant::now() + limit + (limit / 10).min(std::time::Duration::from_millis(300));
    let spawned = std::thread::Builder::new().name("time-limit".into()).spawn(move || {
        while let Some(left) = at.checked_duration_since(std::time::Instant::now()).filter(|d| !d.is_zero()) {
            std::thread::sleep(left);
        }
        // The work is printing its own answer: it exits once done.
        let Ok(_answer) = ANSWER.try_lock() else { return };
        eprintln!("gamesman tactix: the time limit ran out before the nimsum was found");
        println!("-1");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        std::process::exit(0);
    });
    drop(spawned);
}

/// A board made by pressing random lights on a dark one: solvable by construction.
fn solvable_lights_out(n: usize, seed: u64) -> crate::grid::Grid {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut g = crate::grid::Grid::new(n, n);
    for r in 0..n {
        for c in 0..n {
            if rng.bool() {
                g.toggle_plus(r, c);
            }
        }
    }
    g
}

/// `gamesman bench`'s rows for the assignments' own work (of the games `wanted` lets in):
/// Chomp's answer on 20 columns of 9, a random solvable 2048² Lights Out board, Nimrod near
/// 10^30.
pub fn bench_targets(repeat: u32, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<String>> {
    use super::timing::{best, timed};
    let mut rows = Vec::new();
    if wanted("chomp") {
        let h = vec![9u32; 20];
        let (t, answer) = best(repeat, || timed(|| Ok(chomp::answer(&h)?)))?;
        let states = chomp::count_states(&h).unwrap_or(0);
        rows.push(format!("| Chomp, 20 columns of height 9 ({states} states) | `{answer}` | {t:.3} |"));
    }
    if wanted("lightsout") {
        let board = solvable_lights_out(2048, 1);
        let (t, sol) = best(repeat, || timed(|| Ok(lightsout::solve(&board, 0))))?;
        let what = match sol {
            Some(s) => format!("{} presses, 2^{} solutions", s.presses.count(), s.nullity),
            None => "no solution".into(),
        };
        rows.push(format!("| Lights Out, random solvable 2048×2048 board | {what} | {t:.3} |"));
    }
    if wanted("nimrod") {
        let a: BigUint = "1618033988749894848204586834365".parse().expect("digits");
        let b: BigUint = &a + 1_000_000_000_000_000_000_000_000_000_000u128 + 7u32;
        let (t, out) = best(repeat, || timed(|| Ok(nimrod::report(&a, &b))))?;
        rows.push(format!("| Nimrod, piles near 10^30 | {} | {t:.6} |", out.trim_end().replace('\n', "; ")));
    }
    Ok(rows)
}
