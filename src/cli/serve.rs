//! `gamesman serve`: load the games and start the web server (`crate::serve`).

use crate::serve::Served;
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
    /// Read no saved database: always search
    #[arg(long)]
    no_db: bool,
}

/// Open every game to serve (a broken one is left out with a warning when no game is named).
fn load_all(args: &ServeArgs) -> Result<Vec<(String, Served)>> {
    let catalog = super::catalog();
    let limit = Duration::from_secs_f64(args.time_limit);
    let max_memory = args.max_memory.saturating_mul(1 << 20);
    let mut out = Vec::new();
    for (id, spec) in catalog.served(&args.games)? {
        match Served::open(catalog, &spec, limit, max_memory, args.no_db) {
            Ok(s) => out.push((id, s)),
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
    if !(args.time_limit.is_finite() && args.time_limit > 0.0) {
        bail!("--time-limit must be a positive number of seconds");
    }
    let addr = std::net::SocketAddr::new(args.host, args.port);
    crate::serve::run(
        addr,
        move || load_all(&args),
        |bound, names| {
            println!("gamesman: serving {} at http://{bound}/ (Ctrl-C stops)", names.join(", "));
            let _ = std::io::stdout().flush();
        },
    )?;
    Ok(0)
}
