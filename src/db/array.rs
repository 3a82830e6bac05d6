//! The array database: a game with tiers saved as one flat array of records a tier.
//!
//! A save is a directory (`quixo-<hash>.tiers/`) holding an `identity` file (the hash of
//! the definition it was solved for, as [`super::Identity`]) and one file a solved tier,
//! `<tier in hex>.tier`. A tier's file holds one record ([`Rec`], 2 bytes) for each index of
//! the tier, in blocks of [`BLOCK_RECORDS`] records, each compressed on its own with zstd
//! so that one lookup decompresses one block:
//!
//! ```text
//! "GMTIER04"            8 bytes, the format
//! tier                  u64 little-endian
//! records               u64: the tier's size
//! block_records         u32
//! blocks                u32
//! flags                 u32: 1 when the blocks hold Grundy values
//! identity              32 bytes: SHA-256 of the save's identity (the game's definition hash)
//! per block:            offset u64 (from the start of the file), length u32 (top bit:
//!                       the block holds 2-byte records, else 1-byte symbols), CRC-32 u32
//!                       (of the compressed bytes)
//! header CRC-32         u32, of everything above
//! the blocks, one after another
//! ```
//!
//! A block whose every record has a **symbol** is written one byte a record before it is
//! compressed: 0 no record, 1 a draw, `2 + 3r + k` a win (k = 0), loss (1) or tie (2) at
//! remoteness r ≤ 83. Otherwise (a longer remoteness) the block holds the records
//! themselves, 2 bytes each, little-endian. The byte stream compresses to about 70% of
//! the 2-byte one.
//!
//! **Grundy values** (flag 1): a tier of an impartial game solved with Grundy values
//! ([`TierArray::grundy`]) has each block hold the record stream followed by a Grundy stream
//! (one a record): one byte a value below 255 (255: none), or, when the length's bit 30 is
//! set, 2 bytes little-endian (65535: none).
//!
//! **Whose file**: the header names the game (its identity) and the tier, and both are checked
//! on read, as is its record count against the game's own size of the tier before anything
//! is allocated for it: a tier file of another game, variant or tier is refused. The older
//! formats (`GMTIER01` to `GMTIER03`) named no game and are refused (save again).
//!
//! **The pack**: `gamesman db pack` puts the small tiers' files, unchanged, into one file
//! compressed together ([`ArrayDb::pack`], `pack.rs`); a tier with no file of its own is
//! read from there, checked as a file is.
//!
//! Every file is opened with [`super::open_saved`]: a FIFO, a device or a file larger than a
//! tier can be is refused before it is read.
//!
//! A tier's file is written under a temporary name and renamed once complete, so a tier
//! whose file exists was solved whole: a killed solve resumes at the first tier without
//! one. A block whose checksum fails is refused with one line naming the file and block.
//! A write that fails (a full disk, a file size limit) removes its temporary file, and a
//! save sweeps those left by a process that no longer runs.

use super::file::{DbError, DbResult, alive, damaged, io, open_saved, read_saved};
use super::pack;
use crate::game::Value;
use crate::game::tier::Tier;
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const MAGIC: &[u8; 8] = b"GMTIER04";

/// The header's flag: the blocks hold Grundy values after their records.
const FLAG_GRUNDY: u32 = 1;

/// The header before the block table: mark, tier, records, block size, blocks, flags, identity.
const FIXED: usize = 8 + 8 + 8 + 4 + 4 + 4 + 32;

/// The identity a tier file carries: SHA-256 of the save's identity text.
fn digest(identity: &str) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(identity.as_bytes()).into()
}

/// The bit of a block's length (format 3) saying its Grundy values are 2 bytes each.
const GWIDE: u32 = 1 << 30;

/// No Grundy value (undefined there, or no record): the largest `u16`.
pub const NO_GRUNDY: u16 = u16::MAX;

/// The largest Grundy value a tier array holds.
pub const MAX_GRUNDY: u64 = NO_GRUNDY as u64 - 1;

/// A tier's records and, for an impartial game where they are defined, its Grundy values
/// (one a record, [`NO_GRUNDY`] where there is none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TierArray {
    pub records: Vec<Rec>,
    pub grundy: Option<Vec<u16>>,
}

impl TierArray {
    /// The Grundy value at `index`, if the tier has one there.
    pub fn grundy_at(&self, index: usize) -> Option<u64> {
        self.grundy.as_ref().and_then(|g| g.get(index)).filter(|&&g| g != NO_GRUNDY).map(|&g| g as u64)
    }
}

/// Records a block: 128 Ki records, 128 KiB before compression as symbols.
pub const BLOCK_RECORDS: u32 = 1 << 17;

/// The zstd level the blocks are written with.
pub const ZSTD_LEVEL: i32 = 15;

/// The top bit of a block's length: the block holds 2-byte records.
const WIDE: u32 = 1 << 31;

/// Decompressed blocks kept for lookups, all tiers together (bytes of records).
pub const CACHE_BYTES: usize = 32 << 20;

/// The one-byte symbol of a record, if it has one (see the module's note).
fn symbol(r: Rec) -> Option<u8> {
    if r == 0 {
        return Some(0);
    }
    let (code, rem) = (r >> 12, r & 0xfff);
    match code {
        4 if rem == 0 => Some(1),
        1..=3 if rem <= 83 => Some((2 + 3 * rem + (code - 1)) as u8),
        _ => None,
    }
}

