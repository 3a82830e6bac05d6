//! A database's errors, and the one way every saved file is opened and read: checked to be
//! a plain file of a bounded size, with an error that names it. Below the store (`mod.rs`)
//! and the array database (`array.rs`).

use std::path::Path;

/// What went wrong with a database: one line, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("{path}: {what}")]
    Damaged { path: String, what: String },
    #[error("{path}: {what}")]
    Io { path: String, what: String },
}

pub type DbResult<T> = Result<T, DbError>;

/// A solver reading a database sees its errors as game errors (the database sits above the
/// game: `game` knows nothing of it).
impl From<DbError> for crate::game::GameError {
    fn from(e: DbError) -> Self {
        crate::game::GameError::Database(e.to_string())
    }
}

pub(super) fn damaged(path: &Path, what: impl std::fmt::Display) -> DbError {
    DbError::Damaged {
        path: path.display().to_string(),
        what: format!(
            "the database is damaged or not a gamesman database ({what}); remove it (`gamesman db rm {}`) and save again",
            path.display()
        ),
    }
}

pub(super) fn io(path: &Path, what: impl std::fmt::Display) -> DbError {
    DbError::Io { path: path.display().to_string(), what: what.to_string() }
}

/// Open a file this program saved, for reading, and check it before a byte is read: it must
/// be a regular file (opened without blocking, so a FIFO where a file should be never hangs;
/// the handle's own metadata is checked, so a link to `/dev/zero` is refused too) of at most
/// `max` bytes (what it can hold, and what the budget allows). The error names the file and
/// how to remove it. Returns the file and its length.
pub fn open_saved(path: &Path, max: u64) -> DbResult<(std::fs::File, u64)> {
    check_saved(path, max).map_err(|(refused, why)| if refused { damaged(path, why) } else { io(path, why) })
}

/// [`open_saved`] with the bare reason: `(true, why)` for a file refused, `(false, why)` for
/// one that cannot be opened.
fn check_saved(path: &Path, max: u64) -> Result<(std::fs::File, u64), (bool, String)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| (false, e.to_string()))?;
    let meta = file.metadata().map_err(|e| (false, e.to_string()))?;
    if !meta.is_file() {
        return Err((true, "not a regular file: a FIFO, a device or a directory where a saved file should be".into()));
    }
    if meta.len() > max {
        return Err((
            true,
            format!("{} bytes, more than the {max} it can hold or the memory budget allows", meta.len()),
        ));
    }
    Ok((file, meta.len()))
}

/// A file this program saved, read whole after [`open_saved`]'s checks (at most `max` bytes,
/// even if it grows while it is read).
pub fn read_saved(path: &Path, max: u64) -> DbResult<Vec<u8>> {
    read_saved_reason(path, max).map_err(|(refused, why)| if refused { damaged(path, why) } else { io(path, why) })
}

/// [`read_saved`] with the bare reason (see `check_saved`), for a caller that words its own
/// advice.
pub fn read_saved_or(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    read_saved_reason(path, max).map_err(|(_, why)| why)
}

fn read_saved_reason(path: &Path, max: u64) -> Result<Vec<u8>, (bool, String)> {
    use std::io::Read;
    let (file, len) = check_saved(path, max)?;
    let mut out = Vec::with_capacity(len as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut out).map_err(|e| (false, e.to_string()))?;
    if out.len() as u64 > max {
        return Err((true, format!("it grew past {max} bytes while it was read")));
    }
    Ok(out)
}

/// Whether the process `pid` (another one) is alive: a lock it holds is not stale.
pub(crate) fn alive(pid: i32) -> bool {
    if pid as u32 == std::process::id() {
        return false;
    }
    #[cfg(unix)]
    {
        // Signal 0 only asks whether the process exists.
        // SAFETY: kill with signal 0 sends nothing.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        true
    }
}
