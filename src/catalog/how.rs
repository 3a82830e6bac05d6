//! How a game is opened: which engine answers it, which solved-game database it reads, and
//! the solvers' options.

use crate::solve::Options;
use std::path::PathBuf;

/// Which engine answers a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The native module when the definition names one that exists, else the definition.
    #[default]
    Auto,
    /// Always the definition itself (the script or descriptor interpreter).
    Definition,
    /// The native module; an error if there is none.
    Native,
}

/// Which solved-game database a session reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Database {
    /// The one saved for this exact definition in the default directory, if there is one;
    /// one that is damaged is an error.
    #[default]
    Saved,
    /// As `Saved`, but a damaged one is reported on stderr and the game searched instead
    /// (a server keeps serving).
    SavedOrSearch,
    /// This file: it must exist when an answer is asked of it (`--save` writes it).
    At(PathBuf),
    /// None: always search.
    Off,
}

/// How to open a game.
#[derive(Clone, Debug, Default)]
pub struct How {
    pub engine: Engine,
    /// Misère play: whoever makes the last move loses.
    pub misere: bool,
    /// The solvers' options (memory budget, time limit, threads…).
    pub options: Options,
    pub database: Database,
}
