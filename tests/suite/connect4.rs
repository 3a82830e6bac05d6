//! Connect-Four (src/native/connect4.rs, games/connect4.rhai, games/connect4.ron) against
//! values found independently:
//!
//! - John Tromp's results for small boards, width × height, first player to move
//!   (https://tromp.github.io/c4/c4.html, "John's Connect Four Playground": every board
//!   with width + height ≤ 15), as tabulated with the move on which perfect play ends in
//!   the README of github.com/ChristopheSteininger/c4 ("Results": width 4 × height 4 a
//!   draw ending on move 16, 5 × 4 and 4 × 5 draws on move 20, 6 × 4 a win for the second
//!   player on move 24). Our text is rows × columns: Tromp's width 6, height 4 is `4x6`.
//! - an independent solver, `tests/oracles/connect4.py` (boards as strings, plain negamax
//!   with a memo, no symmetry, no tiers), which wrote `tests/data/connect4.jsonl`: a seeded
//!   sample of the positions reachable on 4×4 (k = 4 and 3), 3×5 (k = 3) and 5×4 (k = 4),
//!   each with its value and remoteness; and `tests/data/connect4_big.jsonl`, positions 16
//!   moves into 6×5 and 5×6 drawn by random moves and solved from there.

use gamesman::catalog::{Catalog, Database, Engine, How};
use gamesman::game::Value;

use crate::common;
use common::Known;

fn oracle() -> Vec<Known> {
    common::known(include_str!("../data/connect4.jsonl"))
}

/// The board part of a position text: `4x4k4` of `4x4k4/..../...`.
fn board_of(text: &str) -> &str {
    text.split('/').next().unwrap()
}

fn gamesman(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gamesman")).args(args).output().expect("gamesman runs")
}