/// The record of a symbol (`None`: no symbol is that byte).
fn unsymbol(s: u8) -> Option<Rec> {
    match s {
        0 => Some(0),
        1 => Some(4 << 12),
        2..=253 => {
            let (rem, k) = ((s - 2) as u16 / 3, (s - 2) as u16 % 3);
            Some(((k + 1) << 12) | rem)
        }
        _ => None,
    }
}

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
pub fn encode_tier(tier: Tier, identity: &str, records: &[Rec]) -> Result<Vec<u8>, String> {
    encode_tier_with(tier, identity, records, None)
}

/// [`encode_tier`] with Grundy values beside the records (format 3), where `grundy` is given
/// (one a record). `identity` is the save's (the game's definition hash).
pub fn encode_tier_with(
    tier: Tier,
    identity: &str,
    records: &[Rec],
    grundy: Option<&[u16]>,
) -> Result<Vec<u8>, String> {
    if grundy.is_some_and(|g| g.len() != records.len()) {
        return Err("the Grundy values are not one a record".into());
    }
    let nblocks = records.len().div_ceil(BLOCK_RECORDS as usize);
    use rayon::prelude::*;
    let blocks: Vec<PackedBlock> = (0..nblocks)
        .into_par_iter()
        .map(|b| {
            let range = b * BLOCK_RECORDS as usize..((b + 1) * BLOCK_RECORDS as usize).min(records.len());
            compress_block(&records[range.clone()], grundy.map(|g| &g[range]))
        })
        .collect::<Result<_, String>>()?;
    Ok(assemble(tier, identity, records.len() as u64, grundy.is_some(), &blocks))
}

/// One compressed block of a tier's file: its bytes, the flags of its length (the top bit:
/// 2-byte records; bit 30: 2-byte Grundy values), and its CRC-32.
pub struct PackedBlock {
    pub bytes: Vec<u8>,
    pub flags: u32,
    pub crc: u32,
}

/// The blocks of `records` (records alone, no Grundy values), compressed on every core, as a
/// tier's file holds them: `records` starts at a block's first record and is whole blocks,
/// but for the tier's last. What an MPI worker sends for its part of a tier.
pub fn compress_blocks(records: &[Rec]) -> Result<Vec<PackedBlock>, String> {
    use rayon::prelude::*;
    records.par_chunks(BLOCK_RECORDS as usize).map(|c| compress_block(c, None)).collect()
}

/// Check a block of records alone that came from elsewhere: its checksum, and that it
/// decompresses to `records` records.
pub fn check_block(b: &PackedBlock, records: usize) -> Result<(), String> {
    if crc32fast::hash(&b.bytes) != b.crc {
        return Err("fails its checksum".into());
    }
    if b.flags & !WIDE != 0 {
        return Err(format!("has the flags {:x}, not those of records alone", b.flags));
    }
    unpack(&b.bytes, records, b.flags & WIDE != 0, 0).map(|_| ())
}

/// A tier's file of `records` records (records alone) from its blocks, in order, each as
/// [`compress_blocks`] makes it: the same bytes as [`encode_tier`] makes of the records.
pub fn assemble_tier(tier: Tier, identity: &str, records: u64, blocks: &[PackedBlock]) -> Result<Vec<u8>, String> {
    let want = records.div_ceil(BLOCK_RECORDS as u64);
    if blocks.len() as u64 != want {
        return Err(format!("{} blocks for a tier of {records} records, which has {want}", blocks.len()));
    }
    Ok(assemble(tier, identity, records, false, blocks))
}

/// The header, then the blocks.
fn assemble(tier: Tier, identity: &str, records: u64, grundy: bool, blocks: &[PackedBlock]) -> Vec<u8> {
    let mut table = Vec::with_capacity(blocks.len());
    let mut offset = (FIXED + blocks.len() * 16 + 4) as u64;
    for b in blocks {
        table.push((offset, b.bytes.len() as u32 | b.flags, b.crc));
        offset += b.bytes.len() as u64;
    }
    let mut out = header(tier, identity, records, grundy, &table);
    out.reserve(blocks.iter().map(|b| b.bytes.len()).sum::<usize>());
    for b in blocks {
        out.extend_from_slice(&b.bytes);
    }
    out
}

/// One block's records (and Grundy values), as a block of a tier's file holds them.
fn compress_block(chunk: &[Rec], grundy: Option<&[u16]>) -> Result<PackedBlock, String> {
    let bytes: Option<Vec<u8>> = chunk.iter().map(|&r| symbol(r)).collect();
    let (mut raw, mut flags) = match bytes {
        Some(b) => (b, 0),
        None => (chunk.iter().flat_map(|r| r.to_le_bytes()).collect(), WIDE),
    };
    if let Some(g) = grundy {
        if g.iter().all(|&x| x < 255 || x == NO_GRUNDY) {
            raw.extend(g.iter().map(|&x| x.min(255) as u8));
        } else {
            raw.extend(g.iter().flat_map(|x| x.to_le_bytes()));
            flags |= GWIDE;
        }
    }
    let bytes = zstd::bulk::compress(&raw, ZSTD_LEVEL).map_err(|e| format!("compressing a block: {e}"))?;
    if bytes.len() as u64 >= GWIDE as u64 {
        return Err("a compressed block of 1 GiB or more".into());
    }
    Ok(PackedBlock { crc: crc32fast::hash(&bytes), bytes, flags })
}

