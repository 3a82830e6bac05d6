//! The original assignments' own commands: their arguments, and their dispatch through the
//! catalogue's rows ([`crate::catalog::Catalog::assignment`]), which hold the commands with
//! their exact input/output contracts.

use crate::catalog::{Call, Io};
use anyhow::Result;
use clap::Args;

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
    pub(super) limit: super::args::LimitArgs,
}

impl NimrodArgs {
    pub fn call(&self) -> Call {
        Call { words: self.a.iter().chain(&self.b).cloned().collect(), count: self.lose_positions, ..Call::default() }
    }
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

impl TactixArgs {
    pub fn call(&self) -> Call {
        Call {
            words: self.file.iter().cloned().collect(),
            budget: (self.max_memory as usize) << 20,
            time_limit: self.time_limit,
            threads: self.threads.map(|n| n as usize),
            count: None,
        }
    }
}

/// Run the assignment command of the catalogue's row `name` on the process's stdout and stderr.
pub fn run(name: &str, call: &Call) -> Result<i32> {
    let assignment = super::args::catalog().assignment(name)?;
    (assignment.run)(call, &mut Io { out: &mut std::io::stdout(), err: &mut std::io::stderr() })
}

/// `gamesman bench`'s rows for the assignments' own work (of the games `wanted` lets in), in
/// the catalogue's order.
pub fn bench_targets(repeat: u32, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<String>> {
    use super::timing::{best, timed};
    let mut rows = Vec::new();
    for (name, assignment) in super::args::catalog().assignments() {
        let Some(work) = assignment.bench.filter(|_| wanted(name)) else { continue };
        let work = work();
        let (t, result) = best(repeat, || timed(|| (work.run)()))?;
        rows.push(format!("| {} | {result} | {t:.*} |", work.what, work.decimals));
    }
    Ok(rows)
}
