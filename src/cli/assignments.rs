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
    if let Some(k) = args.lose_positions {
        print!("{}", nimrod::lose_positions(k));
        return Ok(0);
    }
    let a = pile(args.a.as_deref(), "A")?;
    let b = pile(args.b.as_deref(), "B")?;
    print!("{}", nimrod::report(&a, &b));
    Ok(0)
}

/// `gamesman chomp STATE`: `LOSS` or `WIN: state`; the usage text (stderr, exit 1) on a
/// non-digit, increasing or empty state.
pub fn chomp(state: Option<&str>) -> Result<i32> {
    match chomp::assignment(state.unwrap_or("")) {
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
pub fn lightsout(board: &str) -> Result<i32> {
    let text = if board == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("cannot read the board from stdin")?;
        s
    } else {
        std::fs::read_to_string(board).with_context(|| format!("cannot read the board file {board}"))?
    };
    let grid = crate::grid::Grid::parse(&text).map_err(|e| anyhow::anyhow!("{board}: {e}"))?;
    match lightsout::solve(&grid, 0) {
        None => {
            eprintln!("No solution");
            Ok(1)
        }
        Some(s) => {
            use std::io::Write;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for (r, c) in s.presses.cells() {
                writeln!(out, "{r}:{c}")?;
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

/// `gamesman tactix [--max-memory MIB] [--time-limit SECONDS] [--threads N] [FILE]`: the
/// contest program's contract (the nimsum, or -1 with the reason on stderr; exit 0), using
/// every core.
pub fn tactix(args: &[String]) -> i32 {
    let mut args = args.to_vec();
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        match args.get(i + 1).and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0) {
            Some(n) => threads = n,
            None => {
                eprintln!("gamesman tactix: --threads takes a positive whole number");
                return 2;
            }
        }
        args.drain(i..i + 2);
    }
    let (budget, limit, file) = match ::tactix::parse_args(&args, 256) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("gamesman tactix: {e}");
            return 2;
        }
    };
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
    match result {
        Ok(g) => println!("{g}"),
        Err(e) => {
            eprintln!("gamesman tactix: {e}");
            println!("-1");
        }
    }
    0
}
