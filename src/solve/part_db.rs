//! An endgame database of part nimbers, built once and kept on disk: the exact nimber of every
//! canonical part within a bound the user names (Cram: every part that fits in a box of the
//! board), for the nimber search on keys (`nimber.rs`), which asks it before it searches
//! a part. Generic: the game says which keys are parts within the bound
//! ([`PackedSum::parts_within`], [`PartBox`]); this module knows nothing of dominoes.
//!
//! **Build.** Every key below `2^bits` is tested ([`PartBox::is_part`]), in parallel, in key
//! order; then each part's nimber is the mex of its children's, a child's the XOR of its
//! parts' (each a smaller key, looked up in the table being built), level by level
//! ([`PartBox::level`]: a part's children's parts are on lower levels), each level in
//! parallel. The build honours the time limit and the memory budget (the parts found so far
//! checked against it after each batch of keys tested, counted at what the whole build will
//! need for them), and shows its progress.
//!
//! **Storage.** Keys are not stored whole: the keys below `2^bits` fall in `2^(bits - s)`
//! buckets by their high bits (`s = min(bits, 16)`); a bucket's keys are kept as their low
//! `s` bits, sorted (`u16`), and each part's nimber as a byte: 3 bytes a part, and 4 bytes a
//! bucket. A lookup is a bucket's slice and a binary search in it. Membership is `key <
//! 2^bits` and the key found (every part below the bound is in the table, by the contract of
//! [`PartBox`]; a key not found is searched as without a database).
//!
//! **File** (`$XDG_CACHE_HOME/gamesman/<game>-<hash>.<space>.<bound>.parts`, beside the
//! solved-game databases): a header (magic, format version, the identity: the game's
//! definition hash, its key space and the bound), the buckets' offsets, the low bits, the
//! nimbers, and a CRC-32 of all of it. A file that is short, damaged, of another version or of
//! another game is refused with the reason (the caller notes it and builds anew or searches
//! without), never read.

use crate::game::packed::{PackedSum, PartBox};
use crate::game::{GameError, GameResult};
use crate::progress::Progress;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

const MAGIC: &[u8; 8] = b"GMPARTDB";
const VERSION: u32 = 1;

/// Where a search finds its endgame database: the bound the user named (`--endgame`; `None`:
/// the largest one saved for this game and board, if any), and the directory and the game's
/// identity that name the file.
#[derive(Clone, Debug, Default)]
pub struct Endgame {
    pub bound: Option<String>,
    /// The cache directory; `None` (no place known): nothing is loaded or saved.
    pub dir: Option<PathBuf>,
    /// The game's database name without its extension (`cram-0123456789abcdef`).
    pub game: String,
}

/// The nimbers of every part within a bound (see the module's documentation), read in place
/// from the file's bytes.
pub struct PartDb {
    bytes: Vec<u8>,
    bits: u32,
    shift: u32,
    count: usize,
    /// Where the buckets' offsets, the low bits and the nimbers start in `bytes`.
    offsets_at: usize,
    lows_at: usize,
    values_at: usize,
}

impl std::fmt::Debug for PartDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PartDb({} parts below 2^{})", self.len(), self.bits)
    }
}

