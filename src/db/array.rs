//! The array database: a game with tiers saved as one flat array of records a tier.
//!
//! A save is a directory (`quixo-<hash>.tiers/`) holding an `identity` file (the hash of
//! the definition it was solved for, as [`super::Identity`]) and one file a solved tier,
//! `<tier in hex>.tier`. A tier's file holds one 2-byte record ([`Rec`]) for each index of
//! the tier, in blocks of [`BLOCK_RECORDS`] records, each compressed on its own with zstd
//! so that one lookup decompresses one block:
//!
//! ```text
//! "GMTIER01"            8 bytes, the format
//! tier                  u64 little-endian
//! records               u64: the tier's size
//! block_records         u32
//! blocks                u32
//! per block:            offset u64 (from the start of the file), length u32, CRC-32 u32
//!                       (of the compressed bytes)
//! header CRC-32         u32, of everything above
//! the blocks, one after another
//! ```
//!
//! A tier's file is written under a temporary name and renamed once complete, so a tier
//! whose file exists was solved whole: a killed solve resumes at the first tier without
//! one. A block whose checksum fails is refused with one line naming the file and block.

use super::{DbResult, damaged, io};
use crate::game::Value;
use crate::game::tier::Tier;
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const MAGIC: &[u8; 8] = b"GMTIER01";

/// Records a block: 256 Ki records, 512 KiB before compression.
pub const BLOCK_RECORDS: u32 = 1 << 18;

/// The zstd level the blocks are written with.
pub const ZSTD_LEVEL: i32 = 9;

/// The largest remoteness a record holds (12 bits).
pub const MAX_REMOTENESS: u32 = 4095;

/// One position's record: the value in the top 4 bits (0: none, 1 win, 2 lose, 3 tie,
/// 4 draw) and the remoteness in the low 12 bits.
pub type Rec = u16;

/// A record of `value` at `remoteness` (`None`: a draw's).
pub fn rec(value: Value, remoteness: u32) -> Rec {
    let code = match value {
        Value::Win => 1,
        Value::Lose => 2,
        Value::Tie => 3,
        Value::Draw => 4,
    };
    (code << 12) | (remoteness.min(MAX_REMOTENESS) as u16)
}

/// The value and remoteness in a record (`None` for an empty record).
pub fn unrec(r: Rec) -> Option<(Value, Option<u32>)> {
    let rem = (r & 0xfff) as u32;
    match r >> 12 {
        1 => Some((Value::Win, Some(rem))),
        2 => Some((Value::Lose, Some(rem))),
        3 => Some((Value::Tie, Some(rem))),
        4 => Some((Value::Draw, None)),
        _ => None,
    }
}

/// The file name of a tier's array.
pub fn tier_file(tier: Tier) -> String {
    format!("{tier:016x}.tier")
}

/// A tier's file, whole, in memory: the header and the compressed blocks of `records`
/// (compressed on every core). What [`write_tier`] writes, and what the MPI solver sends.
pub fn encode_tier(tier: Tier, records: &[Rec]) -> Result<Vec<u8>, String> {
    let nblocks = records.len().div_ceil(BLOCK_RECORDS as usize);
    use rayon::prelude::*;
    let blocks: Vec<Vec<u8>> = records
        .par_chunks(BLOCK_RECORDS as usize)
        .map(|chunk| {
            let raw: Vec<u8> = chunk.iter().flat_map(|r| r.to_le_bytes()).collect();
            zstd::bulk::compress(&raw, ZSTD_LEVEL).map_err(|e| format!("compressing a block: {e}"))
        })
        .collect::<Result<_, String>>()?;
    let head_len = 8 + 8 + 8 + 4 + 4 + nblocks * 16 + 4;
    let mut out = Vec::with_capacity(head_len + blocks.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&tier.to_le_bytes());
    out.extend_from_slice(&(records.len() as u64).to_le_bytes());
    out.extend_from_slice(&BLOCK_RECORDS.to_le_bytes());
    out.extend_from_slice(&(nblocks as u32).to_le_bytes());
    let mut offset = head_len as u64;
    for b in &blocks {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(b).to_le_bytes());
        offset += b.len() as u64;
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    for b in &blocks {
        out.extend_from_slice(b);
    }
    Ok(out)
}

