//! What the original assignments' commands (`gamesman nim`, `nimrod`, `chomp`, `lightsout`,
//! `tactix`) are given and where they write: each native module with an assignment has an
//! entry point `command(&Call, &mut Io) -> Result<i32>` that its catalogue row names, and the
//! command line reaches it through the catalogue.

use anyhow::{Context, Result, bail};
use std::io::{Read, Write};

/// What an assignment command was given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Call {
    /// Its positional words, as given.
    pub words: Vec<String>,
    /// Its memory budget in bytes (`--max-memory`), for the commands that keep to one.
    pub budget: usize,
    /// `--time-limit` in seconds, for a command whose contract answers it itself (TacTix's
    /// -1); the others' limit is the command line's own.
    pub time_limit: Option<f64>,
    /// `--threads`, for a command that can use several.
    pub threads: Option<usize>,
    /// A count asked for instead of a position (Nimrod's `--lose-positions K`).
    pub count: Option<u64>,
}

/// Where an assignment command writes: its standard output and its standard error.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
}

/// An assignment command: its exit status, or an error the command line reports.
pub type Command = fn(&Call, &mut Io) -> Result<i32>;

/// The work of an assignment command that `gamesman bench` times: what it is, and the work
/// itself (its result, as the table shows it). Anything made beforehand (a random board) is
/// made by the function that returns it, outside the time.
pub struct Work {
    pub what: String,
    /// Decimals of the time shown.
    pub decimals: usize,
    pub run: Box<dyn Fn() -> Result<String>>,
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
