//! The solved-game store: every position's value, remoteness and Grundy value, written once
//! by a whole-game solve (`--save`) and read by every command after.
//!
//! One database per game definition, in a [redb](https://docs.rs/redb) file (an embedded
//! B-tree store with checksummed pages and transactions). A database is named by a hash of
//! what decides its answers: the definition's bytes (script or descriptor), the engine that
//! answers for it, `--misere`, and this program's version. An edited script hashes
//! differently, so it never reads another definition's results.
//!
//! Tables:
//! - `positions`: position text (the game's own `format`) → [`Record`] (1 to 13 bytes);
//! - `census`: root position text → the `analyze` report (JSON) of everything reachable from it;
//! - `meta`: the identity and facts about the file (game, definition, engine, counts).
//!
//! Safety: a database is written in one transaction under a temporary name, then renamed over
//! the old one, so a process killed while saving leaves the old database (or none), never half
//! of one. Every open verifies every page's checksum first (redb's integrity check on open). A
//! damaged page makes redb fall back to the commit before, and a database has only the one
//! commit that wrote it (and the checks' own commits of the same data), so what is left either
//! verifies or holds no gamesman mark; the position count is checked against the one recorded.
//! A damaged or truncated file is refused with a clear error, never trusted.

pub mod array;
mod file;
mod pack;
pub use pack::pack_budget;

use crate::game::Value;
pub use file::{DbError, DbResult, open_saved, read_saved, read_saved_or};
use file::{alive, damaged, io};
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bumped when what a database holds changes meaning.
pub const FORMAT: &str = "1";

const POSITIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("positions");
const CENSUS: TableDefinition<&str, &str> = TableDefinition::new("census");
const META: TableDefinition<&str, &str> = TableDefinition::new("meta");

/// One position's solved value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub value: Value,
    pub remoteness: Option<u32>,
    pub grundy: Option<u64>,
}

const HAS_REMOTENESS: u8 = 0x10;
const HAS_GRUNDY: u8 = 0x20;

impl Record {
    /// A flag byte (value in the low bits), then the remoteness (4 bytes) and the Grundy value
    /// (8 bytes) where there is one, little-endian.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.clear();
        let v = match self.value {
            Value::Win => 0,
            Value::Lose => 1,
            Value::Tie => 2,
            Value::Draw => 3,
        };
        let flags = v
            | if self.remoteness.is_some() { HAS_REMOTENESS } else { 0 }
            | if self.grundy.is_some() { HAS_GRUNDY } else { 0 };
        out.push(flags);
        if let Some(r) = self.remoteness {
            out.extend_from_slice(&r.to_le_bytes());
        }
        if let Some(g) = self.grundy {
            out.extend_from_slice(&g.to_le_bytes());
        }
    }

    pub fn decode(bytes: &[u8]) -> Option<Record> {
        let (&flags, mut rest) = bytes.split_first()?;
        if flags & !(HAS_REMOTENESS | HAS_GRUNDY | 3) != 0 {
            return None;
        }
        let value = [Value::Win, Value::Lose, Value::Tie, Value::Draw][(flags & 3) as usize];
        let mut take = |n: usize| -> Option<&[u8]> {
            let (head, tail) = rest.split_at_checked(n)?;
            rest = tail;
            Some(head)
        };
        let remoteness = match flags & HAS_REMOTENESS {
            0 => None,
            _ => Some(u32::from_le_bytes(take(4)?.try_into().ok()?)),
        };
        let grundy = match flags & HAS_GRUNDY {
            0 => None,
            _ => Some(u64::from_le_bytes(take(8)?.try_into().ok()?)),
        };
        rest.is_empty().then_some(Record { value, remoteness, grundy })
    }
}

/// What decides a game's answers, and the database name that follows from it.
#[derive(Clone, Debug)]
pub struct Identity {
    /// The game's name (from its definition).
    pub game: String,
    /// The definition's file.
    pub file: String,
    /// "script", "descriptor" or "native".
    pub engine: String,
    pub misere: bool,
    /// SHA-256 of all of the above that matters (hex).
    pub hash: String,
}

