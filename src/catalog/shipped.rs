//! The shipped game definitions, embedded in the binary at build time (`build.rs`), so that
//! the binary finds them wherever it runs. They are written out, the first time a name is not
//! found in the user's directories, to a folder named by their hash
//! (`$XDG_CACHE_HOME/gamesman-games/HASH`, else one in the system's temporary directory), and
//! read from there like any other games directory.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

include!(concat!(env!("OUT_DIR"), "/shipped_games.rs"));

/// The folder holding the shipped definitions, written out on the first call; `None` when no
/// folder could be written.
pub fn dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let cache = crate::db::default_dir().ok().map(|d| d.with_file_name("gamesman-games"));
        // SAFETY: getuid cannot fail and touches nothing.
        #[cfg(unix)]
        let user = unsafe { libc::getuid() }.to_string();
        #[cfg(not(unix))]
        let user = String::from("user");
        let temp = std::env::temp_dir().join(format!("gamesman-games-{user}"));
        [cache, Some(temp)].into_iter().flatten().map(|base| base.join(SHIPPED_HASH)).find(|d| write_out(d).is_ok())
    })
    .clone()
}

/// Write every shipped definition into `dir` where it is not already there, byte for byte
/// (each file written beside and renamed into place, so that two processes never see half
/// of one).
fn write_out(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in SHIPPED {
        let path = dir.join(name);
        // A regular file of the same length first: nothing else is read (a FIFO never ends).
        let same_size = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() == text.len() as u64);
        if same_size && std::fs::read(&path).is_ok_and(|b| b == text.as_bytes()) {
            continue;
        }
        let part = dir.join(format!(".{name}.{}", std::process::id()));
        std::fs::write(&part, text)?;
        std::fs::rename(&part, &path)?;
    }
    Ok(())
}