/// Every record of a tier's file held in memory (as [`encode_tier`] makes it), each checksum
/// checked and each block decompressed to its size; the error says what is wrong.
pub fn decode_tier(bytes: &[u8], tier: Tier) -> Result<Vec<Rec>, String> {
    let fixed: &[u8; 32] = bytes.get(..32).and_then(|b| b.try_into().ok()).ok_or("too short for a tier's header")?;
    let head_len = check_fixed(fixed, tier)?;
    let head = usize::try_from(head_len).ok().and_then(|n| bytes.get(..n)).ok_or("shorter than its block table")?;
    let (records, table) = check_head(head, bytes.len() as u64)?;
    let mut out = Vec::with_capacity(records as usize);
    for (b, &(off, n, crc)) in table.iter().enumerate() {
        let block = &bytes[off as usize..off as usize + n as usize];
        let want = (records - b as u64 * BLOCK_RECORDS as u64).min(BLOCK_RECORDS as u64) as usize;
        out.extend_from_slice(&decode_block(block, crc, want, b as u32)?);
    }
    Ok(out)
}

/// The first 32 bytes of a tier's file checked: the length of its whole header.
fn check_fixed(fixed: &[u8; 32], tier: Tier) -> Result<u64, String> {
    if &fixed[..8] != MAGIC {
        return Err("no tier array mark".into());
    }
    let (t, records, block_records, nblocks) =
        (u64_at(fixed, 8), u64_at(fixed, 16), u32_at(fixed, 24), u32_at(fixed, 28));
    if t != tier {
        return Err(format!("it holds tier {t:x}, not {tier:x}"));
    }
    // What this build writes: blocks of BLOCK_RECORDS, tiers indexed by u32.
    if block_records != BLOCK_RECORDS || records > u64::from(u32::MAX) + 1 {
        return Err("its block size or record count is not one this version writes".into());
    }
    if records.div_ceil(block_records as u64) != nblocks as u64 {
        return Err("its block count does not match its size".into());
    }
    Ok(32 + nblocks as u64 * 16 + 4)
}

/// A whole header (as [`check_fixed`] sized it) checked against its checksum and a file of
/// `len` bytes: the record count and the block table.
#[allow(clippy::type_complexity)]
fn check_head(head: &[u8], len: u64) -> Result<(u64, Vec<(u64, u32, u32)>), String> {
    let body = head.len() - 4;
    if crc32fast::hash(&head[..body]) != u32_at(head, body) {
        return Err("its header fails its checksum".into());
    }
    let table: Vec<(u64, u32, u32)> = (0..u32_at(head, 28) as usize)
        .map(|b| (u64_at(head, 32 + b * 16), u32_at(head, 40 + b * 16), u32_at(head, 44 + b * 16)))
        .collect();
    if table.iter().any(|&(off, n, _)| off.checked_add(n as u64).is_none_or(|end| end > len)) {
        return Err("a block lies past the end of the file".into());
    }
    Ok((u64_at(head, 16), table))
}

