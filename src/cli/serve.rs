//! `gamesman serve`: load the games and start the web server (`crate::serve`).

use super::{EngineChoice, Loaded, game_dirs, identity, load_path, native_for, with_loaded, with_native};
use crate::db::{self, Store};
use crate::game::{Game, GameInfo};
use crate::native::{NativeKind, chomp::Chomp, lightsout::LightsOut, nim::Nim, nimrod::Nimrod, tactix::TacTix};
use crate::progress::Progress;
use crate::serve::{Served, ServedGame};
use crate::solve::{Analyzer, Options};
use anyhow::{Result, bail};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
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

/// The games to serve: (id, definition file).
fn game_files(args: &ServeArgs) -> Result<Vec<(String, PathBuf)>> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    let files: Vec<PathBuf> = if args.games.is_empty() {
        let Some(dir) = game_dirs().into_iter().find(|d| d.is_dir()) else { bail!("no games directory found") };
        let mut all: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "rhai" || e == "ron"))
            .collect();
        // A script first, so that `cram` is cram.rhai and the descriptor is `cram.ron`.
        all.sort_by_key(|p| (p.file_stem().map(|s| s.to_owned()), p.extension().is_some_and(|e| e == "ron")));
        all
    } else {
        args.games.iter().map(|g| super::find_game(g)).collect::<Result<_>>()?
    };
    for f in files {
        let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let id = if out.iter().any(|(id, _)| *id == stem) {
            f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
        } else {
            stem
        };
        out.push((id, f));
    }
    Ok(out)
}

fn served<G: Game + 'static>(
    game: G,
    engine: &'static str,
    db: Option<(PathBuf, String)>,
    args: &ServeArgs,
) -> Box<dyn Served> {
    let max_memory = args.max_memory.saturating_mul(1 << 20);
    let make = Box::new(move |g: &'static G, progress: Progress| {
        let a = Analyzer::new(g, Options { max_memory, progress, ..Options::default() });
        match &db {
            Some((path, hash)) if path.exists() => match Store::open(path, Some(hash)) {
                Ok(store) => a.with_database(store),
                Err(e) => {
                    eprintln!("gamesman: warning: {e} (searching instead)");
                    a
                }
            },
            _ => a,
        }
    });
    Box::new(ServedGame::new(game, engine, Duration::from_secs_f64(args.time_limit), make))
}

fn load_all(args: &ServeArgs) -> Result<Vec<(String, Box<dyn Served>)>> {
    let mut out = Vec::new();
    for (id, file) in game_files(args)? {
        let loaded = match load_path(&file) {
            Ok(l) => l,
            Err(e) if args.games.is_empty() => {
                eprintln!("gamesman: warning: not served: {e:#}");
                continue;
            }
            Err(e) => return Err(e),
        };
        let native = native_for(&loaded, EngineChoice::Auto)?;
        let engine = if native.is_some() { "native" } else { loaded.engine_name() };
        let dbinfo = if args.no_db {
            None
        } else {
            let ident = identity(&loaded, engine, false)?;
            db::default_dir().ok().map(|d| (d.join(ident.file_name()), ident.hash))
        };
        let s = match native {
            None => with_loaded!(loaded, |g| served(g, engine, dbinfo, args)),
            Some(kind) => {
                let info: GameInfo = loaded.info().clone();
                with_native!(kind, info, |g| served(g, engine, dbinfo, args))
            }
        };
        out.push((id, s));
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
