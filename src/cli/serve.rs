//! `gamesman serve`: load the games and start the web server (`crate::serve`).

use crate::serve::{Config, Served};
use anyhow::{Result, bail};
use clap::Args;
use std::io::Write;
use std::time::Duration;

#[derive(Args)]
pub struct ServeArgs {
    /// The games to serve (paths or names, as for `solve`). Default: every game in the games
    /// directory
    #[arg(value_name = "GAME")]
    games: Vec<String>,
    /// Port to listen on (0: any free port, printed at start)
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on. The default serves this machine only; 0.0.0.0 serves the network
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// Seconds one request may search before it is answered with an error
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    time_limit: f64,
    /// Memory budget in MiB for each game's solver tables
    #[arg(long, value_name = "MIB", default_value_t = 512)]
    max_memory: usize,
    /// Memory budget in MiB for the answers kept to be given again (all games together; 0
    /// keeps none). Default: a sixteenth of --max-memory
    #[arg(long, value_name = "MIB")]
    cache_memory: Option<usize>,
    /// Read no saved database: always search
    #[arg(long)]
    no_db: bool,
    /// Game threads that answer requests first (each with a copy of every game). Default:
    /// every core, at least 2
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    workers: Option<u16>,
    /// Long searches at once (a request that takes more than 0.2 s is one); more are answered
    /// 503 with Retry-After. Default: every core
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    searches: Option<u16>,
    /// Connections at once; more are closed as they come. Default: 512, or fewer where the
    /// process may open fewer files
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
    /// Seconds a connection may take to send a request's headers, or stay idle between
    /// requests, before it is closed
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    header_timeout: f64,
}

/// The games to serve, each opened once here to check it (a broken one is left out with a
/// warning when no game is named): (id, spec).
fn games(args: &ServeArgs) -> Result<Vec<(String, String)>> {
    let catalog = super::args::catalog();
    let mut out = Vec::new();
    for (id, spec) in catalog.served(&args.games)? {
        // Within the budget the game will have (its definition's numbers are checked against it).
        match Served::open(catalog, &spec, Duration::from_secs(1), args.max_memory.saturating_mul(1 << 20), true) {
            Ok(_) => out.push((id, spec)),
            Err(e) if args.games.is_empty() => eprintln!("gamesman: warning: not served: {e:#}"),
            Err(e) => return Err(e),
        }
    }
    if out.is_empty() {
        bail!("no games to serve");
    }
    Ok(out)
}

pub fn run(args: ServeArgs) -> Result<i32> {
    if !(args.time_limit.is_finite() && args.time_limit > 0.0 && args.time_limit < 1e6) {
        bail!("--time-limit must be a positive number of seconds (below a million)");
    }
    if !(args.header_timeout.is_finite() && args.header_timeout > 0.0 && args.header_timeout < 1e6) {
        bail!("--header-timeout must be a positive number of seconds (below a million)");
    }
    let games = games(&args)?;
    let defaults = Config::default();
    let config = Config {
        time_limit: Duration::from_secs_f64(args.time_limit),
        max_memory: args.max_memory.saturating_mul(1 << 20),
        cache_memory: args
            .cache_memory
            .map_or(args.max_memory.saturating_mul(1 << 20) / 16, |m| m.saturating_mul(1 << 20)),
        workers: args.workers.map_or(defaults.workers, usize::from),
        searches: args.searches.map_or(defaults.searches, usize::from),
        max_connections: args.max_connections.map_or_else(connection_bound, |n| n as usize),
        header_timeout: Duration::from_secs_f64(args.header_timeout),
        no_db: args.no_db,
        ..defaults
    };
    let addr = std::net::SocketAddr::new(args.host, args.port);
    crate::serve::run(addr, super::args::catalog().clone(), games, config, |bound, names| {
        println!("gamesman: serving {} at http://{bound}/ (Ctrl-C stops)", names.join(", "));
        let _ = std::io::stdout().flush();
    })?;
    Ok(0)
}

/// Connections at once by default: 512, or fewer where the process may open fewer files
/// (each connection is one; the games and databases need some too).
fn connection_bound() -> usize {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct it is given.
    let files = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 { lim.rlim_cur } else { 1024 };
    (files.saturating_sub(64) as usize / 2).clamp(8, 512)
}
