//! A game written in Rust as a row of the catalogue's table: its name, how it is built and
//! opened as a session, the shipped definitions it answers for, its sampler, its bench
//! positions and its assignment's command.

use super::how::How;
use super::live::Live;
use super::session::Session;
use crate::db::Identity;
use crate::game::{Game, GameExt, GameInfo, Kind, Misere};
use crate::native::command::Work;
use anyhow::{Result, bail};
use std::sync::Arc;

type Opener = dyn Fn(GameInfo, &How, Option<Identity>) -> Result<Box<dyn Session>> + Send + Sync;

/// A game written in Rust: a row of the catalogue's table.
#[derive(Clone)]
pub struct Native {
    /// The name a definition's `native` names it by (and, for a game with [`Native::info`],
    /// the name it is found by on its own).
    pub name: String,
    /// The game's own metadata, for a game found by name with no definition file beside it.
    pub info: Option<GameInfo>,
    pub(super) open: Arc<Opener>,
    /// A random small position, as text (what `gamesman check` compares engines on).
    pub sample: Option<fn(&mut fastrand::Rng) -> String>,
    /// Benchmark positions: (position, what it measures).
    pub bench: Vec<(String, String)>,
    /// The shipped definitions (`games/` files) that name it, whose rules it answers for.
    pub definitions: Vec<String>,
    /// Its assignment's own command (`gamesman nim`, ...), if it has one.
    pub assignment: Option<Assignment>,
}

/// An original assignment's command, reached through the catalogue (`Catalog::assignment`):
/// the entry point, and the work of it that `gamesman bench` times, if any.
#[derive(Clone, Copy)]
pub struct Assignment {
    pub run: crate::native::command::Command,
    pub bench: Option<fn() -> Work>,
}

impl Native {
    /// A row: `make` builds the game from the metadata of the definition that names it (or
    /// from [`Native::info`] for a game found on its own).
    pub fn new<G: Game + 'static>(name: &str, make: impl Fn(GameInfo) -> G + Send + Sync + 'static) -> Native {
        Native {
            name: name.to_string(),
            info: None,
            open: Arc::new(move |info, how, id| open_game(make(info), "native", how, id)),
            sample: None,
            bench: Vec::new(),
            definitions: Vec::new(),
            assignment: None,
        }
    }

    /// A row whose game keeps tables of its own: `make` is also given the memory budget
    /// (`--max-memory`, in bytes), so that what the game holds stays within it.
    pub fn budgeted<G: Game + 'static>(
        name: &str,
        make: impl Fn(GameInfo, usize) -> G + Send + Sync + 'static,
    ) -> Native {
        Native {
            name: name.to_string(),
            info: None,
            open: Arc::new(move |info, how, id| open_game(make(info, how.options.max_memory), "native", how, id)),
            sample: None,
            bench: Vec::new(),
            definitions: Vec::new(),
            assignment: None,
        }
    }

    /// A game found by its own name, without a definition file: its metadata.
    pub fn standalone(mut self, info: GameInfo) -> Native {
        self.info = Some(info);
        self
    }

    /// How `gamesman check` draws random positions of it.
    pub fn sample(mut self, sample: fn(&mut fastrand::Rng) -> String) -> Native {
        self.sample = Some(sample);
        self
    }

    /// A position `gamesman bench` solves, and what that measures.
    pub fn bench(mut self, position: &str, what: &str) -> Native {
        self.bench.push((position.to_string(), what.to_string()));
        self
    }

    /// A shipped definition (a file of `games/`) that names this row.
    pub fn backs(mut self, file: &str) -> Native {
        self.definitions.push(file.to_string());
        self
    }

    /// Its assignment's command (`gamesman NAME ...`), and the work of it `gamesman bench`
    /// times.
    pub fn assignment(mut self, run: crate::native::command::Command, bench: Option<fn() -> Work>) -> Native {
        self.assignment = Some(Assignment { run, bench });
        self
    }
}

/// Wrap `game` (for misère play where asked) in a session.
pub fn open_game<G: Game + 'static>(
    game: G,
    engine: &'static str,
    how: &How,
    identity: Option<Identity>,
) -> Result<Box<dyn Session>> {
    if how.misere {
        if game.kind() == Kind::Puzzle {
            bail!("--misere applies to two-player games, and {} is a puzzle", game.info().name);
        }
        return Ok(Box::new(Live::new(Misere::new(game), engine, how, identity)?));
    }
    Ok(Box::new(Live::new(game, engine, how, identity)?))
}
