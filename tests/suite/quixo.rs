//! Quixo (src/native/quixo.rs, games/quixo.rhai) against an independent solver: every
//! position reachable on the 3×3 board, solved by `tests/oracles/quixo.py` (boards as
//! strings, plain retrograde analysis, no symmetry) into `tests/data/quixo3.jsonl`.

use gamesman::catalog::{Catalog, Database, Engine, How};
use gamesman::game::Value;

use crate::common;
use common::Known;

fn oracle() -> Vec<Known> {
    common::known(include_str!("../data/quixo3.jsonl"))
}

/// The oracle's file is whole: 32,027 positions (its own count), the start a win in 7.
#[test]
fn oracle_data_is_whole() {
    let all = oracle();
    assert_eq!(all.len(), 32_027);
    let start = all.iter().find(|k| k.position == ".../.../... X").expect("the start");
    assert_eq!((start.value, start.remoteness), (Value::Win, Some(7)));
}

/// The native module's search agrees with the oracle at every reachable 3×3 position.
#[test]
fn native_search_agrees_with_the_oracle() {
    let how = How { engine: Engine::Native, database: Database::Off, ..How::default() };
    let mut s = Catalog::new().open("quixo", &how).expect("quixo opens");
    assert_eq!(s.engine(), "native");
    let mut wrong = Vec::new();
    for k in oracle() {
        let (sol, _) = s.value(&k.position).expect("a value");
        if (sol.value, sol.remoteness) != (k.value, k.remoteness) {
            wrong.push(format!(
                "{}: {:?} {:?}, oracle {:?} {:?}",
                k.position, sol.value, sol.remoteness, k.value, k.remoteness
            ));
        }
    }
    assert!(wrong.is_empty(), "{} disagreements, first: {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
}

/// The script agrees with the oracle at a sample of positions (the script is slow: every
/// 97th position).
#[test]
fn script_agrees_with_the_oracle() {
    let how = How { engine: Engine::Definition, database: Database::Off, ..How::default() };
    let mut s = Catalog::new().open("quixo", &how).expect("quixo opens");
    assert_eq!(s.engine(), "script");
    for k in oracle().iter().step_by(97) {
        let (sol, _) = s.value(&k.position).expect("a value");
        assert_eq!((sol.value, sol.remoteness), (k.value, k.remoteness), "{}", k.position);
    }
}

fn gamesman(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gamesman"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("gamesman runs")
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gamesman-quixo-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `--save` of the 3×3 game goes through the tier solver into the array database, and every
/// position the oracle knows is then answered from the arrays with the oracle's value and
/// remoteness.
#[test]
fn tier_save_agrees_with_the_oracle() {
    let dir = tmp("save");
    let d = dir.to_str().unwrap();
    let out = gamesman(&["solve", "quixo", "3x3", "--save", "--no-pack", "--db", d], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // One array a tier: (X, O) with X + O ≤ 9 is 55 tiers.
    let tiers = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "tier"))
        .count();
    assert_eq!(tiers, 55);
    let how = How { engine: Engine::Native, database: Database::At(dir.clone()), ..How::default() };
    let mut s = Catalog::new().open("quixo", &how).expect("quixo opens");
    let wrong = common::disagreements_from_database(&mut *s, &oracle());
    assert_eq!(s.visited(), 0, "every answer came from the arrays");
    assert!(wrong.is_empty(), "{} disagreements, first: {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
    // `moves` from the arrays: the start's moves all lead to positions O loses (the oracle).
    let moves = s.moves(".../.../... X").unwrap();
    assert_eq!(moves.len(), 20);
    assert!(moves.iter().all(|m| m.value == Value::Lose));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A byte flipped inside a block of a saved tier: the lookup that reads the block is
/// refused with one line naming the file and the block, and exits non-zero.
#[test]
fn a_damaged_block_is_refused() {
    let dir = tmp("damaged");
    let d = dir.to_str().unwrap();
    assert!(gamesman(&["solve", "quixo", "3x3", "--save", "--no-pack", "--db", d], &[]).status.success());
    // The tier of 3 X and 3 O on 3×3: its one block starts after the 52-byte header
    // (32 bytes, one block's 16, the header's checksum).
    let file = dir.join(format!("{:016x}.tier", (3u64 << 16) | (3 << 8) | 3));
    let mut bytes = std::fs::read(&file).unwrap();
    let at = 52 + (bytes.len() - 52) / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&file, bytes).unwrap();
    let out = gamesman(&["solve", "quixo", "XOX/OXO/... X", "--db", d], &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("block 0 fails its checksum") && err.contains(".tier"), "{err}");
    // A position of another tier still answers.
    assert!(gamesman(&["solve", "quixo", "X../.../... O", "--db", d], &[]).status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A solve stopped after 20 tiers (as a killed one would be) resumes at the first tier left
/// unsolved, and ends with the same arrays, byte for byte, as a solve never stopped.
#[test]
fn a_stopped_solve_resumes() {
    let (whole, stopped) = (tmp("whole"), tmp("stopped"));
    assert!(
        gamesman(&["solve", "quixo", "3x3", "--save", "--no-pack", "--db", whole.to_str().unwrap()], &[])
            .status
            .success()
    );
    let s = stopped.to_str().unwrap();
    let out =
        gamesman(&["solve", "quixo", "3x3", "--save", "--no-pack", "--db", s], &[("GAMESMAN_STOP_AFTER_TIERS", "20")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("stopped after 20 tiers"));
    let count = |d: &std::path::Path| {
        std::fs::read_dir(d)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "tier"))
            .count()
    };
    assert_eq!(count(&stopped), 20);
    // Resumed: only the 35 tiers left are solved (a second stop after 35 is never reached).
    let out =
        gamesman(&["solve", "quixo", "3x3", "--save", "--no-pack", "--db", s], &[("GAMESMAN_STOP_AFTER_TIERS", "35")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(count(&stopped), 55);
    for e in std::fs::read_dir(&whole).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        // Every file but the `meta`, which holds the time the save was made.
        if name == "meta" {
            continue;
        }
        assert_eq!(std::fs::read(&p).unwrap(), std::fs::read(stopped.join(name)).unwrap(), "{name:?}");
    }
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&stopped);
}

/// The tier solver gives the same arrays, byte for byte, on one thread (one tier at a time,
/// its levels in order) as on three (each level split between them, and tiers that do not
/// move to one another solved at once), under a budget that leaves room for one tier at a
/// time, and with every tier solved in passes over slices.
#[test]
fn the_arrays_are_the_same_for_any_number_of_threads() {
    let dirs = [tmp("t1"), tmp("t3"), tmp("t3small"), tmp("t3passes")];
    let runs: [&[&str]; 4] =
        [&["--threads", "1"], &["--threads", "3"], &["--threads", "3", "--max-memory", "8"], &["--threads", "3"]];
    // The last: every tier solved in passes over slices (a tier that moves stay in, as under a
    // budget too small to hold it whole).
    let envs: [&[(&str, &str)]; 4] = [&[], &[], &[], &[("GAMESMAN_TIER_SLICE", "1")]];
    for ((dir, extra), env) in dirs.iter().zip(runs).zip(envs) {
        let mut args = vec!["solve", "quixo", "3x3", "--save", "--no-pack", "--db", dir.to_str().unwrap()];
        args.extend(extra);
        let out = gamesman(&args, env);
        assert!(out.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let mut files = 0;
    for e in std::fs::read_dir(&dirs[0]).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        // The arrays and the save's identity (not its `meta`, which holds the time it was made).
        if !(p.extension().is_some_and(|x| x == "tier") || name == "identity") {
            continue;
        }
        for other in &dirs[1..] {
            assert_eq!(std::fs::read(&p).unwrap(), std::fs::read(other.join(name)).unwrap(), "{name:?}");
        }
        files += 1;
    }
    // The 55 tiers and the save's identity.
    assert_eq!(files, 56);
    for d in dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Every representative of a saved tier solve agrees with its children, read from the same arrays:
/// a primitive has its primitive value at remoteness 0; a win has a losing child at one less
/// and none quicker; a loss has only winning children, the slowest at one less; a draw has
/// no losing child and a drawing one. By induction on remoteness this holds only for the
/// true values, so it checks the tier solver's retrograde analysis (draws included, which
/// 3×3 has none of) on a whole game. Run on a save of 4×4 (minutes):
/// `GAMESMAN_QUIXO_DB=DIR GAMESMAN_QUIXO_ROOT=4x4 cargo test --release --test quixo -- --ignored`.
/// Without the variables, it checks a fresh 3×3 save.
#[test]
#[ignore]
fn saved_arrays_are_locally_consistent() {
    use gamesman::db::array::{ArrayDb, unrec};
    use gamesman::game::Game;
    use gamesman::game::tier::{TierSpace, Tiers, tier_order};
    use gamesman::native::quixo::Quixo;
    use rayon::prelude::*;
    let (dir, root) = match (std::env::var("GAMESMAN_QUIXO_DB"), std::env::var("GAMESMAN_QUIXO_ROOT")) {
        (Ok(d), Ok(r)) => (std::path::PathBuf::from(d), r),
        _ => {
            let d = tmp("consistent");
            assert!(
                gamesman(&["solve", "quixo", "3x3", "--save", "--no-pack", "--db", d.to_str().unwrap()], &[])
                    .status
                    .success()
            );
            (d, "3x3".to_string())
        }
    };
    let q = Quixo::new(gamesman::game::GameInfo::native("quixo", "", gamesman::game::Kind::Partisan));
    let db = ArrayDb::open(&dir, None).expect("the arrays open");
    let root = q.parse(&root).unwrap();
    let order = tier_order(&q, q.locate(&root).0);
    let arrays: std::collections::HashMap<u64, Vec<u16>> =
        order.iter().map(|&t| (t, db.load(t, q.tier_size(t)).expect("a tier"))).collect();
    // Only representatives have records: a position is looked up by its canonical form.
    let look = |p: &gamesman::native::quixo::QPos| {
        let (t, i) = q.locate(&q.canonical(p).unwrap());
        unrec(arrays[&t][i as usize]).expect("a record")
    };
    let mut counts = [0u64; 4];
    for &t in &order {
        let bad: Vec<String> = (0..q.tier_size(t))
            .into_par_iter()
            .filter_map(|i| {
                if q.canonical_index(t, i) != i {
                    return (arrays[&t][i as usize] != 0)
                        .then(|| format!("index {i} has a record but is not a representative"));
                }
                let p = q.position(t, i);
                let (v, r) = look(&p);
                let fail = |why: &str| Some(format!("{} ({v:?} {r:?}): {why}", q.format(&p).unwrap()));
                if let Some(pv) = q.primitive(&p).unwrap() {
                    return if (v, r) == (pv, Some(0)) { None } else { fail("not its primitive value") };
                }
                let kids: Vec<(Value, Option<u32>)> = q.children(&p).unwrap().iter().map(look).collect();
                let lose_min = kids.iter().filter(|k| k.0 == Value::Lose).map(|k| k.1.unwrap()).min();
                let all_win = kids.iter().all(|k| k.0 == Value::Win);
                let win_max = kids.iter().filter_map(|k| k.1).max();
                let ok = match v {
                    Value::Win => lose_min.is_some() && r == lose_min.map(|m| m + 1),
                    Value::Lose => all_win && r == win_max.map(|m| m + 1),
                    Value::Draw => lose_min.is_none() && kids.iter().any(|k| k.0 == Value::Draw),
                    Value::Tie => false,
                };
                if ok { None } else { fail("disagrees with its children") }
            })
            .collect();
        assert!(
            bad.is_empty(),
            "tier {}: {} positions, first {:?}",
            q.tier_name(t),
            bad.len(),
            &bad[..bad.len().min(3)]
        );
        for &r in arrays[&t].iter().filter(|&&r| r != 0) {
            counts[(r >> 12) as usize - 1] += 1;
        }
    }
    eprintln!("checked: win {}, lose {}, tie {}, draw {}", counts[0], counts[1], counts[2], counts[3]);
}

/// The move generator on 4×4 and 5×5 boards: 300 random boards of each, their children as
/// the oracle lists them (`tests/oracles/quixo.py N children`), none where a line ends the
/// game.
#[test]
fn children_agree_with_the_oracle_on_bigger_boards() {
    let how = How { engine: Engine::Native, database: Database::Off, ..How::default() };
    let s = Catalog::new().open("quixo", &how).expect("quixo opens");
    let mut seen = 0;
    for line in include_str!("../data/quixo-children.jsonl").lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let pos = j["position"].as_str().unwrap();
        let want: Vec<String> =
            j["children"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
        let mut got: Vec<String> = s.children(pos).unwrap().into_iter().map(|(_, c)| c).collect();
        got.sort();
        assert_eq!(got, want, "{pos}");
        seen += 1;
    }
    assert_eq!(seen, 600);
}

/// `analyze`, `export` and `db bench` of a saved 3×3 tier solve read the arrays. `analyze`
/// counts the positions reachable from the empty board, by value and by remoteness, as the
/// oracle's file lists them, and their symmetry classes as the oracle counts them
/// (`python3 tests/oracles/quixo.py 3 counts`: 4,433 classes, 2,768 wins and 1,665 losses,
/// by remoteness below). `export` writes exactly the oracle's positions with its values.
#[test]
fn analyze_export_and_bench_read_the_arrays() {
    let dir = tmp("reach");
    let d = dir.to_str().unwrap();
    assert!(gamesman(&["solve", "quixo", "3x3", "--save", "--no-pack", "--db", d], &[]).status.success());
    let out = gamesman(&["analyze", "quixo", "3x3", "--db", d, "--json"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["source"], "database");
    // The oracle's positions counted here, by value and by (remoteness, value).
    let mut by_value = std::collections::BTreeMap::<String, u64>::new();
    let mut by_rem = std::collections::BTreeMap::<(u64, String), u64>::new();
    let known = oracle();
    for k in &known {
        let v = format!("{:?}", k.value).to_lowercase();
        *by_value.entry(v.clone()).or_default() += 1;
        *by_rem.entry((k.remoteness.unwrap() as u64, v)).or_default() += 1;
    }
    assert_eq!(r["positions"], known.len() as u64);
    for (v, n) in &by_value {
        assert_eq!(r["by_value"][v], *n, "{v}");
    }
    let mut got_rem = std::collections::BTreeMap::<(u64, String), u64>::new();
    for b in r["by_remoteness"].as_array().unwrap() {
        for v in ["win", "lose", "tie", "draw"] {
            let n = b[v].as_u64().unwrap();
            if n > 0 {
                got_rem.insert((b["remoteness"].as_u64().unwrap(), v.to_string()), n);
            }
        }
    }
    assert_eq!(got_rem, by_rem);
    // The classes, as the oracle counts them.
    assert_eq!(r["classes"], 4433);
    assert_eq!(
        (r["classes_by_value"]["win"].as_u64(), r["classes_by_value"]["lose"].as_u64()),
        (Some(2768), Some(1665))
    );
    let want_classes: [(u64, &str, u64); 11] = [
        (0, "win", 706),
        (0, "lose", 938),
        (1, "win", 1806),
        (1, "lose", 6),
        (2, "lose", 520),
        (3, "win", 178),
        (4, "lose", 180),
        (5, "win", 71),
        (6, "lose", 19),
        (7, "win", 7),
        (8, "lose", 2),
    ];
    for (rem, v, n) in want_classes {
        let b = r["classes_by_remoteness"].as_array().unwrap().iter().find(|b| b["remoteness"] == rem).unwrap();
        assert_eq!(b[v], n, "remoteness {rem} {v}");
    }

    // `export` from the arrays: the oracle's positions and values, no more, no less.
    let out = gamesman(&["export", "quixo", "--db", d], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut got: Vec<(String, String, Option<u64>)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                j["position"].as_str().unwrap().to_string(),
                j["value"].as_str().unwrap().to_string(),
                j["remoteness"].as_u64(),
            )
        })
        .collect();
    got.sort();
    let mut want: Vec<(String, String, Option<u64>)> = known
        .iter()
        .map(|k| (k.position.clone(), format!("{:?}", k.value).to_lowercase(), k.remoteness.map(u64::from)))
        .collect();
    want.sort();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "the export differs from the oracle");

    // From a position that is not alone in its symmetry class, only the classes are counted.
    let out = gamesman(&["analyze", "quixo", "X../.../... O", "--db", d, "--json"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["positions"], r["classes"]);
    assert!(r["counted"].as_str().unwrap().contains("up to symmetry"));

    // `db bench` reads the arrays: one lookup and one move of `play` measured.
    let out = gamesman(&["db", "bench", "quixo", "--db", d, "--samples", "200"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("positions:   39366"), "{text}");
    assert!(text.contains("play move:"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