impl Identity {
    pub fn new(game: &str, file: &str, definition: &[u8], engine: &str, misere: bool) -> Identity {
        let mut h = Sha256::new();
        h.update(b"gamesman database\0");
        h.update(FORMAT.as_bytes());
        h.update(b"\0");
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update(b"\0");
        h.update(engine.as_bytes());
        h.update(if misere { b"\0misere\0" } else { b"\0normal\0" });
        h.update(definition);
        let hash = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Identity { game: game.into(), file: file.into(), engine: engine.into(), misere, hash }
    }

    /// The database's file name: the game's name and the hash's first 16 digits.
    pub fn file_name(&self) -> String {
        let name: String = self
            .game
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .collect();
        format!("{name}{}-{}.redb", if self.misere { "-misere" } else { "" }, &self.hash[..16])
    }
}

/// Where databases live by default: `$XDG_CACHE_HOME/gamesman`, else `~/.cache/gamesman`.
pub fn default_dir() -> DbResult<PathBuf> {
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| Path::new(d).is_absolute()) {
        return Ok(PathBuf::from(d).join("gamesman"));
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(h) => Ok(PathBuf::from(h).join(".cache").join("gamesman")),
        None => Err(io(Path::new("~/.cache/gamesman"), "neither XDG_CACHE_HOME nor HOME is set: give --db PATH")),
    }
}

/// Why a checked open failed.
enum Refused {
    /// The file cannot be opened for writing (permissions, a read-only file system).
    ReadOnly,
    Other(DbError),
}

impl Refused {
    fn error(self, path: &Path) -> DbError {
        match self {
            Refused::ReadOnly => io(path, "the database cannot be opened for writing"),
            Refused::Other(e) => e,
        }
    }
}

/// Open `file` with redb's integrity check on open (every page's checksum), naming `path` in
/// errors.
fn open_checked(file: &Path, path: &Path) -> Result<Database, Refused> {
    Database::builder()
        .set_check_integrity_on_open(true)
        .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter)
        .open(file)
        .map_err(|e| match e {
            redb::DatabaseError::Storage(redb::StorageError::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) =>
            {
                Refused::ReadOnly
            }
            redb::DatabaseError::Storage(redb::StorageError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                Refused::Other(io(path, e))
            }
            redb::DatabaseError::DatabaseAlreadyOpen => {
                Refused::Other(io(path, "the database is open in another program"))
            }
            other => Refused::Other(damaged(path, other)),
        })
}

/// A database this process may read but not write: copied into a private file in the
/// temporary directory, checked there, and read from there (the copy's name is removed at
/// once; the open file lives until the store is dropped). The original is only ever read.
fn open_copy(path: &Path) -> DbResult<Database> {
    static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if let Err(e) = std::fs::File::open(path) {
        return Err(io(path, e));
    }
    let n = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let copy = std::env::temp_dir().join(format!(".gamesman-read-only.{}.{n}.redb", std::process::id()));
    // Not `fs::copy`, which would carry the original's read-only mode over.
    let copied = std::fs::File::open(path).and_then(|mut from| {
        let mut to = std::fs::OpenOptions::new().write(true).create_new(true).open(&copy)?;
        std::io::copy(&mut from, &mut to)
    });
    copied.map_err(|e| {
        let _ = std::fs::remove_file(&copy);
        io(
            path,
            format!(
                "the database is read-only here, and its copy for checking could not be written in {}: {e}",
                std::env::temp_dir().display()
            ),
        )
    })?;
    let db = open_checked(&copy, path);
    let _ = std::fs::remove_file(&copy);
    db.map_err(|e| e.error(path))
}

/// An open database, for reading: its tables stay open for many lookups.
pub struct Store {
    positions: redb::ReadOnlyTable<&'static str, &'static [u8]>,
    census: redb::ReadOnlyTable<&'static str, &'static str>,
    path: PathBuf,
    meta: BTreeMap<String, String>,
    // Declared last, so dropped after the tables read from it.
    _db: Database,
}

