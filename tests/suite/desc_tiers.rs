//! Board descriptors saved through the tier solver (`src/descriptor/tiers.rs`): positions by
//! index for free, checked against values found independently:
//!
//! - tic-tac-toe against a plain negamax written here (a `[u8; 9]` board, its own lines and
//!   its own 8 symmetries; no engine code): every reachable position's value and
//!   remoteness, and the known counts (5,478 reachable positions, 765 up to symmetry, the
//!   empty board a tie in 9);
//! - `connect4.ron` 4×4 against the native Connect-Four module's arrays, record for record
//!   (the module is checked against John Tromp's results and a Python oracle in
//!   `tests/connect4.rs`);
//! - published results: Hex 3×3 a first-player win (Nash), Domineering 4×4 a first-player
//!   win and 5×5 a second-player win (Breuker, Uiterwijk and van den Herik), Dodgem 3×3 a
//!   first-player win (Winning Ways), Notakto on one board a first-player win.

use gamesman::catalog::{Catalog, Database, How};
use gamesman::db::array::{ArrayDb, unrec};
use gamesman::game::tier::{TierSpace, Tiers, tier_order};
use gamesman::game::{Game, GameExt, Value};
use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::common;
use common::Known;

fn gamesman(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gamesman")).args(args).output().expect("gamesman runs")
}

fn game_file(name: &str) -> String {
    common::root().join("games").join(name).to_str().unwrap().to_string()
}

