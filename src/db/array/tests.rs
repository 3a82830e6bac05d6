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
    let file = encode_tier(42, "h", &records).expect("encoded");
    assert_eq!(decode_tier(&file, 42, "h").expect("decoded"), records);
    assert!(decode_tier(&file, 43, "h").unwrap_err().contains("not 2b"));
    // Another game's identity: refused.
    assert!(decode_tier(&file, 42, "g").unwrap_err().contains("another game"));
    let head_len = FIXED + 3 * 16 + 4;
    for at in [3, 20, 40, 50, head_len - 1, head_len + 10, file.len() - 1] {
        let mut bad = file.clone();
        bad[at] ^= 0x10;
        assert!(decode_tier(&bad, 42, "h").is_err(), "a byte changed at {at} was not noticed");
    }
    assert!(decode_tier(&file[..file.len() - 1], 42, "h").is_err());
}

/// A tier written a slice at a time (slices of any length, across blocks) is the file
/// written whole, byte for byte; a writer given too few or too many records, or dropped
/// unfinished, leaves no file.
#[test]
fn a_tier_written_in_slices_is_the_tier_written_whole() {
    let dir = std::env::temp_dir().join(format!("gamesman-writer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = ArrayDb::create(&dir, "h").unwrap();
    let n = BLOCK_RECORDS as usize * 2 + 7;
    let values = [Value::Win, Value::Lose, Value::Tie, Value::Draw];
    // The first block's records all have a symbol (remoteness ≤ 83), the others not.
    let records: Vec<Rec> =
        (0..n)
            .map(|i| {
                if i % 5 == 0 { 0 } else { rec(values[i % 4], (i as u32 * 7919) % if i < 1 << 17 { 84 } else { 4096 }) }
            })
            .collect();
    let whole = encode_tier(42, "h", &records).unwrap();
    for cuts in [vec![n], vec![1, 100_000, 200_000, n], vec![BLOCK_RECORDS as usize, n], vec![0, 5, n - 1, n]] {
        let mut w = db.writer(42, n as u64).unwrap();
        let mut from = 0;
        for &to in &cuts {
            w.push(&records[from..to]).unwrap();
            from = to;
        }
        assert_eq!(db.finish(w).unwrap(), whole.len() as u64);
        assert_eq!(std::fs::read(dir.join(tier_file(42))).unwrap(), whole, "cut at {cuts:?}");
        assert_eq!(db.load(42, n as u64).unwrap(), records);
        db.remove(42).unwrap();
    }
    let mut w = db.writer(42, n as u64).unwrap();
    w.push(&records[..10]).unwrap();
    assert!(w.push(&records).is_err(), "more than the tier");
    assert!(db.finish(w).is_err(), "fewer than the tier");
    let w = db.writer(42, n as u64).unwrap();
    drop(w);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from(IDENTITY)], "nothing but the identity left");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tier's blocks compressed in parts (each a run of whole blocks, as MPI workers send
/// them) and put together make the file encoded whole, byte for byte; a block damaged or
/// of the wrong size is refused, and so is a wrong count of blocks.
#[test]
fn a_tier_put_together_from_parts_is_the_tier_encoded_whole() {
    let b = BLOCK_RECORDS as usize;
    let n = b * 3 + 11;
    let values = [Value::Win, Value::Lose, Value::Tie, Value::Draw];
    let records: Vec<Rec> = (0..n)
        .map(|i| if i % 3 == 0 { 0 } else { rec(values[i % 4], (i as u32 * 31) % if i < b { 84 } else { 4096 }) })
        .collect();
    let whole = encode_tier(7, "h", &records).unwrap();
    for cuts in [vec![n], vec![b, n], vec![b, 3 * b, n], vec![b, 2 * b, 3 * b, n]] {
        let mut blocks = Vec::new();
        let mut from = 0;
        for &to in &cuts {
            let part = compress_blocks(&records[from..to]).unwrap();
            for (k, p) in part.iter().enumerate() {
                check_block(p, (to - from - k * b).min(b)).unwrap();
            }
            blocks.extend(part);
            from = to;
        }
        assert_eq!(assemble_tier(7, "h", n as u64, &blocks).unwrap(), whole, "parts ending at {cuts:?}");
    }
    let mut blocks = compress_blocks(&records).unwrap();
    assert!(check_block(&blocks[3], b).is_err(), "11 records, not a whole block");
    let last = blocks[0].bytes.len() - 1;
    blocks[0].bytes[last] ^= 1;
    assert_eq!(check_block(&blocks[0], b).unwrap_err(), "fails its checksum");
    blocks.pop();
    assert!(assemble_tier(7, "h", n as u64, &blocks).is_err(), "a block short");
}

/// Format 3: records with Grundy values (one-byte blocks, a two-byte block with values
/// past 254, none marked) read back whole from bytes and from a file, a lookup gives
/// both, a changed byte is refused; without Grundy values the file is format 2.
#[test]
fn grundy_values_round_trip_in_format_3() {
    let n = BLOCK_RECORDS as usize * 2 + 9;
    let records: Vec<Rec> = (0..n).map(|i| rec([Value::Win, Value::Lose][i % 2], (i % 60) as u32)).collect();
    let grundy: Vec<u16> = (0..n)
        .map(|i| match i % 11 {
            0 => NO_GRUNDY,
            _ if i / BLOCK_RECORDS as usize == 1 => (i % 700) as u16,
            _ => (i % 200) as u16,
        })
        .collect();
    let file = encode_tier_with(3, "h", &records, Some(&grundy)).unwrap();
    assert_eq!(&file[..8], b"GMTIER04");
    assert_eq!(file[32], FLAG_GRUNDY as u8);
    assert_eq!(
        decode_tier_full(&file, 3, "h").unwrap(),
        TierArray { records: records.clone(), grundy: Some(grundy.clone()) }
    );
    let mut bad = file.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(decode_tier_full(&bad, 3, "h").is_err());
    assert_eq!(encode_tier(3, "h", &records).unwrap()[32], 0);
    let dir = std::env::temp_dir().join(format!("gamesman-array-v3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = ArrayDb::create(&dir, "h").unwrap();
    db.write_full(3, &records, Some(&grundy)).unwrap();
    for i in [0, 1, 11, BLOCK_RECORDS as usize + 5, n - 1] {
        let g = (grundy[i] != NO_GRUNDY).then_some(grundy[i] as u64);
        assert_eq!(db.lookup(3, n as u64, i as u64).unwrap(), Some((records[i], g)), "index {i}");
    }
    assert_eq!(db.load_full(3, n as u64).unwrap().grundy, Some(grundy));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every record with a symbol comes back from it whole, every symbol byte names one
/// record, and the records of remoteness past 83 (or a draw with one) have none.
#[test]
fn symbols_round_trip() {
    for r in 0..=u16::MAX {
        if let Some(s) = symbol(r) {
            assert_eq!(unsymbol(s), Some(r), "record {r:#x}");
        }
    }
    for s in 0..=255u8 {
        if let Some(r) = unsymbol(s) {
            assert_eq!(symbol(r), Some(s), "byte {s}");
        }
    }
    assert_eq!(symbol(rec(Value::Win, 83)), Some(251));
    assert_eq!(symbol(rec(Value::Tie, 83)), Some(253));
    assert_eq!(symbol(rec(Value::Lose, 84)), None);
    assert_eq!(symbol(rec(Value::Draw, 0)), Some(1));
    assert_eq!(symbol(rec(Value::Tie, 0)), Some(4));
}

/// A tier in the first format (GMTIER01: 2-byte records in blocks of 2^18, written here
/// by hand), which names no game, is refused, as is a file of an unknown format, each
/// with one line.
#[test]
fn an_older_format_and_an_unknown_one_are_refused() {
    let dir = std::env::temp_dir().join(format!("gamesman-array-v1-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    ArrayDb::create(&dir, "h").unwrap();
    let recs: Vec<Rec> = (0..1000u32).map(|i| rec(Value::Lose, i * 3)).collect();
    let raw: Vec<u8> = recs.iter().flat_map(|r| r.to_le_bytes()).collect();
    let z = zstd::bulk::compress(&raw, 3).unwrap();
    let mut head = Vec::new();
    head.extend_from_slice(b"GMTIER01");
    head.extend_from_slice(&5u64.to_le_bytes());
    head.extend_from_slice(&1000u64.to_le_bytes());
    head.extend_from_slice(&(1u32 << 18).to_le_bytes());
    head.extend_from_slice(&1u32.to_le_bytes());
    head.extend_from_slice(&52u64.to_le_bytes());
    head.extend_from_slice(&(z.len() as u32).to_le_bytes());
    head.extend_from_slice(&crc32fast::hash(&z).to_le_bytes());
    let crc = crc32fast::hash(&head);
    head.extend_from_slice(&crc.to_le_bytes());
    let file = dir.join(tier_file(5));
    std::fs::write(&file, [head.clone(), z.clone()].concat()).unwrap();
    let err = ArrayDb::open(&dir, Some("h")).unwrap().get(5, 1000, 999).unwrap_err().to_string();
    assert!(err.contains("older format GMTIER01") && !err.contains('\n'), "{err}");
    head[7] = b'9';
    std::fs::write(&file, [head, z].concat()).unwrap();
    let err = ArrayDb::open(&dir, Some("h")).unwrap().get(5, 1000, 0).unwrap_err().to_string();
    assert!(err.contains("no tier array mark of a format this version reads") && !err.contains('\n'), "{err}");
    // The records, written by this version, read back.
    let db = ArrayDb::open(&dir, Some("h")).unwrap();
    db.write(5, &recs).unwrap();
    assert_eq!(db.load(5, 1000).unwrap(), recs);
    assert!(db.load(5, 999).unwrap_err().to_string().contains("holds 1000 records, the game says 999"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tier written with a block of long remoteness (2-byte records) beside blocks of
/// symbols reads back whole, record by record and at once.
#[test]
fn wide_and_narrow_blocks_read_back() {
    let dir = std::env::temp_dir().join(format!("gamesman-array-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = ArrayDb::create(&dir, "h").unwrap();
    let n = BLOCK_RECORDS as usize * 2 + 5;
    let recs: Vec<Rec> = (0..n)
        .map(|i| match i % 7 {
            0 => 0,
            1 => rec(Value::Draw, 0),
            2 if i > BLOCK_RECORDS as usize && i < 2 * BLOCK_RECORDS as usize => {
                rec(Value::Win, 1000 + (i % 50) as u32)
            }
            k => rec([Value::Win, Value::Lose, Value::Tie][k % 3], (i % 80) as u32),
        })
        .collect();
    db.write(7, &recs).unwrap();
    let back = ArrayDb::open(&dir, Some("h")).unwrap();
    assert_eq!(back.load(7, n as u64).unwrap(), recs);
    for i in (0..n).step_by(997) {
        assert_eq!(back.get(7, n as u64, i as u64).unwrap(), Some(recs[i]), "index {i}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Small tiers packed into one file read back as they were written, record by record and
/// whole, and the pack is smaller than their files; the files are gone and the tiers still
/// count. A tier written again beside the pack is read from its file; a damaged pack is
/// refused with one line naming it; removing a packed tier removes the pack.
#[test]
fn packed_tiers_read_back() {
    let dir = std::env::temp_dir().join(format!("gamesman-array-pack-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = ArrayDb::create(&dir, "h").unwrap();
    let tier = |t: u64| -> Vec<Rec> {
        (0..100 + 37 * t as usize)
            .map(|i| if i % 3 == 0 { 0 } else { rec(Value::Win, (i as u32 + t as u32) % 9) })
            .collect()
    };
    for t in 0..20 {
        db.write(t, &tier(t)).unwrap();
    }
    let files = dir_bytes(&dir);
    let p = ArrayDb::open(&dir, Some("h")).unwrap().pack(pack::MAX_PACK_RAW).unwrap();
    assert_eq!((p.tiers, p.before), (20, files));
    assert!(p.after < files / 2, "{} bytes packed against {files}", p.after);
    assert_eq!(tier_files(&dir), 20);
    assert!(!dir.join(tier_file(3)).exists());
    let back = ArrayDb::open(&dir, Some("h")).unwrap();
    for t in 0..20 {
        let want = tier(t);
        assert_eq!(back.load(t, want.len() as u64).unwrap(), want, "tier {t}");
        assert_eq!(back.get(t, want.len() as u64, 5).unwrap(), Some(want[5]));
        assert_eq!(decode_tier(&back.file_bytes(t, want.len() as u64).unwrap(), t, "h").unwrap(), want);
    }
    assert!(back.load(3, 5).unwrap_err().to_string().contains("the game says 5"));
    assert_eq!(back.get(20, 10, 0).unwrap(), None);
    // Packing again changes nothing: the pack would be no smaller.
    assert_eq!(back.pack(pack::MAX_PACK_RAW).unwrap().tiers, 0);
    // A tier written again has its file, read first.
    let other: Vec<Rec> = tier(4).iter().map(|&r| if r == 0 { 0 } else { rec(Value::Lose, 2) }).collect();
    back.write(4, &other).unwrap();
    assert_eq!(ArrayDb::open(&dir, Some("h")).unwrap().load(4, other.len() as u64).unwrap(), other);
    // The pack copied into another game's save: refused there.
    let pack_path = dir.join(pack::PACK);
    let elsewhere = dir.join("g");
    ArrayDb::create(&elsewhere, "g").unwrap();
    std::fs::copy(&pack_path, elsewhere.join(pack::PACK)).unwrap();
    let err = ArrayDb::open(&elsewhere, Some("g")).unwrap().get(7, tier(7).len() as u64, 0).unwrap_err().to_string();
    assert!(err.contains("another game"), "{err}");
    // A byte changed: refused, naming the pack.
    let mut bytes = std::fs::read(&pack_path).unwrap();
    let at = bytes.len() - 3;
    bytes[at] ^= 0x20;
    std::fs::write(&pack_path, &bytes).unwrap();
    let err = ArrayDb::open(&dir, Some("h")).unwrap().get(7, tier(7).len() as u64, 0).unwrap_err().to_string();
    assert!(err.contains("tiers.pack") && err.contains("checksum") && !err.contains('\n'), "{err}");
    // Removing a packed tier removes the pack: those tiers are solved again.
    let db = ArrayDb::open(&dir, Some("h")).unwrap();
    db.remove(7).unwrap();
    assert!(!pack_path.exists());
    assert!(!db.has(9, tier(9).len() as u64).unwrap());
    assert!(db.has(4, other.len() as u64).unwrap());
    // Under a budget of 400 bytes, the smallest tiers alone are packed; the rest keep their
    // files, and every tier reads back.
    for t in 0..20 {
        db.write(t, &tier(t)).unwrap();
    }
    let p = db.pack(400).unwrap();
    assert!(p.tiers > 0 && p.tiers < 20, "{} tiers packed", p.tiers);
    assert!(dir.join(tier_file(19)).exists() && !dir.join(tier_file(0)).exists());
    let back = ArrayDb::open(&dir, Some("h")).unwrap();
    for t in 0..20 {
        assert_eq!(back.load(t, tier(t).len() as u64).unwrap(), tier(t), "tier {t}");
    }
    // A pack past the budget is refused before it is read.
    assert!(back.pack(10).unwrap_err().to_string().contains("memory budget"));
    let _ = std::fs::remove_dir_all(&dir);
}