impl Store {
    /// Open `path`, verifying every page first. With `hash`, refuse a database made for
    /// another definition.
    pub fn open(path: &Path, hash: Option<&str>) -> DbResult<Store> {
        if !path.is_file() {
            return Err(io(path, "no such database"));
        }
        let db = match open_checked(path, path) {
            // A file this process may not write (a 0444 file, a read-only file system, a
            // directory of someone else's): redb's integrity check needs write access, so it
            // runs on a private copy, which is then what is read.
            Err(Refused::ReadOnly) => open_copy(path)?,
            other => other.map_err(|e| e.error(path))?,
        };
        let d = |e: &dyn std::fmt::Display| damaged(path, e);
        let txn = db.begin_read().map_err(|e| d(&e))?;
        let mut meta = BTreeMap::new();
        {
            let table = txn.open_table(META).map_err(|e| d(&e))?;
            for entry in table.iter().map_err(|e| d(&e))? {
                let (k, v) = entry.map_err(|e| d(&e))?;
                meta.insert(k.value().to_string(), v.value().to_string());
            }
        }
        if meta.get("format").map(String::as_str) != Some(FORMAT) {
            return Err(damaged(path, "no gamesman format mark, or another format"));
        }
        if let Some(want) = hash
            && meta.get("hash").map(String::as_str) != Some(want)
        {
            return Err(io(
                path,
                "this database was saved for another game definition (the script, the engine, --misere or the gamesman \
                 version differ); save it again",
            ));
        }
        let positions = txn.open_table(POSITIONS).map_err(|e| d(&e))?;
        let census = txn.open_table(CENSUS).map_err(|e| d(&e))?;
        let store = Store { positions, census, path: path.to_path_buf(), meta, _db: db };
        let want: Option<u64> = store.meta.get("positions").and_then(|n| n.parse().ok());
        if want != Some(store.len()?) {
            return Err(damaged(path, "the number of positions does not match its record"));
        }
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn meta(&self) -> &BTreeMap<String, String> {
        &self.meta
    }

    pub fn get(&self, position: &str) -> DbResult<Option<Record>> {
        match self.positions.get(position).map_err(|e| damaged(&self.path, e))? {
            None => Ok(None),
            Some(v) => Record::decode(v.value())
                .map(Some)
                .ok_or_else(|| damaged(&self.path, format!("an unreadable record for {position:?}"))),
        }
    }

    /// The `analyze` report saved for `root`, if any.
    pub fn census(&self, root: &str) -> DbResult<Option<String>> {
        Ok(self.census.get(root).map_err(|e| damaged(&self.path, e))?.map(|v| v.value().to_string()))
    }

    /// The roots whose `analyze` reports are saved.
    pub fn roots(&self) -> DbResult<Vec<String>> {
        let mut out = Vec::new();
        for entry in self.census.iter().map_err(|e| damaged(&self.path, e))? {
            out.push(entry.map_err(|e| damaged(&self.path, e))?.0.value().to_string());
        }
        Ok(out)
    }

    pub fn len(&self) -> DbResult<u64> {
        self.positions.len().map_err(|e| damaged(&self.path, e))
    }

    pub fn is_empty(&self) -> DbResult<bool> {
        Ok(self.len()? == 0)
    }

    /// Every position and its record, in key order.
    pub fn for_each(&self, mut f: impl FnMut(&str, Record) -> anyhow::Result<()>) -> anyhow::Result<()> {
        for entry in self.positions.iter().map_err(|e| damaged(&self.path, e))? {
            let (k, v) = entry.map_err(|e| damaged(&self.path, e))?;
            let rec = Record::decode(v.value())
                .ok_or_else(|| damaged(&self.path, format!("an unreadable record for {:?}", k.value())))?;
            f(k.value(), rec)?;
        }
        Ok(())
    }
}

/// Write a database at `path`: what an existing one there holds (when it is for the same
/// definition), plus `rows` and a census report for `root`. Written under a temporary name in
/// the same directory and renamed into place, so that it appears whole or not at all.
/// Returns the number of positions the database holds.
pub fn save(
    path: &Path,
    id: &Identity,
    rows: &mut dyn Iterator<Item = anyhow::Result<(String, Record)>>,
    census: Option<(&str, &str)>,
) -> anyhow::Result<u64> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| io(dir, format!("cannot create the directory: {e}")))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        std::process::id()
    ));
    // One save of a database at a time: a second waits for the first, then merges what the
    // first wrote (`write` reads the old database under the lock). The lock is the kernel's
    // (flock), so it goes with a killed process.
    let lock_path =
        dir.join(format!(".{}.lock", path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()));
    let lock = SaveLock::take(&lock_path, path)?;
    remove_stale(dir, path);
    let result = write(&tmp, path, id, rows, census);
    match result {
        Ok(n) => {
            std::fs::rename(&tmp, path)
                .map_err(|e| io(path, format!("cannot move the new database into place: {e}")))?;
            lock.release();
            Ok(n)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            lock.release();
            Err(e)
        }
    }
}