/// Block `b` (compressed `bytes` with checksum `crc`, `want` records) checked and decompressed.
fn decode_block(bytes: &[u8], crc: u32, want: usize, b: u32) -> Result<Vec<Rec>, String> {
    if crc32fast::hash(bytes) != crc {
        return Err(format!("block {b} fails its checksum"));
    }
    let raw = zstd::bulk::decompress(bytes, want * 2).map_err(|e| format!("block {b} does not decompress: {e}"))?;
    if raw.len() != want * 2 {
        return Err(format!("block {b} holds {} bytes, not {}", raw.len(), want * 2));
    }
    Ok(raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"))
}

/// Write `records` as the array of `tier` in `dir` (under a temporary name, then renamed).
pub fn write_tier(dir: &Path, tier: Tier, records: &[Rec]) -> DbResult<u64> {
    let path = dir.join(tier_file(tier));
    let bytes = encode_tier(tier, records).map_err(|e| io(&path, e))?;
    write_tier_bytes(dir, tier, &bytes)
}

/// Write a tier's file made by [`encode_tier`] (under a temporary name, then renamed).
pub fn write_tier_bytes(dir: &Path, tier: Tier, bytes: &[u8]) -> DbResult<u64> {
    let path = dir.join(tier_file(tier));
    // The process id in the name: two saves at once never write the same temporary file.
    let tmp = dir.join(format!("{}.{}.tmp", tier_file(tier), std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|e| io(&path, format!("cannot write: {e}")))?;
    Ok(bytes.len() as u64)
}

/// One tier's file, open for lookups.
struct TierFile {
    file: File,
    path: PathBuf,
    records: u64,
    block_records: u32,
    /// (offset, length, CRC-32) a block.
    table: Vec<(u64, u32, u32)>,
    /// The last block read.
    cached: Mutex<Option<(u32, Arc<Vec<Rec>>)>>,
}

impl TierFile {
    fn open(path: &Path, tier: Tier) -> DbResult<TierFile> {
        let file = File::open(path).map_err(|e| io(path, e))?;
        let len = file.metadata().map_err(|e| io(path, e))?.len();
        let mut fixed = [0u8; 32];
        file.read_exact_at(&mut fixed, 0).map_err(|_| damaged(path, "too short for a tier's header"))?;
        let head_len = check_fixed(&fixed, tier).map_err(|e| damaged(path, e))?;
        if head_len > len {
            return Err(damaged(path, "shorter than its block table"));
        }
        let mut head = vec![0u8; head_len as usize];
        file.read_exact_at(&mut head, 0).map_err(|e| io(path, e))?;
        let (records, table) = check_head(&head, len).map_err(|e| damaged(path, e))?;
        Ok(TierFile {
            file,
            path: path.to_path_buf(),
            records,
            block_records: BLOCK_RECORDS,
            table,
            cached: Mutex::new(None),
        })
    }

    /// Block `b`, decompressed and checked.
    fn block(&self, b: u32) -> DbResult<Arc<Vec<Rec>>> {
        if let Some((cb, recs)) = self.cached.lock().expect("cache").as_ref()
            && *cb == b
        {
            return Ok(recs.clone());
        }
        let (off, n, crc) = self.table[b as usize];
        let mut bytes = vec![0u8; n as usize];
        self.file.read_exact_at(&mut bytes, off).map_err(|e| io(&self.path, e))?;
        let want = ((self.records - b as u64 * self.block_records as u64).min(self.block_records as u64)) as usize;
        let recs = Arc::new(decode_block(&bytes, crc, want, b).map_err(|e| damaged(&self.path, e))?);
        *self.cached.lock().expect("cache") = Some((b, recs.clone()));
        Ok(recs)
    }

    fn get(&self, index: u64) -> DbResult<Rec> {
        if index >= self.records {
            return Err(damaged(&self.path, format!("index {index} is past its {} records", self.records)));
        }
        let b = (index / self.block_records as u64) as u32;
        Ok(self.block(b)?[(index % self.block_records as u64) as usize])
    }

    /// Every record, in index order.
    fn all(&self) -> DbResult<Vec<Rec>> {
        let mut out = Vec::with_capacity(self.records as usize);
        for b in 0..self.table.len() as u32 {
            out.extend_from_slice(&self.block(b)?);
        }
        Ok(out)
    }
}

/// A saved tier solve, open for lookups (each tier's file is opened at its first lookup).
pub struct ArrayDb {
    dir: PathBuf,
    tiers: Mutex<HashMap<Tier, Option<Arc<TierFile>>>>,
}

/// The name of the file in a save's directory that holds its identity.
const IDENTITY: &str = "identity";

impl ArrayDb {
    /// Create (or reuse, for a solve that resumes) the directory of a save for `hash`.
    pub fn create(dir: &Path, hash: &str) -> DbResult<ArrayDb> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, format!("cannot create: {e}")))?;
        let id = dir.join(IDENTITY);
        match std::fs::read_to_string(&id) {
            Ok(h) if h.trim() == hash => {}
            Ok(_) => {
                return Err(io(
                    dir,
                    "this directory holds a save for another game definition; remove it (`gamesman db rm`) first",
                ));
            }
            Err(_) => std::fs::write(&id, hash).map_err(|e| io(&id, format!("cannot write: {e}")))?,
        }
        Ok(ArrayDb { dir: dir.to_path_buf(), tiers: Mutex::new(HashMap::new()) })
    }

    /// Open a save; with `hash`, refuse one made for another definition.
    pub fn open(dir: &Path, hash: Option<&str>) -> DbResult<ArrayDb> {
        if !dir.is_dir() {
            return Err(io(dir, "no such database"));
        }
        let id = std::fs::read_to_string(dir.join(IDENTITY)).map_err(|_| damaged(dir, "no identity file"))?;
        if let Some(want) = hash
            && id.trim() != want
        {
            return Err(io(
                dir,
                "this database was saved for another game definition (the script, the engine, --misere or the gamesman \
                 version differ); save it again",
            ));
        }
        Ok(ArrayDb { dir: dir.to_path_buf(), tiers: Mutex::new(HashMap::new()) })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    fn tier(&self, tier: Tier) -> DbResult<Option<Arc<TierFile>>> {
        let mut map = self.tiers.lock().expect("tiers");
        if let Some(t) = map.get(&tier) {
            return Ok(t.clone());
        }
        let path = self.dir.join(tier_file(tier));
        let t = if path.is_file() { Some(Arc::new(TierFile::open(&path, tier)?)) } else { None };
        map.insert(tier, t.clone());
        Ok(t)
    }

    /// Whether `tier` is solved (its file is there and its header sound).
    pub fn has(&self, tier: Tier) -> DbResult<bool> {
        Ok(self.tier(tier)?.is_some())
    }

    /// The record at `index` of `tier`, `None` when the tier is not saved.
    pub fn get(&self, tier: Tier, index: u64) -> DbResult<Option<Rec>> {
        match self.tier(tier)? {
            Some(t) => Ok(Some(t.get(index)?)),
            None => Ok(None),
        }
    }

    /// Every record of `tier`, checked (the tier solver reads child tiers this way).
    pub fn load(&self, tier: Tier) -> DbResult<Vec<Rec>> {
        match self.tier(tier)? {
            Some(t) => t.all(),
            None => Err(io(&self.dir, format!("tier {tier:x} is not saved"))),
        }
    }

    /// Write a solved tier.
    pub fn write(&self, tier: Tier, records: &[Rec]) -> DbResult<u64> {
        let n = write_tier(&self.dir, tier, records)?;
        self.tiers.lock().expect("tiers").remove(&tier);
        Ok(n)
    }

    /// Write a solved tier's file made by [`encode_tier`] (the caller has checked it, e.g. by
    /// [`decode_tier`]).
    pub fn write_bytes(&self, tier: Tier, bytes: &[u8]) -> DbResult<u64> {
        let n = write_tier_bytes(&self.dir, tier, bytes)?;
        self.tiers.lock().expect("tiers").remove(&tier);
        Ok(n)
    }

    /// The file of a saved tier, whole (its header checked; [`decode_tier`] checks the rest).
    pub fn file_bytes(&self, tier: Tier) -> DbResult<Vec<u8>> {
        match self.tier(tier)? {
            Some(t) => std::fs::read(&t.path).map_err(|e| io(&t.path, e)),
            None => Err(io(&self.dir, format!("tier {tier:x} is not saved"))),
        }
    }

    /// Bytes on disk, all files together.
    pub fn bytes(&self) -> u64 {
        std::fs::read_dir(&self.dir)
            .map(|d| d.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum())
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tier's file in memory gives its records back, and a byte changed anywhere in it (the
    /// header, the block table, a block) is refused: what the MPI solver relies on for the
    /// tiers it sends.
    #[test]
    fn encoded_tiers_decode_and_damage_is_refused() {
        // Two blocks and a bit: every value, remoteness up to the largest.
        let n = BLOCK_RECORDS as usize * 2 + 7;
        let values = [Value::Win, Value::Lose, Value::Tie, Value::Draw];
        let records: Vec<Rec> = (0..n)
            .map(|i| if i % 5 == 0 { 0 } else { rec(values[i % 4], (i as u32 * 7919) % (MAX_REMOTENESS + 1)) })
            .collect();
        let file = encode_tier(42, &records).expect("encoded");
        assert_eq!(decode_tier(&file, 42).expect("decoded"), records);
        assert!(decode_tier(&file, 43).unwrap_err().contains("not 2b"));
        let head_len = 32 + 3 * 16 + 4;
        for at in [3, 20, 40, head_len - 1, head_len + 10, file.len() - 1] {
            let mut bad = file.clone();
            bad[at] ^= 0x10;
            assert!(decode_tier(&bad, 42).is_err(), "a byte changed at {at} was not noticed");
        }
        assert!(decode_tier(&file[..file.len() - 1], 42).is_err());
    }
}
