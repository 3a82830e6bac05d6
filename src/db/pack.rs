//! A tier save's small tiers in one file (`tiers.pack`), made by `gamesman db pack`: the
//! files of the small tiers, whole and unchanged, one after another and compressed together
//! with zstd. Each tier's file is mostly its header and its own zstd frame; compressed
//! together, the headers (one game, one layout) cost little, so a save of many small tiers
//! takes about half the bytes it took as files. Below the array database (`array.rs`),
//! which reads a tier from the pack when it has no file of its own.
//!
//! ```text
//! "GMPACK01"            8 bytes, the format
//! identity              32 bytes: the SHA-256 the save's tier files carry
//! tiers                 u32 little-endian: how many
//! raw                   u64: the bytes decompressed
//! CRC-32                u32, of the compressed bytes
//! the compressed bytes: per tier, its tier (u64), its file's length (u32), its file
//! ```

use super::file::{DbResult, damaged, io, open_saved, read_saved};
use std::path::Path;

/// The pack's name in a save's directory.
pub const PACK: &str = "tiers.pack";

const MAGIC: &[u8; 8] = b"GMPACK01";

/// The header before the compressed bytes.
const HEAD: usize = 8 + 32 + 4 + 8 + 4;

/// A tier and its file's bytes, as a pack holds them.
pub type Entry = (u64, Vec<u8>);

/// The largest tier file a pack takes (bytes): a pack is read whole at its first lookup.
pub const MAX_PACKED_FILE: u64 = 64 << 10;

/// The most bytes a pack holds, decompressed.
pub const MAX_PACK_RAW: u64 = 16 << 20;

/// The bytes a pack may hold decompressed under a memory budget of `memory` bytes: a third
/// of what is left past 128 MiB (zstd's tables at its slowest level), at most
/// 16 MiB (what a pack holds); `None` where that is under a MiB.
pub fn pack_budget(memory: u64) -> Option<u64> {
    let raw = (memory.saturating_sub(128 << 20) / 3).min(MAX_PACK_RAW);
    (raw >= 1 << 20).then_some(raw)
}

/// The most bytes a pack's file can be: its header and zstd's bound on the raw bytes.
const MAX_PACK_BYTES: u64 = HEAD as u64 + MAX_PACK_RAW + MAX_PACK_RAW / 128 + 1024;

/// The zstd level a pack is written with (small data: the slowest level costs little).
const LEVEL: i32 = 19;

/// A pack of `files` (each a tier and its file's bytes), for a save whose files carry `digest`.
pub fn encode(digest: &[u8; 32], files: &[Entry]) -> Result<Vec<u8>, String> {
    let mut raw = Vec::new();
    for (tier, bytes) in files {
        raw.extend_from_slice(&tier.to_le_bytes());
        raw.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        raw.extend_from_slice(bytes);
    }
    if raw.len() as u64 > MAX_PACK_RAW {
        return Err(format!("{} bytes of tiers, more than a pack holds ({MAX_PACK_RAW})", raw.len()));
    }
    let packed = zstd::bulk::compress(&raw, LEVEL).map_err(|e| format!("compressing the pack: {e}"))?;
    let mut out = Vec::with_capacity(HEAD + packed.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(digest);
    out.extend_from_slice(&(files.len() as u32).to_le_bytes());
    out.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&packed).to_le_bytes());
    out.extend_from_slice(&packed);
    Ok(out)
}

/// The header's fields: the identity, the tiers, the raw bytes; the error says what is wrong.
fn head(bytes: &[u8], digest: &[u8; 32]) -> Result<(u32, u64), String> {
    if bytes.len() < HEAD || &bytes[..8] != MAGIC {
        return Err("no pack mark of a format this version reads (GMPACK01)".into());
    }
    if &bytes[8..40] != digest {
        return Err("it is the pack of another game or variant (its identity is not this save's)".into());
    }
    let count = u32::from_le_bytes(bytes[40..44].try_into().expect("4 bytes"));
    let raw = u64::from_le_bytes(bytes[44..52].try_into().expect("8 bytes"));
    if raw > MAX_PACK_RAW {
        return Err(format!("it says {raw} bytes, more than a pack holds"));
    }
    Ok((count, raw))
}

/// The tier files a pack holds, each checked only as the pack is (the caller checks each
/// file as it checks a tier's file); the error says what is wrong.
pub fn decode(bytes: &[u8], digest: &[u8; 32]) -> Result<Vec<Entry>, String> {
    let (count, raw_len) = head(bytes, digest)?;
    let packed = &bytes[HEAD..];
    let crc = u32::from_le_bytes(bytes[52..56].try_into().expect("4 bytes"));
    if crc32fast::hash(packed) != crc {
        return Err("it fails its checksum".into());
    }
    let raw = zstd::bulk::decompress(packed, raw_len as usize).map_err(|e| format!("it does not decompress: {e}"))?;
    if raw.len() as u64 != raw_len {
        return Err(format!("it holds {} bytes, not {raw_len}", raw.len()));
    }
    let mut out = Vec::new();
    let mut rest = &raw[..];
    while !rest.is_empty() {
        if rest.len() < 12 {
            return Err("it ends inside a tier's entry".into());
        }
        let tier = u64::from_le_bytes(rest[..8].try_into().expect("8 bytes"));
        let len = u32::from_le_bytes(rest[8..12].try_into().expect("4 bytes")) as usize;
        let file = rest.get(12..12 + len).ok_or("it ends inside a tier's file")?;
        out.push((tier, file.to_vec()));
        rest = &rest[12 + len..];
    }
    if out.len() != count as usize {
        return Err(format!("it holds {} tiers, its header says {count}", out.len()));
    }
    Ok(out)
}

/// The pack in `dir` read and decoded (`None`: there is none); the error names the file.
pub fn read(dir: &Path, digest: &[u8; 32]) -> DbResult<Option<Vec<Entry>>> {
    let path = dir.join(PACK);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let bytes = read_saved(&path, MAX_PACK_BYTES)?;
    decode(&bytes, digest).map(Some).map_err(|e| damaged(&path, e))
}

/// The pack in `dir`'s tier count and bytes decompressed, from its header alone (`None`: no
/// pack, or none that can be read).
fn counts(dir: &Path) -> Option<(u32, u64)> {
    use std::os::unix::fs::FileExt;
    let (file, _) = open_saved(&dir.join(PACK), MAX_PACK_BYTES).ok()?;
    let mut b = [0u8; 12];
    file.read_exact_at(&mut b, 40).ok()?;
    Some((u32::from_le_bytes(b[..4].try_into().ok()?), u64::from_le_bytes(b[4..].try_into().ok()?)))
}

/// How many tiers the pack in `dir` holds (0 when there is none or it cannot be read).
pub fn count(dir: &Path) -> usize {
    counts(dir).map_or(0, |(n, _)| n as usize)
}

/// The bytes the pack in `dir` holds decompressed (`None`: no pack, or none that can be read).
pub fn raw_len(dir: &Path) -> Option<u64> {
    counts(dir).map(|(_, raw)| raw)
}

/// Write `bytes` as the pack of `dir`, under a temporary name renamed once whole.
pub fn write(dir: &Path, bytes: &[u8]) -> DbResult<()> {
    let path = dir.join(PACK);
    let tmp = dir.join(format!("{PACK}.{}.tmp", std::process::id()));
    let done = std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::File::open(&tmp)?.sync_all())
        .and_then(|()| std::fs::rename(&tmp, &path));
    done.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(&path, format!("cannot write: {e}"))
    })
}