/// The lock one save holds on its database: an exclusive `flock` on `.NAME.redb.lock` beside
/// it. A second save waits for it (and says so on stderr). The holder removes the file before
/// letting go, so a waiter that then wins the lock of a removed file tries again on the
/// file now at the path.
struct SaveLock {
    file: std::fs::File,
    path: PathBuf,
}

impl SaveLock {
    fn take(lock_path: &Path, db: &Path) -> DbResult<SaveLock> {
        let mut told = false;
        loop {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(lock_path)
                .map_err(|e| io(lock_path, format!("cannot create the lock of a save: {e}")))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    if !told {
                        eprintln!("gamesman: waiting for another save of {} to finish", db.display());
                        told = true;
                    }
                    file.lock().map_err(|e| io(lock_path, format!("cannot lock: {e}")))?;
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io(lock_path, format!("cannot lock: {e}"))),
            }
            if Self::still_at(&file, lock_path) {
                return Ok(SaveLock { file, path: lock_path.to_path_buf() });
            }
        }
    }

    /// Is the file locked still the one at `path` (not removed by the save before)?
    #[cfg(unix)]
    fn still_at(file: &std::fs::File, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }

    #[cfg(not(unix))]
    fn still_at(_: &std::fs::File, _: &Path) -> bool {
        true
    }

    /// Remove the lock file (on unix, where a waiter checks it still holds the file at the
    /// path), then let go.
    fn release(self) {
        if cfg!(unix) {
            let _ = std::fs::remove_file(&self.path);
        }
        drop(self.file);
    }
}