/// A block's bytes decompressed: `want` records, 1 byte each (a symbol) or 2 (`wide`), and
/// `gwidth` bytes of Grundy value each (0: none); the error says what is wrong.
fn unpack(bytes: &[u8], want: usize, wide: bool, gwidth: usize) -> Result<Block, String> {
    let width = if wide { 2 } else { 1 };
    let size = want * (width + gwidth);
    let raw = zstd::bulk::decompress(bytes, size).map_err(|e| format!("does not decompress: {e}"))?;
    if raw.len() != size {
        return Err(format!("holds {} bytes, not {size}", raw.len()));
    }
    let (raw, graw) = raw.split_at(want * width);
    let grundy = match gwidth {
        0 => None,
        1 => Some(graw.iter().map(|&g| if g == 255 { NO_GRUNDY } else { g as u16 }).collect()),
        _ => Some(graw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()),
    };
    if wide {
        let records = raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        return Ok(Block { records, grundy });
    }
    if let Some(&s) = raw.iter().find(|&&s| s > 253) {
        return Err(format!("holds the byte {s}, no record's"));
    }
    let table: [Rec; 256] = std::array::from_fn(|s| unsymbol(s as u8).unwrap_or(0));
    Ok(Block { records: raw.iter().map(|&s| table[s as usize]).collect(), grundy })
}

/// The header of a tier's file of `records` records whose blocks are `table`.
fn header(tier: Tier, identity: &str, records: u64, grundy: bool, table: &[(u64, u32, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(FIXED + table.len() * 16 + 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&tier.to_le_bytes());
    out.extend_from_slice(&records.to_le_bytes());
    out.extend_from_slice(&BLOCK_RECORDS.to_le_bytes());
    out.extend_from_slice(&(table.len() as u32).to_le_bytes());
    out.extend_from_slice(&(if grundy { FLAG_GRUNDY } else { 0 }).to_le_bytes());
    out.extend_from_slice(&digest(identity));
    for &(offset, len, crc) in table {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// A tier's file written a slice of records at a time (records alone, no Grundy values):
/// full blocks are compressed (on every core) and written as they come, the header last,
/// under a temporary name renamed once [`TierWriter::finish`] has written it all. The file
/// is the same, byte for byte, as [`write_tier`] writes for the same records. Dropped
/// unfinished, it removes its temporary file.
pub struct TierWriter {
    tier: Tier,
    identity: String,
    records: u64,
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    table: Vec<(u64, u32, u32)>,
    /// Records given and not yet in a written block (fewer than a block, after each push).
    pending: Vec<Rec>,
    /// Records given so far, and where the next block goes.
    given: u64,
    offset: u64,
}

impl TierWriter {
    /// Start the file of `tier`, of `records` records, in `dir`.
    pub fn create(dir: &Path, tier: Tier, identity: &str, records: u64) -> DbResult<TierWriter> {
        let path = dir.join(tier_file(tier));
        let tmp = dir.join(format!("{}.{}.tmp", tier_file(tier), std::process::id()));
        let file = File::create(&tmp).map_err(|e| io(&path, format!("cannot write: {e}")))?;
        let nblocks = records.div_ceil(BLOCK_RECORDS as u64);
        if nblocks > u32::MAX as u64 {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&path, format!("a tier of {records} records has more blocks than a file holds")));
        }
        Ok(TierWriter {
            tier,
            identity: identity.to_string(),
            records,
            path,
            tmp,
            file: Some(file),
            table: Vec::with_capacity(nblocks as usize),
            pending: Vec::new(),
            given: 0,
            offset: FIXED as u64 + nblocks * 16 + 4,
        })
    }

    fn fail(&self, e: impl std::fmt::Display) -> DbError {
        io(&self.path, format!("cannot write: {e}"))
    }

    /// Compress and write `recs` (whole blocks, or the last one) after what is written.
    fn write_blocks(&mut self, recs: &[Rec]) -> DbResult<()> {
        let blocks = compress_blocks(recs).map_err(|e| self.fail(e))?;
        let file = self.file.as_ref().expect("an open file");
        for b in &blocks {
            file.write_all_at(&b.bytes, self.offset).map_err(|e| self.fail(e))?;
            self.table.push((self.offset, b.bytes.len() as u32 | b.flags, b.crc));
            self.offset += b.bytes.len() as u64;
        }
        Ok(())
    }

    /// The next records of the tier, in order.
    pub fn push(&mut self, recs: &[Rec]) -> DbResult<()> {
        if self.given + recs.len() as u64 > self.records {
            return Err(self.fail(format!("more than the tier's {} records", self.records)));
        }
        self.given += recs.len() as u64;
        let block = BLOCK_RECORDS as usize;
        let mut recs = recs;
        if !self.pending.is_empty() {
            let take = (block - self.pending.len()).min(recs.len());
            self.pending.extend_from_slice(&recs[..take]);
            recs = &recs[take..];
            if self.pending.len() < block {
                return Ok(());
            }
            let full = std::mem::take(&mut self.pending);
            self.write_blocks(&full)?;
        }
        let whole = recs.len() / block * block;
        self.write_blocks(&recs[..whole])?;
        self.pending.extend_from_slice(&recs[whole..]);
        Ok(())
    }

    /// Write the last block and the header, and give the file its name: its bytes.
    pub fn finish(mut self) -> DbResult<u64> {
        if self.given != self.records {
            return Err(self.fail(format!("{} records of the tier's {} given", self.given, self.records)));
        }
        let last = std::mem::take(&mut self.pending);
        self.write_blocks(&last)?;
        let head = header(self.tier, &self.identity, self.records, false, &self.table);
        let file = self.file.take().expect("an open file");
        let done = file
            .write_all_at(&head, 0)
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&self.tmp, &self.path));
        drop(file);
        done.map_err(|e| {
            let _ = std::fs::remove_file(&self.tmp);
            self.fail(e)
        })?;
        Ok(self.offset)
    }
}