/// A fresh folder: tests run in parallel in one process and save the same boards, so each
/// call gets its own number.
fn tmp(name: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("gamesman-connect4-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `--save` of `board` through the tier solver, then the start position's value and
/// remoteness read back from the arrays.
fn saved_start(board: &str) -> (Value, Option<u32>, std::path::PathBuf) {
    let dir = tmp(board);
    let out = gamesman(&["solve", "connect4", board, "--save", "--no-pack", "--db", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let how = How { engine: Engine::Native, database: Database::At(dir.clone()), ..How::default() };
    let mut s = Catalog::new().open("connect4", &how).expect("connect4 opens");
    assert_eq!(s.engine(), "native");
    assert_eq!(s.source(board).unwrap(), "database");
    let (sol, _) = s.value(board).expect("a value");
    (sol.value, sol.remoteness, dir)
}

/// Tromp's small boards that solve in seconds: width 4 × height 4, width 5 × height 4 and
/// width 4 × height 5 are draws (a tie: the board fills up), on moves 16, 20 and 20.
#[test]
fn tromp_small_boards_are_draws() {
    for (board, cells) in [("4x4", 16), ("4x5", 20), ("5x4", 20)] {
        let (value, remoteness, dir) = saved_start(board);
        assert_eq!((value, remoteness), (Value::Tie, Some(cells)), "{board}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Tromp: width 6 × height 4 is a win for the second player, the game ending on move 24
/// with perfect play. 160 million indices: minutes, so run by hand:
/// `cargo test --release --test suite connect4::tromp_width_6 -- --ignored`.
#[test]
#[ignore]
fn tromp_width_6_height_4_is_a_second_player_win() {
    let (value, remoteness, dir) = saved_start("4x6");
    assert_eq!((value, remoteness), (Value::Lose, Some(24)));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The oracle's file: four boards, the starts as the oracle solved them (4×4 a tie in 16 as
/// Tromp has it; Connect-3 on 4×4 a win in 9 as the script's header says).
#[test]
fn oracle_data_has_the_starts() {
    let all = oracle();
    let start = |t: &str| all.iter().find(|k| k.position == t).map(|k| (k.value, k.remoteness));
    assert_eq!(start("4x4k4/..../..../..../...."), Some((Value::Tie, Some(16))));
    assert_eq!(start("4x4k3/..../..../..../...."), Some((Value::Win, Some(9))));
    assert!(start("3x5k3/...../...../.....").is_some());
    assert_eq!(start("5x4k4/..../..../..../..../...."), Some((Value::Tie, Some(20))));
}

/// Every sampled position of the oracle, answered from the arrays of a tier solve of its
/// board: same value and remoteness, and no search.
#[test]
fn tier_save_agrees_with_the_oracle() {
    let all = oracle();
    let mut boards: Vec<&str> = all.iter().map(|k| board_of(&k.position)).collect();
    boards.dedup();
    assert_eq!(boards, ["3x5k3", "4x4k3", "4x4k4", "5x4k4"]);
    let mut wrong = Vec::new();
    for board in boards {
        let (_, _, dir) = saved_start(board);
        let how = How { engine: Engine::Native, database: Database::At(dir.clone()), ..How::default() };
        let mut s = Catalog::new().open("connect4", &how).expect("connect4 opens");
        wrong.extend(common::disagreements_from_database(
            &mut *s,
            all.iter().filter(|k| board_of(&k.position) == board),
        ));
        assert_eq!(s.visited(), 0, "every answer came from the arrays");
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(wrong.is_empty(), "{} disagreements, first: {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
}

/// The native module's own search (no database) agrees with the oracle too, and so does the
/// script on every 13th position (the script is slow).
#[test]
fn native_search_and_script_agree_with_the_oracle() {
    let all = oracle();
    for (engine, step) in [(Engine::Native, 1), (Engine::Definition, 13)] {
        // The full search: the value-first search gives the remoteness only within a share of
        // wall time, which a loaded machine can run out of (the script's remoteness came back
        // empty under load).
        let options = gamesman::solve::Options { full_search: true, ..Default::default() };
        let how = How { engine, database: Database::Off, options, ..How::default() };
        let mut s = Catalog::new().open("connect4", &how).expect("connect4 opens");
        for k in all.iter().step_by(step) {
            let (sol, _) = s.value(&k.position).expect("a value");
            assert_eq!((sol.value, sol.remoteness), (k.value, k.remoteness), "{} ({})", k.position, s.engine());
        }
    }
}

/// Positions 16 moves deep on 6×5 and 5×6 (rows × columns), drawn and solved by the oracle
/// from where they stand (`tests/data/connect4_big.jsonl`), against the native module's
/// search.
#[test]
fn native_search_agrees_with_the_oracle_on_the_big_boards() {
    let all = common::known(include_str!("../data/connect4_big.jsonl"));
    let mut boards: Vec<&str> = all.iter().map(|k| board_of(&k.position)).collect();
    boards.dedup();
    assert_eq!(boards, ["6x5k4", "5x6k4"]);
    let options = gamesman::solve::Options { full_search: true, ..Default::default() };
    let how = How { engine: Engine::Native, database: Database::Off, options, ..How::default() };
    let mut s = Catalog::new().open("connect4", &how).expect("connect4 opens");
    for k in &all {
        let (sol, _) = s.value(&k.position).expect("a value");
        assert_eq!((sol.value, sol.remoteness), (k.value, k.remoteness), "{}", k.position);
    }
}

/// The whole 6×5 and 5×6 boards, saved by the tier solver (an hour or more each on two
/// cores, so run by hand, with the folders of the databases saved, one or both, named):
/// `GAMESMAN_CONNECT4_6X5=DIR GAMESMAN_CONNECT4_5X6=DIR cargo test --release --test suite
/// connect4::the_saved_big -- --ignored`. Each start is a tie (Tromp: width 5 × height 6 and
/// width 6 × height 5 are draws), so the board fills: a tie in 30. Every position of the
/// oracle's sample is answered from the arrays with its value and remoteness.
#[test]
#[ignore]
fn the_saved_big_boards_are_ties_and_agree_with_the_oracle() {
    let all = common::known(include_str!("../data/connect4_big.jsonl"));
    let boards = [("6x5", "GAMESMAN_CONNECT4_6X5"), ("5x6", "GAMESMAN_CONNECT4_5X6")];
    let named: Vec<_> = boards.iter().filter_map(|&(b, var)| Some((b, std::env::var(var).ok()?))).collect();
    assert!(!named.is_empty(), "name the folder of a saved board: GAMESMAN_CONNECT4_6X5 or GAMESMAN_CONNECT4_5X6");
    for (board, dir) in named {
        let how = How { engine: Engine::Native, database: Database::At(dir.into()), ..How::default() };
        let mut s = Catalog::new().open("connect4", &how).expect("connect4 opens");
        assert_eq!(s.source(board).unwrap(), "database", "{board}");
        let (sol, _) = s.value(board).expect("a value");
        assert_eq!((sol.value, sol.remoteness), (Value::Tie, Some(30)), "{board}");
        let k4 = format!("{board}k4");
        let wrong = common::disagreements_from_database(&mut *s, all.iter().filter(|k| board_of(&k.position) == k4));
        assert!(wrong.is_empty(), "{board}: {} disagreements, first: {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
        assert_eq!(s.visited(), 0, "{board}: every answer came from the arrays");
    }
}

/// `gamesman check`: random positions through the script, the descriptor and the native
/// module; no disagreement.
#[test]
fn check_agrees_with_the_script_and_the_descriptor() {
    let out = gamesman(&["check", "connect4", "--count", "40", "--seed", "28"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("0 disagreements between the script and the native module"), "{text}");
    assert!(text.contains("0 disagreements between the script (games/connect4.rhai) and the descriptor"), "{text}");
}

/// Every index of every tier of a saved 4×4 solve (k = 4 and k = 3), reachable or not, agrees
/// with its children read from the same arrays: a primitive has its primitive value at
/// remoteness 0; a win has a losing child at one less and none quicker; a tie has no losing
/// child and a tying one at one less, none quicker; a loss has only winning children, the
/// slowest at one less. By induction on the number of empty cells this holds only for the
/// true values (the game has no loops), so it checks the whole index space: the numbering
/// (every index a position, children found by their index) as much as the solver.
#[test]
fn saved_arrays_are_locally_consistent() {
    use gamesman::db::array::{ArrayDb, unrec};
    use gamesman::game::Game;
    use gamesman::game::tier::{TierSpace, Tiers, tier_order};
    use gamesman::native::connect4::{C4Pos, Connect4};
    let g = Connect4::new(gamesman::game::GameInfo::native("connect4", "", gamesman::game::Kind::Partisan));
    for board in ["4x4k4", "4x4k3"] {
        let (_, _, dir) = saved_start(board);
        let db = ArrayDb::open(&dir, None).expect("the arrays open");
        let order = tier_order(&g, g.locate(&g.parse(board).unwrap()).0);
        assert_eq!(order.len(), 17, "one tier a number of pieces, 0 to 16");
        let arrays: std::collections::HashMap<u64, Vec<u16>> =
            order.iter().map(|&t| (t, db.load(t, g.tier_size(t)).expect("a tier"))).collect();
        let look = |p: &C4Pos| {
            let (t, i) = g.locate(&g.canonical(p).unwrap());
            unrec(arrays[&t][i as usize]).expect("a record")
        };
        let mut positions = 0u64;
        for &t in &order {
            for i in 0..g.tier_size(t) {
                if g.canonical_index(t, i) != i {
                    assert_eq!(arrays[&t][i as usize], 0, "index {i} is not a representative");
                    continue;
                }
                positions += 1;
                let p = g.position(t, i);
                let (v, r) = look(&p);
                let text = g.format(&p).unwrap();
                if let Some(pv) = g.primitive(&p).unwrap() {
                    assert_eq!((v, r), (pv, Some(0)), "{text}");
                    continue;
                }
                let kids: Vec<(Value, u32)> =
                    g.children(&p).unwrap().iter().map(&look).map(|(v, r)| (v, r.unwrap())).collect();
                let best = |want: Value| kids.iter().filter(|k| k.0 == want).map(|k| k.1).min();
                let want = if let Some(l) = best(Value::Lose) {
                    (Value::Win, l + 1)
                } else if let Some(t) = best(Value::Tie) {
                    (Value::Tie, t + 1)
                } else {
                    (Value::Lose, kids.iter().map(|k| k.1).max().unwrap() + 1)
                };
                assert_eq!((v, r), (want.0, Some(want.1)), "{text}");
            }
        }
        // Half the boards, and a few more: those that are their own mirror image.
        assert!(positions > 201_755 / 2 && positions < 201_755, "{positions} representatives");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A board whose tiers do not fit the memory budget even in slices is refused before
/// anything is solved or written, with one line naming the tier and what it needs: under
/// `--max-memory 1`, 6×5's 29-piece tier holds the 30-piece tier's array, C(30, 15) =
/// 155,117,520 boards at 2 bytes, and a slice of 16,384 indices at 32 bytes: 310,759,328
/// bytes, 297 MiB rounded up (the 30-piece tier, a leaf, fits in slices).
#[test]
fn a_board_past_the_memory_budget_is_refused_up_front() {
    let dir = tmp("too-big");
    let out = gamesman(&[
        "solve",
        "connect4",
        "6x5",
        "--save",
        "--no-pack",
        "--db",
        dir.to_str().unwrap(),
        "--max-memory",
        "1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("6x5k4 29 pieces") && err.contains("at least 297 MiB") && err.contains("--max-memory"),
        "{err}"
    );
    assert!(!dir.exists(), "nothing written");
}

/// A tier past the memory budget is solved in slices, and the save is the one solved whole,
/// file for file and byte for byte: 4×4 under `--max-memory 1` (its 14-piece tier, 34,320
/// boards at 32 bytes, is 1,098,240 bytes, past 1 MiB: three slices of 16,384), and with
/// every tier forced into slices of 16,384 indices (`GAMESMAN_TIER_SLICE`).
#[test]
fn tiers_in_slices_save_the_same_bytes() {
    let save = |name: &str, budget: Option<&str>, slice: Option<&str>| {
        let dir = tmp(name);
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_gamesman"));
        cmd.args(["solve", "connect4", "4x4", "--save", "--no-pack", "--db", dir.to_str().unwrap()]);
        if let Some(b) = budget {
            cmd.args(["--max-memory", b]);
        }
        match slice {
            Some(s) => cmd.env("GAMESMAN_TIER_SLICE", s),
            None => cmd.env_remove("GAMESMAN_TIER_SLICE"),
        };
        let out = cmd.output().expect("gamesman runs");
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let files = common::files(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        files
    };
    let whole = save("whole", None, None);
    // The 17 tiers (0 to 16 pieces) and the identity.
    assert_eq!(whole.len(), 18, "{:?}", whole.keys());
    assert_eq!(save("budget", Some("1"), None), whole);
    assert_eq!(save("forced", None, Some("16384")), whole);
}
