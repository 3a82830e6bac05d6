//! The TacTix contest program: a P1 PBM board on stdin, its nimsum and a newline on stdout.
//!
//! A board it cannot solve (malformed, too large for the memory budget, out of time) gives
//! `-1` on stdout, the reason on stderr and exit status 0: the contest counts a crash
//! against you, never a `-1`.
//!
//! Options: `--max-memory MIB` (default 24: the PS2 has 32 MB), `--time-limit SECONDS`.

use std::io::Write;

const USAGE: &str = "usage: contest [--max-memory MIB] [--time-limit SECONDS] < board.pbm";

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let stats = args.iter().any(|a| a == "--stats");
    args.retain(|a| a != "--stats");
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}\nPrints the nimsum of the TacTix board on stdin, or -1 when it cannot.");
        return;
    }
    let (budget, limit, file) = match tactix::parse_args(&args, 24) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("contest: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    // Solve on the main thread (its stack, 8 MiB by default, holds the deepest search: at
    // most 4096 levels of about 600 bytes; a second thread would also get a malloc arena of
    // its own, which an address-space limit cannot afford), and turn anything unexpected
    // into -1 rather than a crash.
    let solved = std::panic::catch_unwind(move || match file {
        Some(f) => match std::fs::File::open(&f) {
            Ok(file) => tactix::nimsum_with_stats(file, budget, limit),
            Err(e) => (Err(format!("cannot read {f}: {e}")), Default::default()),
        },
        None => tactix::nimsum_with_stats(std::io::stdin().lock(), budget, limit),
    });
    let result = match solved {
        Ok((r, s)) => {
            if stats {
                eprintln!("searched {} components, {} memo hits, peak memory {}", s.searched, s.hits, peak_memory());
            }
            r
        }
        Err(_) => Err("internal error (the solver stopped)".into()),
    };
    let mut out = std::io::stdout().lock();
    let _ = match result {
        Ok(g) => writeln!(out, "{g}"),
        Err(e) => {
            eprintln!("contest: {e}");
            writeln!(out, "-1")
        }
    };
}

/// Peak resident memory of this process (Linux: VmHWM in /proc/self/status).
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l["VmHWM:".len()..].trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}