/// `gamesman solve games/FILE POSITION --save --db DIR`, which must succeed.
fn save(file: &str, position: &str, dir: &Path) {
    let out = gamesman(&["solve", &game_file(file), position, "--save", "--db", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{file} {position}: {}", String::from_utf8_lossy(&out.stderr));
}

fn session(file: &str, dir: &Path) -> Box<dyn gamesman::catalog::Session> {
    let how = How { database: Database::At(dir.to_path_buf()), ..How::default() };
    Catalog::new().open(&game_file(file), &how).expect("the descriptor opens")
}

/// The value at `position` read from the saved arrays (the session says where it answered).
fn from_arrays(file: &str, position: &str, dir: &Path) -> (Value, Option<u32>) {
    let mut s = session(file, dir);
    assert_eq!(s.source(position).unwrap(), "database", "{file} {position}");
    let (sol, _) = s.value(position).expect("a value");
    (sol.value, sol.remoteness)
}

// --- Tic-tac-toe, solved here without the engine -----------------------------------------

const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

/// 0 empty, 1 X, 2 O; X moves first.
type T3 = [u8; 9];

fn has_line(b: &T3, who: u8) -> bool {
    LINES.iter().any(|l| l.iter().all(|&i| b[i] == who))
}

/// Negamax with a memo: (value, remoteness) for the player to move.
fn negamax(b: &T3, memo: &mut HashMap<T3, (Value, u32)>) -> (Value, u32) {
    if let Some(&v) = memo.get(b) {
        return v;
    }
    let n = b.iter().filter(|&&c| c != 0).count();
    let (me, them) = if n % 2 == 0 { (1, 2) } else { (2, 1) };
    let v = if has_line(b, them) {
        (Value::Lose, 0)
    } else if n == 9 {
        (Value::Tie, 0)
    } else {
        let kids: Vec<(Value, u32)> = (0..9)
            .filter(|&i| b[i] == 0)
            .map(|i| {
                let mut c = *b;
                c[i] = me;
                negamax(&c, memo)
            })
            .collect();
        let best = |want: Value| kids.iter().filter(|k| k.0 == want).map(|k| k.1).min();
        if let Some(r) = best(Value::Lose) {
            (Value::Win, r + 1)
        } else if let Some(r) = best(Value::Tie) {
            (Value::Tie, r + 1)
        } else {
            (Value::Lose, kids.iter().map(|k| k.1).max().unwrap() + 1)
        }
    };
    memo.insert(*b, v);
    v
}

/// Every position a game from the empty board reaches (play stops at a line or a full board).
fn reachable() -> HashSet<T3> {
    let mut seen = HashSet::new();
    let mut stack = vec![[0u8; 9]];
    while let Some(b) = stack.pop() {
        if !seen.insert(b) {
            continue;
        }
        let n = b.iter().filter(|&&c| c != 0).count();
        if has_line(&b, 1) || has_line(&b, 2) || n == 9 {
            continue;
        }
        for i in (0..9).filter(|&i| b[i] == 0) {
            let mut c = b;
            c[i] = if n % 2 == 0 { 1 } else { 2 };
            stack.push(c);
        }
    }
    seen
}

/// The least of the 8 images of `b` under the square's symmetries.
fn class(b: &T3) -> T3 {
    let rot = |b: &T3| -> T3 { std::array::from_fn(|i| b[[6, 3, 0, 7, 4, 1, 8, 5, 2][i]]) };
    let mirror = |b: &T3| -> T3 { std::array::from_fn(|i| b[[2, 1, 0, 5, 4, 3, 8, 7, 6][i]]) };
    let mut best = *b;
    let mut x = *b;
    for _ in 0..4 {
        x = rot(&x);
        best = best.min(x).min(mirror(&x));
    }
    best
}

fn t3_text(b: &T3) -> String {
    let row = |r: usize| (0..3).map(|c| ['.', 'x', 'o'][b[r * 3 + c] as usize]).collect::<String>();
    format!("{}/{}/{}", row(0), row(1), row(2))
}

#[test]
fn tictactoe_by_tiers_agrees_with_a_plain_negamax_on_every_reachable_position() {
    let dir = common::temp_dir("desc-tiers-ttt");
    save("tictactoe.ron", "3x3", &dir);
    assert!(dir.join("identity").exists(), "an array database, not a redb file");
    let positions = reachable();
    assert_eq!(positions.len(), 5478);
    assert_eq!(positions.iter().map(class).collect::<HashSet<_>>().len(), 765);
    let mut memo = HashMap::new();
    assert_eq!(negamax(&[0; 9], &mut memo), (Value::Tie, 9));
    let known: Vec<Known> = positions
        .iter()
        .map(|b| {
            let (value, r) = negamax(b, &mut memo);
            Known { position: t3_text(b), value, remoteness: Some(r) }
        })
        .collect();
    let mut s = session("tictactoe.ron", &dir);
    let wrong = common::disagreements_from_database(s.as_mut(), &known);
    assert!(wrong.is_empty(), "{} disagreements, e.g. {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
    // `analyze` counts the same from the arrays.
    let out = gamesman(&["analyze", &game_file("tictactoe.ron"), "--db", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["positions"], 5478, "{j}");
    assert_eq!(j["classes"], 765, "{j}");
    let count = |v: Value| known.iter().filter(|k| k.value == v).count();
    assert_eq!(j["by_value"]["win"], count(Value::Win), "{j}");
    assert_eq!(j["by_value"]["lose"], count(Value::Lose), "{j}");
    assert_eq!(j["by_value"]["tie"], count(Value::Tie), "{j}");
    let _ = std::fs::remove_dir_all(&dir);
}

// --- Connect-Four: the descriptor against the native module --------------------------------

/// Every tier of `dir`'s solve reachable from `root`, loaded.
fn arrays_of(space: &dyn TierSpace, root: u64, dir: &Path) -> HashMap<u64, Vec<u16>> {
    let db = ArrayDb::open(dir, None).expect("the arrays open");
    tier_order(space, root).into_iter().map(|t| (t, db.load(t, space.tier_size(t)).expect("a tier"))).collect()
}

#[test]
fn connect4_descriptor_by_tiers_agrees_with_the_native_module_record_for_record() {
    use gamesman::native::connect4::Connect4;
    let (ddir, ndir) = (common::temp_dir("desc-tiers-c4-ron"), common::temp_dir("desc-tiers-c4-native"));
    save("connect4.ron", "4x4", &ddir);
    let out = gamesman(&["solve", "connect4", "4x4", "--save", "--db", ndir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(from_arrays("connect4.ron", "4x4", &ddir), (Value::Tie, Some(16)), "Tromp: a draw on move 16");

    let native = Connect4::new(gamesman::game::GameInfo::native("connect4", "", gamesman::game::Kind::Partisan));
    let desc = common::descriptor("connect4");
    let dt = desc.tiers().expect("connect4.ron has tiers");
    let n_root = native.locate(&native.parse("4x4").unwrap()).0;
    let d_root = dt.locate(&desc.parse("4x4").unwrap()).0;
    let (n_arrays, d_arrays) = (arrays_of(&native, n_root, &ndir), arrays_of(dt, d_root, &ddir));
    // Both number exactly the boards that obey gravity: 201,755 on 4×4.
    let total = |a: &HashMap<u64, Vec<u16>>| a.values().map(|v| v.len()).sum::<usize>();
    assert_eq!((total(&n_arrays), total(&d_arrays)), (201_755, 201_755));
    let d_record = |p: &<gamesman::descriptor::DescriptorGame as Game>::Pos| {
        let p = desc.canonical(p).unwrap();
        let (t, i) = dt.locate(&p);
        d_arrays[&t][i as usize]
    };
    // The numbering holds boards no game reaches (four in a row for the player to move):
    // the descriptor refuses them as text, so they are counted apart, not compared.
    let (mut compared, mut refused) = (0, 0);
    for (&t, records) in &n_arrays {
        for (i, &rec) in records.iter().enumerate() {
            if native.canonical_index(t, i as u64) != i as u64 {
                continue;
            }
            let text = native.format(&native.position(t, i as u64)).unwrap();
            assert!(unrec(rec).is_some(), "native {text}: no record");
            let p = match desc.parse(&text) {
                Ok(p) => p,
                Err(e) => {
                    assert!(e.to_string().contains("in a row but is to move"), "{text}: {e}");
                    refused += 1;
                    continue;
                }
            };
            assert_eq!(d_record(&p), rec, "{text}: descriptor {:?}, native {:?}", unrec(d_record(&p)), unrec(rec));
            compared += 1;
        }
    }
    // Half the boards and those that are their own mirror image.
    assert!(compared > 201_755 / 2 - refused, "{compared}, {refused} refused");
    let _ = std::fs::remove_dir_all(&ddir);
    let _ = std::fs::remove_dir_all(&ndir);
}

// --- The numbering itself -----------------------------------------------------------------

/// For every qualifying shipped board game on a small board, every index of every tier
/// reachable from the root is a position whose place is that index, and `canonical_index`
/// is the place of the descriptor's canonical form (for dominoes, its uncut form).
#[test]
fn every_index_is_a_position_and_comes_back() {
    for (name, root) in
        [("tictactoe", "3x3"), ("notakto", "3x3"), ("hex", "3x3"), ("connect4", "3x4k3"), ("dodgem", "x../x../.oo")]
    {
        let g = common::descriptor(name);
        let tiers = g.tiers().unwrap_or_else(|| panic!("{name} has tiers"));
        let root = tiers.locate(&g.parse(root).unwrap()).0;
        let mut n = 0u64;
        for t in tier_order(tiers, root) {
            for i in 0..tiers.tier_size(t) {
                let p = tiers.position(t, i);
                assert_eq!(tiers.locate(&p), (t, i), "{name}: {}", g.format(&p).unwrap());
                let c = tiers.canonical_index(t, i);
                assert_eq!(tiers.canonical_index(t, c), c, "{name}: a representative is its own");
                assert_eq!(tiers.locate(&g.canonical(&p).unwrap()), (t, c), "{name}");
                n += 1;
            }
        }
        assert!(n > 0, "{name}");
    }
}

/// Cram (dominoes either way) keeps the redb store: its `--save` writes a redb file.
#[test]
fn a_descriptor_that_does_not_qualify_still_saves_in_redb() {
    assert!(common::descriptor("cram").tiers().is_none());
    let dir = common::temp_dir("desc-tiers-cram");
    let db = dir.join("cram.redb");
    save("cram.ron", "3x4", &db);
    assert!(db.is_file(), "a redb file");
    assert!(!dir.join("cram.tiers").exists());
    let mut s = session("cram.ron", &db);
    assert_eq!(s.source("3x4").unwrap(), "database");
    let _ = std::fs::remove_dir_all(&dir);
}

// --- Published results, from the arrays ---------------------------------------------------

#[test]
fn hex_3x3_is_a_first_player_win_from_the_arrays() {
    let dir = common::temp_dir("desc-tiers-hex");
    save("hex.ron", "3x3", &dir);
    assert_eq!(from_arrays("hex.ron", "3x3", &dir).0, Value::Win);
    // The centre is a winning opening (on every board up to 9×9, by the published solutions).
    assert_eq!(from_arrays("hex.ron", ".../.x./... o", &dir).0, Value::Lose);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Domineering keeps the redb store (its index space is far larger than its game: see
/// src/descriptor/tiers.rs), and its saved values are the published ones.
#[test]
fn domineering_is_saved_in_redb_with_the_published_values() {
    assert!(common::descriptor("domineering").tiers().is_none());
    for (board, want) in [("4x4", Value::Win), ("5x5", Value::Lose)] {
        let dir = common::temp_dir(&format!("desc-tiers-dom-{board}"));
        let db = dir.join("dom.redb");
        save("domineering.ron", board, &db);
        assert!(db.is_file(), "a redb file");
        let mut s = session("domineering.ron", &db);
        assert_eq!(s.source(board).unwrap(), "database");
        assert_eq!(s.value(board).unwrap().0.value, want, "{board}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn dodgem_and_notakto_are_first_player_wins_from_the_arrays() {
    for (file, start) in [("dodgem.ron", "x../x../.oo"), ("notakto.ron", "3x3")] {
        let dir = common::temp_dir(&format!("desc-tiers-{file}"));
        save(file, start, &dir);
        assert!(dir.join("identity").exists(), "{file}: an array database");
        assert_eq!(from_arrays(file, start, &dir).0, Value::Win, "{file}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

// --- Refusals -----------------------------------------------------------------------------

/// A board past 64 cells, or a tier past 2^32 indices, is refused with one line before
/// anything is written; a damaged tier is refused with one line when read.
#[test]
fn too_big_and_damaged_are_refused_with_one_line() {
    let dir = common::temp_dir("desc-tiers-refused");
    for (board, says) in [("9x9", "81 cells"), ("8x8", "2^32")] {
        let db = dir.join(board);
        let out =
            gamesman(&["solve", &game_file("hex.ron"), board, "--save", "--no-pack", "--db", db.to_str().unwrap()]);
        assert!(!out.status.success(), "{board}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{board}: {err}");
        assert!(!db.exists(), "{board}: nothing written");
    }
    // A byte flipped in the middle of a tier's blocks: the lookup that reads it is refused.
    let db = dir.join("ttt");
    let out =
        gamesman(&["solve", &game_file("tictactoe.ron"), "3x3", "--save", "--no-pack", "--db", db.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let g = common::descriptor("tictactoe");
    let position = "xo./xo./...";
    let (t, _) = g.tiers().unwrap().locate(&g.canonical(&g.parse(position).unwrap()).unwrap());
    let file = db.join(format!("{t:016x}.tier"));
    let mut bytes = std::fs::read(&file).expect("the tier's file");
    let at = 52 + (bytes.len() - 52) / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&file, bytes).unwrap();
    let out = gamesman(&["solve", &game_file("tictactoe.ron"), position, "--db", db.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("fails its checksum") && err.contains(".tier"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fair Shares and Varied Pairs (`games/fsvp.ron`), loopy, saved through the tier solver on
/// partitions ranked (`src/descriptor/heap_tiers.rs`, the positions' parents given by the
/// game): every position of `tests/data/fsvp.jsonl` (all of N = 4..12 and 20, and a sample
/// of 50, as GamesmanOne solved them) read from the arrays with its value and remoteness.
#[test]
fn fsvp_saved_by_tiers_agrees_with_gamesmanone() {
    let text = std::fs::read_to_string(common::root().join("tests/data/fsvp.jsonl")).unwrap();
    let mut by_n: std::collections::BTreeMap<u64, Vec<(String, Value, u64)>> = Default::default();
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let heaps: Vec<String> = row["heaps"].as_array().unwrap().iter().map(|h| h.to_string()).collect();
        let value = match row["value"].as_str().unwrap() {
            "win" => Value::Win,
            "lose" => Value::Lose,
            "draw" => Value::Draw,
            v => panic!("{v}"),
        };
        let remoteness = row["remoteness"].as_u64().unwrap_or(u64::MAX);
        by_n.entry(row["n"].as_u64().unwrap()).or_default().push((heaps.join(","), value, remoteness));
    }
    assert_eq!(by_n.keys().copied().collect::<Vec<_>>(), [4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 50]);
    let mut draws = 0;
    for (n, rows) in &by_n {
        let dir = std::env::temp_dir().join(format!("gamesman-fsvp-tiers-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        save("fsvp.ron", &n.to_string(), &dir);
        for (position, value, remoteness) in rows {
            let (v, r) = from_arrays("fsvp.ron", position, &dir);
            assert_eq!((v, r.map_or(u64::MAX, u64::from)), (*value, *remoteness), "N = {n}: {position}");
            draws += usize::from(v == Value::Draw);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(draws > 0, "the sample has draws");
}
