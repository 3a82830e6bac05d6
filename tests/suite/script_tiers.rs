//! Scripts with positions by index (src/script/tiers.rs, docs/scripting.md "Positions by
//! index (tiers)"): `--save` through the tier solver and the array database, checked against
//! an independent tic-tac-toe solver written here (plain negamax over 9-character boards,
//! nothing of gamesman's), and hooks that return garbage refused with one line.
//!
//! Known independently of any program: tic-tac-toe has 5,478 positions reachable from the
//! empty board (every legal board that play can reach, the empty one included), 765 up to
//! the 8 symmetries of the square, and the empty board is a tie in 9 moves.

use crate::common;
use common::{bin, root, temp_dir};
use std::collections::HashMap;

/// The value and remoteness of every position reachable from the empty board, for the player
/// to move: plain negamax with a memo. A board is over when the player who just moved has
/// three in a row (a loss for the player to move, remoteness 0) or it is full (a tie, 0).
/// Otherwise a win is one more than the quickest losing child; a loss one more than the
/// slowest child (all wins); a tie, the best the player can do without a losing child, one
/// more than its tying child (every tie of tic-tac-toe ends with the board full, so every
/// tying child has the same remoteness).
fn oracle() -> HashMap<String, (&'static str, u32)> {
    const LINES: [[usize; 3]; 8] =
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
    fn solve(b: &mut [u8; 9], memo: &mut HashMap<String, (&'static str, u32)>) -> (&'static str, u32) {
        let key = String::from_utf8(b.to_vec()).unwrap();
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let xs = b.iter().filter(|&&c| c == b'x').count();
        let os = b.iter().filter(|&&c| c == b'o').count();
        let (me, them) = if xs == os { (b'x', b'o') } else { (b'o', b'x') };
        let answer = if LINES.iter().any(|l| l.iter().all(|&i| b[i] == them)) {
            ("lose", 0)
        } else if !b.contains(&b'.') {
            ("tie", 0)
        } else {
            let mut kids = Vec::new();
            for i in 0..9 {
                if b[i] == b'.' {
                    b[i] = me;
                    kids.push(solve(b, memo));
                    b[i] = b'.';
                }
            }
            if let Some(r) = kids.iter().filter(|k| k.0 == "lose").map(|k| k.1).min() {
                ("win", r + 1)
            } else if let Some(r) = kids.iter().filter(|k| k.0 == "tie").map(|k| k.1).min() {
                ("tie", r + 1)
            } else {
                ("lose", kids.iter().map(|k| k.1).max().unwrap() + 1)
            }
        };
        memo.insert(key, answer);
        answer
    }
    let mut memo = HashMap::new();
    solve(&mut [b'.'; 9], &mut memo);
    memo
}

fn script(name: &str) -> String {
    root().join("tests/games").join(format!("{name}.rhai")).to_str().unwrap().to_string()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().expect("gamesman runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--save` of `file` must go through the tier solver (a `.tiers` directory of arrays, not a
/// redb file), and then every position `export` writes from the arrays must be one the
/// oracle reaches, with the oracle's value and remoteness, and every one the oracle reaches
/// must be written; `analyze` counts 5,478 positions and 765 classes from the arrays.
///
/// `turn`: the positions end with the player to move (`tests/games/tictactoe_turn.rhai`),
/// which must be the one the counts say, and the index space is twice as big.
fn agrees_with_oracle(file: &str, tag: &str, turn: bool) {
    let want = oracle();
    assert_eq!(want.len(), 5478, "the oracle reaches every position of tic-tac-toe");
    assert_eq!(want["........."], ("tie", 9));
    let dir = temp_dir(tag);
    let db = dir.join("db");
    let d = db.to_str().unwrap();
    let (code, _, err) = run(&["solve", file, "--save", "--no-pack", "--db", d]);
    assert_eq!(code, 0, "{err}");
    let indices = if turn { 2 * 19683 } else { 19683 };
    assert!(
        err.contains(&format!("({indices} index slots in 55 tiers)")),
        "every index of the 55 tiers (3^9 boards) is solved: {err}"
    );
    assert!(db.join("identity").is_file(), "an array database, not a redb file");
    let tier_files = std::fs::read_dir(&db)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "tier"))
        .count();
    assert_eq!(tier_files, 55, "one file a tier: every (x, o) with x + o <= 9");

    let (code, out, err) = run(&["export", file, "--db", d]);
    assert_eq!(code, 0, "{err}");
    let mut seen = 0;
    for line in out.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut pos = r["position"].as_str().unwrap();
        if turn {
            let (cells, mover) = pos.split_at(9);
            let xs = cells.matches('x').count();
            let os = cells.matches('o').count();
            assert_eq!(mover, if xs == os { "x" } else { "o" }, "{pos} is reached with the wrong player to move");
            pos = cells;
        }
        let Some(&(value, remoteness)) = want.get(pos) else { panic!("{pos} is not reachable") };
        assert_eq!(
            (r["value"].as_str().unwrap(), r["remoteness"].as_u64().unwrap() as u32),
            (value, remoteness),
            "{pos}"
        );
        seen += 1;
    }
    assert_eq!(seen, want.len(), "every reachable position exported once");

    let (code, out, err) = run(&["analyze", file, "--db", d, "--json"]);
    assert_eq!(code, 0, "{err}");
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(a["source"], "database");
    assert_eq!(a["positions"], 5478);
    assert_eq!(a["classes"], 765);
    for v in ["win", "lose", "tie"] {
        assert_eq!(a["by_value"][v].as_u64().unwrap(), want.values().filter(|w| w.0 == v).count() as u64, "{v}");
    }

    // A lookup reads the arrays (through the script's numbering of the position asked).
    let asked = if turn { "xo.......x" } else { "xo......." };
    let (code, out, err) = run(&["solve", file, asked, "--db", d, "--json"]);
    assert_eq!(code, 0, "{err}");
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["source"], "database");
    assert_eq!((s["value"].as_str().unwrap(), s["remoteness"].as_u64().unwrap() as u32), want["xo......."]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The declared board: `TIER_BOARD` with `pieces` and `from_pieces`, numbered by the native
/// ranking helper.
#[test]
fn declared_board_agrees_with_negamax() {
    agrees_with_oracle(&script("tictactoe_tiers"), "tiers-board", false);
}

/// The declared board with `turn: true`: the position carries the player to move.
/// The declared board as text with its symmetries (`TIER_BOARD`'s `text` and `symmetries`):
/// read, written and canonicalized natively, no `pieces`, `from_pieces` or `canonical`.
#[test]
fn board_as_text_with_symmetries_agrees_with_negamax() {
    agrees_with_oracle(&script("tictactoe_text"), "tiers-text", false);
}

/// Declarations of a text board that cannot work are refused on load, one line each; a
/// position that is not the board's text is refused when the solver meets it.
#[test]
fn a_text_board_that_cannot_work_is_refused() {
    let decl = r#"kinds: ["x", "o"], text: true, symmetries: SYMMETRIES }"#;
    for (tag, from, to, says) in [
        ("text-pieces", "fn to_move(b)", "fn pieces(b) { #{} }\nfn to_move(b)", "`fn pieces` would never be called"),
        ("text-canonical", "fn to_move(b)", "fn canonical(b) { b }\nfn to_move(b)", "remove `fn canonical`"),
        ("text-missing", decl, r#"kinds: ["x", "o"], symmetries: SYMMETRIES }"#, "declare `text` too"),
        ("text-perm", "[0,1,2,3,4,5,6,7,8], [2", "[0,0,2,3,4,5,6,7,8], [2", "each of `symmetries` is the 9 cells"),
        ("text-kind", decl, r#"kinds: ["xx", "o"], text: true }"#, "one printable ASCII character"),
        ("text-empty", decl, r#"kinds: ["x", "o"], text: #{ empty: "x" } }"#, "also a kind's name"),
        ("text-turns", decl, r#"kinds: ["x", "o"], text: #{ turns: ["x", "o"] } }"#, "does not declare `turn: true`"),
    ] {
        let (dir, file) = broken("tictactoe_text", tag, from, to);
        let (code, _, err) = run(&["solve", &file]);
        assert_eq!(code, 1, "{tag}: {err}");
        assert!(!err.contains("panicked"), "{tag}: {err}");
        assert!(err.contains(says) && err.contains(&file), "{tag}: {err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
    // A move that writes a character no kind has.
    refused(
        "tictactoe_text",
        "text-garbage",
        "b[i] = turn(b);",
        "b[i] = 'X';",
        &["text-garbage.rhai", "not TIER_BOARD's text", "holds 'X'"],
    );
}

#[test]
fn declared_board_with_a_turn_agrees_with_negamax() {
    agrees_with_oracle(&script("tictactoe_turn"), "tiers-turn", true);
}

/// The script's own numbering: `tier`, `index`, `position`, `tier_size`, `child_tiers`.
#[test]
fn own_hooks_agree_with_negamax() {
    agrees_with_oracle(&script("tictactoe_hooks"), "tiers-hooks", false);
}

/// `tests/games/NAME.rhai` with `from` replaced by `to`, written to a temporary file.
fn broken(name: &str, tag: &str, from: &str, to: &str) -> (std::path::PathBuf, String) {
    let text = std::fs::read_to_string(script(name)).unwrap();
    assert!(text.contains(from), "{from}");
    let dir = temp_dir(tag);
    let file = dir.join(format!("{tag}.rhai"));
    std::fs::write(&file, text.replacen(from, to, 1)).unwrap();
    (dir, file.to_str().unwrap().to_string())
}

/// `--save` of a broken script fails with one line naming what is wrong; nothing panics.
fn refused(name: &str, tag: &str, from: &str, to: &str, says: &[&str]) {
    let (dir, file) = broken(name, tag, from, to);
    let (code, _, err) = run(&["solve", &file, "--save", "--no-pack", "--db", dir.join("db").to_str().unwrap()]);
    assert_eq!(code, 1, "{tag}: {err}");
    assert!(!err.contains("panicked"), "{tag}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{tag}: one line: {err}");
    for s in says {
        assert!(err.contains(s), "{tag}: {err:?} should say {s:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_index_out_of_range_is_refused() {
    refused(
        "tictactoe_hooks",
        "index-range",
        "colex(xs) * choose(9 - xs.len(), os.len()) + colex(os)",
        "colex(xs) * choose(9 - xs.len(), os.len()) + colex(os) + 1000",
        &["index-range.rhai", "index(pos) gave 1000", "whose tier_size is"],
    );
}

#[test]
fn a_child_in_an_undeclared_tier_is_refused() {
    // child_tiers forgets the tier with one more o.
    refused(
        "tictactoe_hooks",
        "undeclared-hooks",
        "[t + 10, t + 1]",
        "[t + 10]",
        &["undeclared-hooks.rhai", "leads to", "child_tiers does not list"],
    );
    // The declared board's changes forget that o moves too.
    refused(
        "tictactoe_tiers",
        "undeclared-board",
        r#"kinds: ["x", "o"] }"#,
        r#"kinds: ["x", "o"], changes: [[1, 0]] }"#,
        &["undeclared-board.rhai", "leads to", "changes"],
    );
}

#[test]
fn pieces_that_do_not_match_the_board_are_refused() {
    // A cell past the board.
    refused(
        "tictactoe_tiers",
        "cell-range",
        "#{ x: x, o: o }",
        "#{ x: x, o: o + [9] }",
        &["pieces", "holds 9", "no cell"],
    );
    // The same cell given to both kinds.
    refused("tictactoe_tiers", "cell-twice", "#{ x: x, o: o }", "#{ x: x, o: o + x }", &["pieces", "given twice"]);
    // from_pieces that drops the o pieces: the counts of the position it builds are not the tier's.
    refused(
        "tictactoe_tiers",
        "round-trip",
        "for i in p.o { b[i] = 'o'; }",
        "",
        &["from_pieces", "must undo each other"],
    );
    // `turn: true` but no turn given.
    refused(
        "tictactoe_turn",
        "no-turn",
        "#{ x: x, o: o, turn:",
        "#{ x: x, o: o, turnx:",
        &["pieces", "`turnx` is not a kind"],
    );
    refused(
        "tictactoe_turn",
        "bad-turn",
        "turn: if b[9] == 'x' { 0 } else { 1 } }",
        "turn: 2 }",
        &["pieces", "`turn` must be 0 or 1"],
    );
    // A position that is not a map of cell lists.
    refused("tictactoe_tiers", "not-a-map", "#{ x: x, o: o }", "[x, o]", &["pieces", "not a map"]);
}

#[test]
fn position_that_does_not_undo_index_is_refused() {
    refused(
        "tictactoe_hooks",
        "position-garbage",
        "    for c in xs { b[c] = 'x'; }",
        "    for c in xs { b[c] = 'x'; }\n    if t == 10 && i == 3 { b = \"x........\"; }",
        &["position(10, 3)", "must undo each other"],
    );
}

#[test]
fn a_declaration_that_cannot_work_is_refused_on_load() {
    for (tag, from, to, says) in [
        ("board-cells", "cells: 9", "cells: 65", "`cells` must be a whole number from 1 to 64"),
        (
            "board-changes",
            r#"kinds: ["x", "o"] }"#,
            r#"kinds: ["x", "o"], changes: [[1, 0], [0, -1]] }"#,
            "no move leads back",
        ),
        ("board-hook", "fn from_pieces(p)", "fn from_pieces2(p)", "TIER_BOARD needs `fn from_pieces(..)`"),
        ("board-kind", r#"KIND = "partisan""#, r#"KIND = "impartial""#, "for partisan two-player games"),
    ] {
        let (dir, file) = broken("tictactoe_tiers", tag, from, to);
        let (code, _, err) = run(&["solve", &file]);
        assert_eq!(code, 1, "{tag}: {err}");
        assert!(err.contains(says) && err.contains(&file), "{tag}: {err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
    let (dir, file) = broken("tictactoe_hooks", "hooks-missing", "fn tier_size(t)", "fn tier_size2(t)");
    let (code, _, err) = run(&["solve", &file]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("but not `tier_size`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tier larger than the memory budget is refused before anything is allocated or solved.
#[test]
fn sizes_are_checked_against_the_budget() {
    let (dir, file) = broken("tictactoe_hooks", "budget", "choose(9, x) * choose(9 - x, o)", "1 << 31");
    let (code, _, err) = run(&["solve", &file, "--save", "--no-pack", "--db", dir.join("db").to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("more than the memory budget"), "{err}");
    assert!(!dir.join("db").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}