fn write(
    tmp: &Path,
    path: &Path,
    id: &Identity,
    rows: &mut dyn Iterator<Item = anyhow::Result<(String, Record)>>,
    census: Option<(&str, &str)>,
) -> anyhow::Result<u64> {
    let old = if path.exists() { Some(Store::open(path, Some(&id.hash))?) } else { None };
    let db = Database::create(tmp).map_err(|e| io(tmp, format!("cannot create a database: {e}")))?;
    let txn = db.begin_write().map_err(|e| io(tmp, e))?;
    let count;
    {
        let mut positions = txn.open_table(POSITIONS).map_err(|e| io(tmp, e))?;
        let mut reports = txn.open_table(CENSUS).map_err(|e| io(tmp, e))?;
        let mut meta = txn.open_table(META).map_err(|e| io(tmp, e))?;
        let mut created = None;
        if let Some(old) = &old {
            let mut buf = Vec::new();
            old.for_each(|k, rec| {
                rec.encode(&mut buf);
                positions.insert(k, buf.as_slice()).map_err(|e| io(tmp, e))?;
                Ok(())
            })?;
            for entry in old.census.iter().map_err(|e| damaged(path, e))? {
                let (k, v) = entry.map_err(|e| damaged(path, e))?;
                reports.insert(k.value(), v.value()).map_err(|e| io(tmp, e))?;
            }
            created = old.meta.get("created").cloned();
        }
        let mut buf = Vec::new();
        for row in rows {
            let (k, rec) = row?;
            rec.encode(&mut buf);
            positions.insert(k.as_str(), buf.as_slice()).map_err(|e| io(tmp, e))?;
        }
        if let Some((root, report)) = census {
            reports.insert(root, report).map_err(|e| io(tmp, e))?;
        }
        count = positions.len().map_err(|e| io(tmp, e))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs().to_string())
            .unwrap_or_default();
        let count_text = count.to_string();
        let roots = reports.len().map_err(|e| io(tmp, e))?.to_string();
        let created = created.unwrap_or_else(|| now.clone());
        for (k, v) in [
            ("format", FORMAT),
            ("hash", id.hash.as_str()),
            ("game", id.game.as_str()),
            ("file", id.file.as_str()),
            ("engine", id.engine.as_str()),
            ("misere", if id.misere { "yes" } else { "no" }),
            ("gamesman", env!("CARGO_PKG_VERSION")),
            ("positions", count_text.as_str()),
            ("roots", roots.as_str()),
            ("created", created.as_str()),
            ("updated", now.as_str()),
        ] {
            meta.insert(k, v).map_err(|e| io(tmp, e))?;
        }
    }
    txn.commit().map_err(|e| io(tmp, e))?;
    drop(db);
    drop(old);
    // The rename must not overtake the data on disk.
    std::fs::File::open(tmp).and_then(|f| f.sync_all()).map_err(|e| io(tmp, e))?;
    Ok(count)
}

/// The temporary files of saves of `path` that were killed (their process is gone).
fn remove_stale(dir: &Path, path: &Path) {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else { return };
    let prefix = format!(".{name}.");
    for f in leftovers(dir) {
        let fname = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let pid = fname.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".tmp")).and_then(|p| p.parse::<i32>().ok());
        if let Some(pid) = pid
            && !alive(pid)
        {
            let _ = std::fs::remove_file(&f);
        }
    }
}

/// Temporary files of saves in `dir` (finished saves leave none; a killed one does).
pub fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            n.starts_with('.') && n.ends_with(".tmp") && n.contains(".redb.")
        })
        .collect();
    out.sort();
    out
}

/// Databases in `dir`, sorted by name: redb files, and the directories of tier saves
/// (`NAME.tiers/`, see [`mod@array`]).
pub fn list(dir: &Path) -> DbResult<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            (p.extension().is_some_and(|e| e == "redb") && p.is_file())
                || (p.extension().is_some_and(|e| e == "tiers") && array::is_save(p))
        })
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_garbage_is_refused() {
        let all = [
            Record { value: Value::Win, remoteness: Some(9), grundy: None },
            Record { value: Value::Lose, remoteness: Some(0), grundy: Some(0) },
            Record { value: Value::Tie, remoteness: None, grundy: None },
            Record { value: Value::Draw, remoteness: None, grundy: Some(u64::MAX) },
        ];
        let mut buf = Vec::new();
        for r in all {
            r.encode(&mut buf);
            assert_eq!(Record::decode(&buf), Some(r));
            // One byte short or one byte long is not a record.
            assert_eq!(Record::decode(&buf[..buf.len() - 1]), None);
            buf.push(0);
            assert_eq!(Record::decode(&buf), None);
        }
        assert_eq!(Record::decode(&[0x40]), None);
        assert_eq!(Record::decode(&[]), None);
    }

    #[test]
    fn the_name_follows_the_definition() {
        let a = Identity::new("nim", "games/nim.rhai", b"const KIND = \"impartial\";", "script", false);
        let b = Identity::new("nim", "games/nim.rhai", b"const KIND = \"impartial\"; ", "script", false);
        let c = Identity::new("nim", "games/nim.rhai", b"const KIND = \"impartial\";", "script", true);
        assert_ne!(a.hash, b.hash);
        assert_ne!(a.hash, c.hash);
        assert!(c.file_name().starts_with("nim-misere-"));
    }
}