impl Drop for TierWriter {
    fn drop(&mut self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Every record of a tier's file held in memory (as [`encode_tier`] makes it), each checksum
/// checked, its identity `identity`'s, and each block decompressed to its size; the error
/// says what is wrong.
pub fn decode_tier(bytes: &[u8], tier: Tier, identity: &str) -> Result<Vec<Rec>, String> {
    decode_tier_full(bytes, tier, identity).map(|a| a.records)
}

/// [`decode_tier`] with the Grundy values, where the file has them.
pub fn decode_tier_full(bytes: &[u8], tier: Tier, identity: &str) -> Result<TierArray, String> {
    let name = PathBuf::from(format!("tier {tier:x}"));
    let reason = |_: &Path, what: String| DbError::Damaged { path: String::new(), what };
    let t = TierFile::from_source(Source::Bytes(bytes.to_vec()), &name, tier, &digest(identity), reason);
    t.and_then(|t| t.all()).map_err(|e| match e {
        DbError::Damaged { what, .. } => what,
        e => e.to_string(),
    })
}

/// Write `records` as the array of `tier` in `dir` (under a temporary name, then renamed).
pub fn write_tier(dir: &Path, tier: Tier, identity: &str, records: &[Rec]) -> DbResult<u64> {
    write_tier_full(dir, tier, identity, records, None)
}

/// [`write_tier`] with Grundy values beside the records.
pub fn write_tier_full(
    dir: &Path,
    tier: Tier,
    identity: &str,
    records: &[Rec],
    grundy: Option<&[u16]>,
) -> DbResult<u64> {
    let path = dir.join(tier_file(tier));
    let bytes = encode_tier_with(tier, identity, records, grundy).map_err(|e| io(&path, e))?;
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
    // A write that fails (a full disk, a file size limit: EFBIG, SIGXFSZ being ignored)
    // leaves no partial file behind.
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(&path, format!("cannot write: {e}"))
    })?;
    Ok(bytes.len() as u64)
}

/// Where a tier's bytes are: its file, or the whole file in memory (as the MPI solver sends it).
enum Source {
    File(File),
    Bytes(Vec<u8>),
}

impl Source {
    fn len(&self) -> std::io::Result<u64> {
        match self {
            Source::File(f) => Ok(f.metadata()?.len()),
            Source::Bytes(b) => Ok(b.len() as u64),
        }
    }

    fn read_exact_at(&self, buf: &mut [u8], off: u64) -> std::io::Result<()> {
        match self {
            Source::File(f) => f.read_exact_at(buf, off),
            Source::Bytes(b) => {
                let part = usize::try_from(off).ok().and_then(|o| b.get(o..o.checked_add(buf.len())?));
                let part =
                    part.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "past the end"))?;
                buf.copy_from_slice(part);
                Ok(())
            }
        }
    }
}

/// One tier's file, open for lookups.
struct TierFile {
    file: Source,
    /// How a damaged part is reported: for a file, with its path and how to remove it; for
    /// bytes in memory, the reason alone.
    bad: fn(&Path, String) -> DbError,
    path: PathBuf,
    records: u64,
    block_records: u32,
    /// The blocks hold Grundy values after their records.
    grundy: bool,
    /// (offset, length, CRC-32, 2-byte records, 2-byte Grundy values) a block.
    table: Vec<(u64, u32, u32, bool, bool)>,
}

/// A block decompressed: its records and, in format 3, its Grundy values.
struct Block {
    records: Vec<Rec>,
    grundy: Option<Vec<u16>>,
}

impl Block {
    fn bytes(&self) -> usize {
        self.records.len() * 2 + self.grundy.as_ref().map_or(0, |g| g.len() * 2)
    }
}

/// The most bytes a compressed block of `raw` bytes can take (zstd's bound, rounded up).
fn block_bound(raw: u64) -> u64 {
    raw + raw / 128 + 1024
}

/// The largest file a tier of `records` records can be: its header and every block at its
/// bound (2-byte records and 2-byte Grundy values).
fn max_file_bytes(records: u64) -> u64 {
    let blocks = records.div_ceil(BLOCK_RECORDS as u64);
    let full = block_bound(BLOCK_RECORDS as u64 * 4);
    FIXED as u64 + blocks * 16 + 4 + blocks * full
}

impl TierFile {
    /// Open a tier's file, refusing one that is not a regular file or larger than a tier of
    /// `size` records can be, of another game (`identity`) or tier, or of another size.
    fn open(path: &Path, tier: Tier, size: Option<u64>, identity: &[u8; 32]) -> DbResult<TierFile> {
        let (file, _) = open_saved(path, max_file_bytes(size.unwrap_or(u64::from(u32::MAX) + 1)))?;
        let t = Self::from_source(Source::File(file), path, tier, identity, damaged)?;
        if let Some(size) = size
            && t.records != size
        {
            return Err(damaged(path, format!("it holds {} records, the game says {size}", t.records)));
        }
        Ok(t)
    }