/// The entry of the key `key` in a table of sorted low bits `lows` (little-endian `u16`)
/// with buckets `offsets` (little-endian `u32`), if it is there.
#[inline]
fn find(offsets: &[u8], lows: &[u8], shift: u32, bits: u32, key: u64) -> Option<usize> {
    if key >> bits != 0 {
        return None;
    }
    let b = (key >> shift) as usize * 4;
    let at = |i: usize| u32::from_le_bytes([offsets[i], offsets[i + 1], offsets[i + 2], offsets[i + 3]]) as usize;
    let (mut lo, mut hi) = (at(b), at(b + 4));
    let low = (key & ((1u64 << shift) - 1)) as u16;
    while lo < hi {
        let mid = (lo + hi) / 2;
        let m = u16::from_le_bytes([lows[2 * mid], lows[2 * mid + 1]]);
        match m.cmp(&low) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    None
}

/// The bucket bits for `count` keys below `2^bits`: about 16 keys a bucket, the low bits
/// left at most 16.
fn shift_for(bits: u32, count: usize) -> u32 {
    let buckets = (count / 16).max(1).next_power_of_two().trailing_zeros();
    bits.saturating_sub(buckets).min(16)
}

impl PartDb {
    /// How many parts it holds.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Keys below `2^bits` are within its bound.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The nimber of the part `key`, if it is within the bound.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u64> {
        let b = &self.bytes[..];
        find(&b[self.offsets_at..self.lows_at], &b[self.lows_at..self.values_at], self.shift, self.bits, key)
            .map(|i| u64::from(b[self.values_at + i]))
    }

    /// Bytes of the file.
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Build the table of the parts within `parts` (see the module's documentation), its
    /// memory kept to `budget` bytes.
    pub fn build(parts: &dyn PartBox, identity: &str, budget: usize, progress: &Progress) -> GameResult<PartDb> {
        let bits = parts.bits();
        if bits > 32 {
            return Err(GameError::Unsupported(format!(
                "an endgame database holds keys of at most 32 bits, and {} needs {bits}",
                parts.name()
            )));
        }
        let too_big = |need: usize, what: &str| {
            GameError::OutOfMemory(format!(
                "the endgame database of {} needs {:.0} MiB for {what}, over the {} MiB the nimber search has \
                 (half of --max-memory; raise it, or name a smaller bound)",
                parts.name(),
                need as f64 / (1 << 20) as f64,
                budget >> 20
            ))
        };
        let stopped = |done: &str| {
            GameError::TimeLimit(format!(
                "the time limit ran out while building the endgame database of {} ({done}; --time-limit)",
                parts.name()
            ))
        };
        // The parts, in key order: chunks of keys tested in parallel, a batch at a time
        // (between batches: the time limit, the memory budget, progress).
        let total = 1u64 << bits;
        let chunk = total.min(1 << 18);
        let chunks = total / chunk;
        let batch = 64u64;
        let mut keys: Vec<u32> = Vec::new();
        let mut c = 0;
        while c < chunks {
            let end = (c + batch).min(chunks);
            let found: Vec<Vec<u32>> = (c..end)
                .into_par_iter()
                .map(|i| (i * chunk..(i + 1) * chunk).filter(|&k| parts.is_part(k)).map(|k| k as u32).collect())
                .collect();
            let more: usize = found.iter().map(Vec::len).sum();
            // The keys, and later their levels, lows, nimbers and buckets, and the file's
            // bytes: 15 bytes a part.
            let need = (keys.len() + more) * 15;
            if need > budget {
                return Err(too_big(need, "its parts"));
            }
            keys.reserve(more);
            for f in found {
                keys.extend_from_slice(&f);
            }
            c = end;
            if progress.expired() {
                return Err(stopped(&format!("{} of {} keys tested", c * chunk, total)));
            }
            progress.tick(c * chunk, keys.len() * 4)?;
        }
        // Buckets and low bits, as the file holds them.
        let shift = shift_for(bits, keys.len());
        let buckets = 1usize << (bits - shift);
        let mut counts = vec![0u32; buckets + 1];
        for &k in &keys {
            counts[(k >> shift) as usize + 1] += 1;
        }
        for b in 0..buckets {
            counts[b + 1] += counts[b];
        }
        let offsets: Vec<u8> = counts.iter().flat_map(|c| c.to_le_bytes()).collect();
        drop(counts);
        let mask = ((1u64 << shift) - 1) as u32;
        let lows: Vec<u8> = keys.iter().flat_map(|&k| ((k & mask) as u16).to_le_bytes()).collect();
        // Levels: a part's children's parts are on lower levels.
        let mut by_level: Vec<Vec<u32>> = Vec::new();
        for (i, &k) in keys.iter().enumerate() {
            let l = parts.level(u64::from(k)) as usize;
            if by_level.len() <= l {
                by_level.resize_with(l + 1, Vec::new);
            }
            by_level[l].push(i as u32);
        }
        const UNKNOWN: u8 = u8::MAX;
        let mut values = vec![UNKNOWN; keys.len()];
        let mut done = 0u64;
        for level in &by_level {
            for slice in level.chunks(1 << 20) {
                let got: Result<Vec<u8>, String> = slice
                    .par_iter()
                    .map_init(
                        || (Vec::new(), Vec::new()),
                        |(kids, ps), &i| {
                            let key = u64::from(keys[i as usize]);
                            kids.clear();
                            parts.children(key, kids);
                            let mut seen = [0u64; 4];
                            for &kid in kids.iter() {
                                ps.clear();
                                parts.parts(kid, ps);
                                let mut x = 0u8;
                                for &p in ps.iter() {
                                    let v = find(&offsets, &lows, shift, bits, p)
                                        .map(|j| values[j])
                                        .filter(|&v| v != UNKNOWN)
                                        .ok_or_else(|| {
                                            format!(
                                                "the part {p:#x} of a child of the part {key:#x} is not among the parts \
                                                 already known below it (the game's parts within {} break their \
                                                 contract)",
                                                parts.name()
                                            )
                                        })?;
                                    x ^= v;
                                }
                                seen[usize::from(x >> 6)] |= 1 << (x & 63);
                            }
                            let mex = (0..256).find(|&v| seen[v >> 6] >> (v & 63) & 1 == 0).unwrap_or(256);
                            if mex >= usize::from(UNKNOWN) {
                                return Err(format!("the part {key:#x} has a nimber of {mex}: too large for the table"));
                            }
                            Ok(mex as u8)
                        },
                    )
                    .collect();
                let got = got.map_err(GameError::Definition)?;
                for (&i, v) in slice.iter().zip(got) {
                    values[i as usize] = v;
                }
                done += slice.len() as u64;
                if progress.expired() {
                    return Err(stopped(&format!("{done} of {} nimbers found", keys.len())));
                }
                progress.tick(total + done, keys.len() * 11)?;
            }
        }
        drop(by_level);
        drop(keys);
        Self::decode(encode(bits, shift, &offsets, &lows, &values, identity), identity)
            .map_err(|e| GameError::Definition(format!("the endgame database just built does not read back: {e}")))
    }

    /// Read a table from `bytes`, refusing (with the reason) one that is short, damaged, of
    /// another format version, or whose identity is not `identity`.
    fn decode(bytes: Vec<u8>, identity: &str) -> Result<PartDb, String> {
        if bytes.len() < 36 || &bytes[..8] != MAGIC {
            return Err("not an endgame database of parts".into());
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(body) != u32::from_le_bytes(tail.try_into().expect("4 bytes")) {
            return Err("its checksum does not match: the file is damaged or cut short".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(format!("it is of format version {version}, and this gamesman reads version {VERSION}"));
        }
        let bits = u32_at(12);
        let shift = u32_at(16);
        let count = u64::from_le_bytes(body[20..28].try_into().expect("8 bytes"));
        let id_len = u32_at(28) as usize;
        let id_end = 32usize.checked_add(id_len).filter(|&e| e <= body.len()).ok_or("its header is cut short")?;
        if &body[32..id_end] != identity.as_bytes() {
            return Err(format!(
                "it is the table of another game, board or bound ({:?})",
                String::from_utf8_lossy(&body[32..id_end]).replace('\0', " ")
            ));
        }
        if bits > 32 || shift > bits.min(16) || count > 1 << bits {
            return Err("its header is not valid".into());
        }
        let buckets = 1usize << (bits - shift);
        let count = count as usize;
        if body.len() != id_end + (buckets + 1) * 4 + count * 3 {
            return Err("its length does not match its header".into());
        }
        let offsets_at = id_end;
        let lows_at = offsets_at + (buckets + 1) * 4;
        let values_at = lows_at + count * 2;
        let offsets = &body[offsets_at..lows_at];
        let at = |i: usize| u32::from_le_bytes(offsets[4 * i..4 * i + 4].try_into().expect("4 bytes")) as usize;
        if at(0) != 0 || at(buckets) != count || (0..buckets).any(|b| at(b) > at(b + 1)) {
            return Err("its buckets are not valid".into());
        }
        Ok(PartDb { bytes, bits, shift, count, offsets_at, lows_at, values_at })
    }

    /// Save to `path` (a temporary file renamed into place).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, &self.bytes[..]).and_then(|()| std::fs::rename(&tmp, path)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Load from `path` (read whole: its checksum covers every byte); `Err` with the reason
    /// for a file that cannot be read or is refused (not a regular file, larger than a table
    /// of `bits`-bit keys can be or than `budget` bytes, short, damaged, of another format
    /// version or of another game, board or bound).
    pub fn load(path: &Path, identity: &str, bits: u32, budget: usize) -> Result<PartDb, String> {
        let max = max_file_bytes(bits, identity).min(budget as u64);
        Self::decode(crate::db::read_saved_or(path, max)?, identity)
    }
}

/// The largest file a table of `bits`-bit keys can be: its header, the buckets' offsets and
/// every key a part (3 bytes each), and the checksum.
fn max_file_bytes(bits: u32, identity: &str) -> u64 {
    let shift = bits.min(16);
    let buckets = 1u64 << (bits.min(63) - shift);
    32 + identity.len() as u64 + (buckets + 1) * 4 + (1u64 << bits.min(62)) * 3 + 4
}

/// The file's bytes (see the module's documentation).
fn encode(bits: u32, shift: u32, offsets: &[u8], lows: &[u8], values: &[u8], identity: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(offsets.len() + lows.len() + values.len() + 64 + identity.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&bits.to_le_bytes());
    out.extend_from_slice(&shift.to_le_bytes());
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    out.extend_from_slice(&(identity.len() as u32).to_le_bytes());
    out.extend_from_slice(identity.as_bytes());
    out.extend_from_slice(offsets);
    out.extend_from_slice(lows);
    out.extend_from_slice(values);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The file of the table of `parts` for the game `game` (a database name without extension).
fn file_name(game: &str, parts: &dyn PartBox) -> String {
    let clean =
        |s: String| s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect::<String>();
    format!("{game}.{}.{}.parts", clean(parts.space()), clean(parts.name()))
}

/// What the header names: the game, its key space and the bound.
fn identity(game: &str, parts: &dyn PartBox) -> String {
    format!("{game}\0{}\0{}", parts.space(), parts.name())
}

/// `--endgame`'s refusal for a game with no parts within bounds.
pub fn no_parts() -> GameError {
    GameError::Unsupported(
        "--endgame: this game has no endgame database of parts (only impartial domino boards under normal play, \
         Cram, offer one)"
            .into(),
    )
}

/// The parts within `bound` of the key space `space` (`None`: the game has none), or
/// `--endgame`'s refusal: a game without them, or a bound it cannot hold.
pub fn parts_within<P>(space: Option<&dyn PackedSum<P>>, bound: &str) -> GameResult<Box<dyn PartBox>> {
    match space.and_then(|s| s.parts_within(bound)) {
        None => Err(no_parts()),
        Some(Err(e)) => Err(GameError::Unsupported(format!("--endgame: {e}"))),
        Some(Ok(p)) => Ok(p),
    }
}

/// The endgame database `req` asks for in the key space `space`: with a bound, loaded from
/// the cache or built (saying so on stderr, with the time it took) and saved; without one, the
/// largest saved for this game and board, if any. `Ok(None)`: none (the search as without).
/// A bound the game cannot use, or a game with no parts within bounds, is a clear error.
pub fn open<P>(
    space: &dyn PackedSum<P>,
    req: &Endgame,
    budget: usize,
    progress: &Progress,
) -> GameResult<Option<PartDb>> {
    let Some(dir) = &req.dir else {
        return match &req.bound {
            Some(_) => Err(GameError::Database(
                "--endgame needs the cache directory ($XDG_CACHE_HOME or $HOME) to keep its database in".into(),
            )),
            None => Ok(None),
        };
    };
    let Some(text) = &req.bound else { return Ok(saved(space, dir, &req.game, budget, progress)) };
    let parts = parts_within(Some(space), text)?;
    let path = dir.join(file_name(&req.game, &*parts));
    let id = identity(&req.game, &*parts);
    if path.exists() {
        match PartDb::load(&path, &id, parts.bits(), budget) {
            Ok(db) => return Ok(Some(used(db, &path, progress))),
            Err(e) => progress.suspend(|| eprintln!("gamesman: note: {}: {e}; building it anew", path.display())),
        }
    }
    progress.suspend(|| {
        eprintln!(
            "gamesman: building the endgame database of the parts within {} ({}-bit keys)…",
            parts.name(),
            parts.bits()
        )
    });
    let started = Instant::now();
    let db = PartDb::build(&*parts, &id, budget, progress)?;
    let took = started.elapsed();
    let saved = db.save(&path);
    progress.suspend(|| match saved {
        Ok(()) => eprintln!(
            "gamesman: built {} parts in {:.1} s; saved {} ({:.1} MB)",
            db.len(),
            took.as_secs_f64(),
            path.display(),
            db.bytes() as f64 / 1e6
        ),
        Err(e) => eprintln!(
            "gamesman: built {} parts in {:.1} s; not saved ({}: {e})",
            db.len(),
            took.as_secs_f64(),
            path.display()
        ),
    });
    Ok(Some(db))
}

/// `db`, loaded from `path`, said on stderr (it changes the positions a search visits and
/// its time, so a run with it is never mistaken for one without).
fn used(db: PartDb, path: &Path, progress: &Progress) -> PartDb {
    progress.suspend(|| {
        eprintln!("gamesman: note: the endgame database of {} parts, {}, is used", db.len(), path.display())
    });
    db
}

/// The largest table saved for this game and key space, if any loads (one that does not is
/// noted and skipped).
fn saved<P>(space: &dyn PackedSum<P>, dir: &Path, game: &str, budget: usize, progress: &Progress) -> Option<PartDb> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut found: Vec<(u32, PathBuf, String)> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(game).and_then(|r| r.strip_prefix('.')) else { continue };
        let Some(rest) = rest.strip_suffix(".parts") else { continue };
        let Some((_, bound)) = rest.rsplit_once('.') else { continue };
        let Some(Ok(parts)) = space.parts_within(bound) else { continue };
        if e.path().file_name().map(|n| n.to_string_lossy().into_owned()) == Some(file_name(game, &*parts)) {
            found.push((parts.bits(), e.path(), identity(game, &*parts)));
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (bits, path, id) in found {
        match PartDb::load(&path, &id, bits, budget) {
            Ok(db) => return Some(used(db, &path, progress)),
            Err(e) => progress.suspend(|| eprintln!("gamesman: note: {}: {e}; not used", path.display())),
        }
    }
    None
}