    /// A tier's bytes checked as [`TierFile::open`] checks a file (`path` names it in errors).
    fn from_source(
        file: Source,
        path: &Path,
        tier: Tier,
        identity: &[u8; 32],
        bad: fn(&Path, String) -> DbError,
    ) -> DbResult<TierFile> {
        let len = file.len().map_err(|e| io(path, e))?;
        let mut fixed = [0u8; FIXED];
        file.read_exact_at(&mut fixed, 0).map_err(|_| bad(path, "too short for a tier's header".into()))?;
        if &fixed[..8] != MAGIC {
            if fixed[..7] == MAGIC[..7] && (b'1'..=b'3').contains(&fixed[7]) {
                return Err(bad(
                    path,
                    format!(
                        "it is of the older format {}, which does not name its game",
                        String::from_utf8_lossy(&fixed[..8])
                    ),
                ));
            }
            return Err(bad(path, "no tier array mark of a format this version reads (GMTIER04)".into()));
        }
        let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let (t, records, block_records, nblocks, flags) =
            (u64_at(&fixed, 8), u64_at(&fixed, 16), u32_at(&fixed, 24), u32_at(&fixed, 28), u32_at(&fixed, 32));
        // What this build writes: blocks of BLOCK_RECORDS, tiers indexed by u32.
        if block_records != BLOCK_RECORDS || records > u64::from(u32::MAX) + 1 || flags & !FLAG_GRUNDY != 0 {
            return Err(bad(path, "its block size, record count or flags are not ones this version writes".into()));
        }
        if records.div_ceil(block_records as u64) != nblocks as u64 {
            return Err(bad(path, "its block count does not match its size".into()));
        }
        let head_len = FIXED as u64 + nblocks as u64 * 16 + 4;
        if head_len > len {
            return Err(bad(path, "shorter than its block table".into()));
        }
        let mut head = vec![0u8; head_len as usize];
        file.read_exact_at(&mut head, 0).map_err(|e| io(path, e))?;
        let body = head.len() - 4;
        if crc32fast::hash(&head[..body]) != u32_at(&head, body) {
            return Err(bad(path, "its header fails its checksum".into()));
        }
        if &head[36..FIXED] != identity {
            return Err(bad(
                path,
                "it is the file of another game or variant (its identity is not this save's)".into(),
            ));
        }
        if t != tier {
            return Err(bad(path, format!("it holds tier {t:x}, not {tier:x}")));
        }
        let grundy = flags & FLAG_GRUNDY != 0;
        let table: Vec<(u64, u32, u32, bool, bool)> = (0..nblocks as usize)
            .map(|b| {
                let at = FIXED + b * 16;
                let n = u32_at(&head, at + 8);
                // Only blocks with Grundy values have the bit of 2-byte Grundy values.
                let (n, wide, gwide) = match grundy {
                    false => (n & !WIDE, n & WIDE != 0, false),
                    true => (n & !(WIDE | GWIDE), n & WIDE != 0, n & GWIDE != 0),
                };
                (u64_at(&head, at), n, u32_at(&head, at + 12), wide, gwide)
            })
            .collect();
        if table.iter().any(|&(off, n, ..)| off.checked_add(n as u64).is_none_or(|end| end > len)) {
            return Err(bad(path, "a block lies past the end of the file".into()));
        }
        if table.iter().any(|&(_, n, ..)| n as u64 > block_bound(BLOCK_RECORDS as u64 * 4)) {
            return Err(bad(path, "a block is longer than a block can be".into()));
        }
        Ok(TierFile { file, bad, path: path.to_path_buf(), records, block_records, grundy, table })
    }

    /// Block `b`, decompressed and checked.
    fn block(&self, b: u32) -> DbResult<Block> {
        let (off, n, crc, wide, gwide) = self.table[b as usize];
        let mut bytes = vec![0u8; n as usize];
        self.file.read_exact_at(&mut bytes, off).map_err(|e| io(&self.path, e))?;
        if crc32fast::hash(&bytes) != crc {
            return Err((self.bad)(&self.path, format!("block {b} fails its checksum")));
        }
        let want = ((self.records - b as u64 * self.block_records as u64).min(self.block_records as u64)) as usize;
        let gwidth = match (self.grundy, gwide) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 2,
        };
        unpack(&bytes, want, wide, gwidth).map_err(|e| (self.bad)(&self.path, format!("block {b} {e}")))
    }

    /// Which block holds `index`, and where in it.
    fn place(&self, index: u64) -> DbResult<(u32, usize)> {
        if index >= self.records {
            return Err((self.bad)(&self.path, format!("index {index} is past its {} records", self.records)));
        }
        Ok(((index / self.block_records as u64) as u32, (index % self.block_records as u64) as usize))
    }

    /// Every record (and Grundy value, in format 3), in index order.
    fn all(&self) -> DbResult<TierArray> {
        let mut out = TierArray {
            records: Vec::with_capacity(self.records as usize),
            grundy: self.grundy.then(|| Vec::with_capacity(self.records as usize)),
        };
        for b in 0..self.table.len() as u32 {
            let block = self.block(b)?;
            out.records.extend_from_slice(&block.records);
            if let (Some(all), Some(g)) = (out.grundy.as_mut(), block.grundy) {
                all.extend_from_slice(&g);
            }
        }
        Ok(out)
    }
}

/// A decompressed block and when it was last used.
type CachedBlock = (Arc<Block>, u64);

/// Decompressed blocks, least recently used dropped first, [`CACHE_BYTES`] at most.
#[derive(Default)]
struct Cache {
    blocks: HashMap<(Tier, u32), CachedBlock>,
    bytes: usize,
    clock: u64,
}

impl Cache {
    fn get(&mut self, key: (Tier, u32)) -> Option<Arc<Block>> {
        self.clock += 1;
        let now = self.clock;
        self.blocks.get_mut(&key).map(|(b, used)| {
            *used = now;
            b.clone()
        })
    }

    fn put(&mut self, key: (Tier, u32), block: Arc<Block>) {
        let size = block.bytes();
        while self.bytes + size > CACHE_BYTES && !self.blocks.is_empty() {
            // The least recently used goes (a scan: the cache holds a few hundred blocks).
            let old = *self.blocks.iter().min_by_key(|(_, (_, used))| *used).expect("a block").0;
            if let Some((b, _)) = self.blocks.remove(&old) {
                self.bytes -= b.bytes();
            }
        }
        self.clock += 1;
        self.bytes += size;
        if let Some((b, _)) = self.blocks.insert(key, (block, self.clock)) {
            self.bytes -= b.bytes();
        }
    }

    fn forget(&mut self, tier: Tier) {
        let gone: Vec<(Tier, u32)> = self.blocks.keys().filter(|k| k.0 == tier).copied().collect();
        for k in gone {
            if let Some((b, _)) = self.blocks.remove(&k) {
                self.bytes -= b.bytes();
            }
        }
    }
}

/// The name of the file in a save's directory that says what it holds (`key: value` lines:
/// the game, its definition, the positions reachable from the root, the index slots...),
/// written when a save finishes.
pub const META: &str = "meta";

/// Write a finished save's `meta` file (under a temporary name, then renamed).
pub fn write_meta(dir: &Path, meta: &[(&str, String)]) -> DbResult<()> {
    let text: String = meta.iter().map(|(k, v)| format!("{k}: {}\n", v.replace('\n', " "))).collect();
    let tmp = dir.join(format!(".{META}.tmp"));
    std::fs::write(&tmp, text).map_err(|e| io(&tmp, format!("cannot write: {e}")))?;
    std::fs::rename(&tmp, dir.join(META)).map_err(|e| io(dir, format!("cannot write {META}: {e}")))
}

/// A save's `meta` file, in order (empty where there is none: a save stopped half way, or
/// where it is not a small regular file).
pub fn read_meta(dir: &Path) -> Vec<(String, String)> {
    let Ok(bytes) = read_saved(&dir.join(META), 64 << 10) else { return Vec::new() };
    let text = String::from_utf8_lossy(&bytes);
    text.lines().filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect()
}

/// Whether `dir` is the directory of a tier save (it holds an identity file).
pub fn is_save(dir: &Path) -> bool {
    dir.is_dir() && dir.join(IDENTITY).is_file()
}

/// Bytes on disk of a save's directory, all files together.
pub fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum()).unwrap_or(0)
}

/// The tiers a save's directory holds (solved tiers: each one file, or in the pack).
pub fn tier_files(dir: &Path) -> usize {
    let files = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).filter(|e| e.path().extension().is_some_and(|x| x == "tier")).count())
        .unwrap_or(0);
    files + pack::count(dir)
}

/// What [`ArrayDb::pack`] did: the tiers in the pack, and the save's bytes before and after.
#[derive(Debug)]
pub struct Packed {
    pub tiers: usize,
    pub before: u64,
    pub after: u64,
}

/// A saved tier solve, open for lookups (each tier's file is opened at its first lookup).
pub struct ArrayDb {
    dir: PathBuf,
    /// The save's identity (the game's definition hash), as every tier file carries it.
    identity: String,
    digest: [u8; 32],
    tiers: Mutex<HashMap<Tier, Option<Arc<TierFile>>>>,
    /// The pack's tier files (`pack.rs`), read at the first tier with no file of its own.
    packed: Mutex<Option<HashMap<Tier, Vec<u8>>>>,
    cache: Mutex<Cache>,
}

/// The name of the file in a save's directory that holds its identity.
const IDENTITY: &str = "identity";

/// The most bytes an `identity` file holds (a hash in hex is 64).
const IDENTITY_BYTES: u64 = 4096;

impl ArrayDb {
    fn new(dir: &Path, identity: &str) -> ArrayDb {
        ArrayDb {
            dir: dir.to_path_buf(),
            identity: identity.to_string(),
            digest: digest(identity),
            tiers: Mutex::new(HashMap::new()),
            packed: Mutex::new(None),
            cache: Mutex::default(),
        }
    }

    /// The identity in `dir`'s `identity` file (`None`: there is none), checked as every
    /// saved file is ([`super::open_saved`]).
    fn read_identity(dir: &Path) -> DbResult<Option<String>> {
        let id = dir.join(IDENTITY);
        if std::fs::symlink_metadata(&id).is_err() {
            return Ok(None);
        }
        let bytes = read_saved(&id, IDENTITY_BYTES)?;
        match String::from_utf8(bytes) {
            Ok(s) => Ok(Some(s.trim().to_string())),
            Err(_) => Err(damaged(&id, "not the text of an identity")),
        }
    }

    /// Create (or reuse, for a solve that resumes) the directory of a save for `hash`; the
    /// temporary files of saves that were stopped are removed.
    pub fn create(dir: &Path, hash: &str) -> DbResult<ArrayDb> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, format!("cannot create: {e}")))?;
        let id = dir.join(IDENTITY);
        match Self::read_identity(dir)? {
            Some(h) if h == hash => {}
            Some(_) => {
                return Err(io(
                    dir,
                    format!(
                        "this directory holds a save for another game definition; remove it (`gamesman db rm {}`) \
                         first",
                        dir.display()
                    ),
                ));
            }
            None => std::fs::write(&id, hash).map_err(|e| {
                let _ = std::fs::remove_file(&id);
                io(&id, format!("cannot write: {e}"))
            })?,
        }
        sweep(dir);
        Ok(Self::new(dir, hash))
    }

    /// Open a save; with `hash`, refuse one made for another definition.
    pub fn open(dir: &Path, hash: Option<&str>) -> DbResult<ArrayDb> {
        if !dir.is_dir() {
            return Err(io(dir, "no such database"));
        }
        let Some(id) = Self::read_identity(dir)? else { return Err(damaged(dir, "no identity file")) };
        if let Some(want) = hash
            && id != want
        {
            return Err(io(
                dir,
                "this database was saved for another game definition (the script, the engine, --misere or the gamesman \
                 version differ); save it again",
            ));
        }
        Ok(Self::new(dir, &id))
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The save's identity (the game's definition hash).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// A tier's file, opened and checked at its first use, its record count against `size`
    /// (the game's size of the tier) first of all, before anything is read or allocated for
    /// it: every read of a tier goes through here.
    fn tier_sized(&self, tier: Tier, size: Option<u64>) -> DbResult<Option<Arc<TierFile>>> {
        let mut map = self.tiers.lock().expect("tiers");
        if let Some(t) = map.get(&tier) {
            if let (Some(t), Some(size)) = (t, size)
                && t.records != size
            {
                return Err(damaged(&t.path, format!("it holds {} records, the game says {size}", t.records)));
            }
            return Ok(t.clone());
        }
        let path = self.dir.join(tier_file(tier));
        // Anything at the name (a FIFO, a link) is opened, and refused if it is not a tier's file.
        let t = if std::fs::symlink_metadata(&path).is_ok() {
            Some(Arc::new(TierFile::open(&path, tier, size, &self.digest)?))
        } else if let Some(bytes) = self.packed_file(tier)? {
            let path = self.dir.join(pack::PACK);
            let t = TierFile::from_source(Source::Bytes(bytes), &path, tier, &self.digest, damaged)?;
            if let Some(size) = size
                && t.records != size
            {
                return Err(damaged(
                    &path,
                    format!("its tier {tier:x} holds {} records, the game says {size}", t.records),
                ));
            }
            Some(Arc::new(t))
        } else {
            None
        };
        map.insert(tier, t.clone());
        Ok(t)
    }

    /// `tier`'s file as the pack holds it, if it does (the pack read at the first call).
    fn packed_file(&self, tier: Tier) -> DbResult<Option<Vec<u8>>> {
        let mut packed = self.packed.lock().expect("pack");
        if packed.is_none() {
            let files = pack::read(&self.dir, &self.digest)?.unwrap_or_default();
            *packed = Some(files.into_iter().collect());
        }
        Ok(packed.as_ref().and_then(|m| m.get(&tier).cloned()))
    }

    /// Put the save's small tiers (files of at most 64 KiB), and those of an earlier pack,
    /// into one pack, each tier checked whole first; then remove their files. A tier keeps
    /// its file where the pack would pass `max_raw` bytes (or what a pack holds); an earlier
    /// pack past it is refused before it is read. Where the pack would not be smaller than
    /// the files, nothing changes (`tiers` is then 0).
    pub fn pack(&self, max_raw: u64) -> DbResult<Packed> {
        let max_raw = max_raw.min(pack::MAX_PACK_RAW);
        let before = dir_bytes(&self.dir);
        let earlier = std::fs::metadata(self.dir.join(pack::PACK)).map_or(0, |m| m.len());
        if pack::raw_len(&self.dir).unwrap_or(0) > max_raw || earlier > max_raw {
            return Err(io(
                &self.dir,
                format!("its pack holds more than the {max_raw} bytes the memory budget allows"),
            ));
        }
        let mut files: std::collections::BTreeMap<Tier, Vec<u8>> =
            pack::read(&self.dir, &self.digest)?.unwrap_or_default().into_iter().collect();
        let mut small: Vec<(u64, Tier, PathBuf)> = Vec::new();
        for e in std::fs::read_dir(&self.dir).map_err(|e| io(&self.dir, e))?.flatten() {
            let path = e.path();
            let tier = path
                .file_name()
                .and_then(|n| n.to_str()?.strip_suffix(".tier"))
                .and_then(|hex| Tier::from_str_radix(hex, 16).ok());
            let len = e.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
            if let Some(tier) = tier
                && len <= pack::MAX_PACKED_FILE
            {
                small.push((len, tier, path));
            }
        }
        small.sort();
        let mut raw: u64 = files.values().map(|f| f.len() as u64 + 12).sum();
        let mut taken = Vec::new();
        for (len, tier, path) in small {
            if raw + len + 12 > max_raw {
                break;
            }
            let bytes = read_saved(&path, pack::MAX_PACKED_FILE)?;
            TierFile::from_source(Source::Bytes(bytes.clone()), &path, tier, &self.digest, damaged)?.all()?;
            raw += len + 12;
            files.insert(tier, bytes);
            taken.push(path);
        }
        let files: Vec<pack::Entry> = files.into_iter().collect();
        let bytes = pack::encode(&self.digest, &files).map_err(|e| io(&self.dir, e))?;
        // Packed, the files would take more room: nothing changes.
        let pack_path = self.dir.join(pack::PACK);
        let replaced = taken.iter().chain([&pack_path]);
        let old: u64 = replaced.filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
        if bytes.len() as u64 >= old {
            return Ok(Packed { tiers: 0, before, after: before });
        }
        pack::write(&self.dir, &bytes)?;
        for path in taken {
            std::fs::remove_file(&path).map_err(|e| io(&path, format!("cannot remove: {e}")))?;
        }
        self.forget_all();
        Ok(Packed { tiers: files.len(), before, after: dir_bytes(&self.dir) })
    }

    /// Forget every tier opened and block cached (the files changed).
    fn forget_all(&self) {
        self.tiers.lock().expect("tiers").clear();
        *self.packed.lock().expect("pack") = None;
        *self.cache.lock().expect("cache") = Cache::default();
    }

    /// Whether `tier`'s file is there and whole, `size` records of this save's game, every
    /// block's checksum checked (what a save does before it trusts a tier saved before):
    /// `Ok(false)` when there is none, the error when it is damaged.
    pub fn verify(&self, tier: Tier, size: u64) -> DbResult<bool> {
        let Some(t) = self.tier_sized(tier, Some(size))? else { return Ok(false) };
        for b in 0..t.table.len() as u32 {
            t.block(b)?;
        }
        Ok(true)
    }

    /// Remove `tier`'s file (a damaged one, to be solved again). A tier in the pack takes
    /// the pack with it: every tier there is solved again.
    pub fn remove(&self, tier: Tier) -> DbResult<()> {
        let mut path = self.dir.join(tier_file(tier));
        if std::fs::symlink_metadata(&path).is_err() && std::fs::symlink_metadata(self.dir.join(pack::PACK)).is_ok() {
            path = self.dir.join(pack::PACK);
        }
        self.forget_all();
        std::fs::remove_file(&path).map_err(|e| io(&path, format!("cannot remove: {e}")))
    }

    /// Whether `tier` (of `size` records, the game's size of it) is solved: its file is
    /// there, its header sound and its record count `size`.
    pub fn has(&self, tier: Tier, size: u64) -> DbResult<bool> {
        Ok(self.tier_sized(tier, Some(size))?.is_some())
    }

    /// The record at `index` of `tier` (of `size` records, the game's size of it), `None` when
    /// the tier is not saved.
    pub fn get(&self, tier: Tier, size: u64, index: u64) -> DbResult<Option<Rec>> {
        Ok(self.lookup(tier, size, index)?.map(|(r, _)| r))
    }

    /// The record at `index` of `tier` (of `size` records, the game's size of it) and its
    /// Grundy value where the tier has one (format 3), `None` when the tier is not saved. A
    /// file that does not hold `size` records is refused as such, before any block is read.
    pub fn lookup(&self, tier: Tier, size: u64, index: u64) -> DbResult<Option<(Rec, Option<u64>)>> {
        let Some(t) = self.tier_sized(tier, Some(size))? else { return Ok(None) };
        let (b, at) = t.place(index)?;
        let cached = self.cache.lock().expect("cache").get((tier, b));
        let block = match cached {
            Some(block) => block,
            None => {
                let block = Arc::new(t.block(b)?);
                self.cache.lock().expect("cache").put((tier, b), block.clone());
                block
            }
        };
        let grundy = block.grundy.as_ref().map(|g| g[at]).filter(|&g| g != NO_GRUNDY).map(u64::from);
        Ok(Some((block.records[at], grundy)))
    }

    /// Every record of `tier` (of `size` records, the game's size of it), checked.
    pub fn load(&self, tier: Tier, size: u64) -> DbResult<Vec<Rec>> {
        Ok(self.load_full(tier, size)?.records)
    }

    /// Every record of `tier` and its Grundy values where it has them, checked (the tier
    /// solver reads child tiers this way). A file that does not hold `size` records (the
    /// game's size of the tier) is refused before anything is allocated for it.
    pub fn load_full(&self, tier: Tier, size: u64) -> DbResult<TierArray> {
        match self.tier_sized(tier, Some(size))? {
            Some(t) => t.all(),
            None => Err(io(&self.dir, format!("tier {tier:x} is not saved"))),
        }
    }

    /// Write a solved tier.
    pub fn write(&self, tier: Tier, records: &[Rec]) -> DbResult<u64> {
        self.write_full(tier, records, None)
    }

    /// Write a solved tier with its Grundy values, where it has them (format 3).
    pub fn write_full(&self, tier: Tier, records: &[Rec], grundy: Option<&[u16]>) -> DbResult<u64> {
        let n = write_tier_full(&self.dir, tier, &self.identity, records, grundy)?;
        self.tiers.lock().expect("tiers").remove(&tier);
        self.cache.lock().expect("cache").forget(tier);
        Ok(n)
    }

    /// Start writing `tier` (of `size` records) a slice at a time; [`ArrayDb::finish`] ends it.
    pub fn writer(&self, tier: Tier, size: u64) -> DbResult<TierWriter> {
        TierWriter::create(&self.dir, tier, &self.identity, size)
    }

    /// Finish a tier's file begun with [`ArrayDb::writer`]: its bytes.
    pub fn finish(&self, w: TierWriter) -> DbResult<u64> {
        let tier = w.tier;
        let n = w.finish()?;
        self.tiers.lock().expect("tiers").remove(&tier);
        self.cache.lock().expect("cache").forget(tier);
        Ok(n)
    }

    /// Save a tier's file made by [`encode_tier`] (checked by the caller, as
    /// [`decode_tier`] checks it), as [`ArrayDb::write`] saves records.
    pub fn write_bytes(&self, tier: Tier, bytes: &[u8]) -> DbResult<u64> {
        let n = write_tier_bytes(&self.dir, tier, bytes)?;
        self.tiers.lock().expect("tiers").remove(&tier);
        self.cache.lock().expect("cache").forget(tier);
        Ok(n)
    }

    /// A saved tier's file, whole, as it is on disk (what the MPI solver sends a worker),
    /// its header checked first (its record count against `size`, the game's size of it).
    pub fn file_bytes(&self, tier: Tier, size: u64) -> DbResult<Vec<u8>> {
        let path = self.dir.join(tier_file(tier));
        if self.tier_sized(tier, Some(size))?.is_none() {
            return Err(io(&self.dir, format!("tier {tier:x} is not saved")));
        }
        if std::fs::symlink_metadata(&path).is_err()
            && let Some(bytes) = self.packed_file(tier)?
        {
            return Ok(bytes);
        }
        read_saved(&path, max_file_bytes(u64::from(u32::MAX) + 1))
    }

    /// Bytes on disk, all files together.
    pub fn bytes(&self) -> u64 {
        dir_bytes(&self.dir)
    }
}

/// Remove the temporary files (`<tier>.tier.<pid>.tmp`, `tiers.pack.<pid>.tmp`) of saves into `dir` by processes
/// that no longer run: what a save stopped by a full disk or a kill left behind.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_suffix(".tmp")
            .and_then(|r| r.rsplit_once(".tier.").or_else(|| r.rsplit_once(".pack.")))
            .and_then(|(_, pid)| pid.parse::<i32>().ok());
        if let Some(pid) = pid
            && !alive(pid)
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests;
