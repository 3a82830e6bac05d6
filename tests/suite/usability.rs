//! What a new user tripped over (issue #12): each test fails on the behaviour reported and
//! passes on the fix. Values are independent facts: who has three in a row, the Grundy values
//! of Cram boards (known results), distances on a ring worked out by hand.

use crate::common;

use common::root;
use gamesman::descriptor::DescriptorGame;
use gamesman::game::{Game, GameError, GameExt};
use gamesman::script::ScriptGame;

fn run(args: &[&str]) -> (i32, String, String) {
    common::run_in(args, "")
}

/// An error: exit status 1, `needle` on stderr, no panic.
fn fails_with(args: &[&str], needle: &str) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 1, "{args:?}: stdout {out}\nstderr {err}");
    assert!(err.contains(needle), "{args:?}: expected {needle:?} in\n{err}");
    assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
    err
}

const U: &str = "tests/games/usability";

fn u(name: &str) -> String {
    format!("{U}/{name}")
}

// --- 1. Descriptors: unknown fields at every level; Cram as a descriptor ------------------

fn descriptor_error(text: &str) -> String {
    common::descriptor_error("d.ron", text)
}

#[test]
fn descriptors_refuse_misspelt_fields_in_nested_structs() {
    let cases = [
        // (descriptor, line:col of the bad field, the field)
        ("(name: \"c\", rules: Grid(moves: RemoveRun(mn: 2, max: 2)))", "d.ron:1:42", "mn"),
        ("(name: \"h\", rules: Heaps(moves: [TakeAny, TakeEqual], heapz: 2))", "d.ron:1:55", "heapz"),
        ("(name: \"g\",\n rules: Grid(moves: RemoveRun(max: None), compnents: false))", "d.ron:2:43", "compnents"),
        ("(name: \"l\", rules: Grid(moves: Toggle(pattern: Plus, wrap: true)))", "d.ron:1:54", "wrap"),
        (
            "(name: \"e\", end: Script(file: \"x.rhai\", fnction: \"p\"), rules: Heaps(moves: [TakeAny]))",
            "d.ron:1:41",
            "fnction",
        ),
    ];
    for (text, at, field) in cases {
        let e = descriptor_error(text);
        assert!(e.starts_with(at), "{text}: expected {at} in {e}");
        assert!(e.contains(&format!("`{field}`")), "{text}: {e}");
    }
}

#[test]
fn remove_run_takes_a_minimum() {
    assert!(
        descriptor_error("(name: \"c\", rules: Grid(moves: RemoveRun(min: 3, max: 2)))")
            .contains("more than its `max`")
    );
    assert!(descriptor_error("(name: \"c\", rules: Grid(moves: RemoveRun(min: 0)))").contains("at least 1"));
}

#[test]
fn cram_as_a_descriptor_has_the_known_grundy_values() {
    // Known Cram values (Gardner; Uiterwijk's tables): 3×3 0, 3×4 1, 4×4 0, 4×5 2.
    let cram = DescriptorGame::load(&root().join("games/cram.ron")).unwrap();
    for (board, want) in
        [("###/###/###", 0), ("####/####/####", 1), ("####/####/####/####", 0), ("#####/#####/#####/#####", 2)]
    {
        let r = common::solve(&cram, board, false);
        assert_eq!(r.grundy, Some(want), "{board}");
    }
    // An odd board by even: 1×2 has one move, then nothing (grundy 1); 1×3 too (one domino).
    assert_eq!(common::solve(&cram, "##", true).grundy, Some(1));
    assert_eq!(common::solve(&cram, "###", true).grundy, Some(1));
}

#[test]
fn cram_as_a_script_has_the_known_grundy_values() {
    // The same known values, and 5×5 = 0, from `cram.rhai` (dominoes as `segments(2, 2)`,
    // `children` as `run_removals(2, 2)`); the descriptor agrees on 5×5 too.
    let script = gamesman::script::ScriptGame::load(&root().join("games/cram.rhai")).unwrap();
    let five = "#####/#####/#####/#####/#####";
    for (board, want) in [
        ("###/###/###", 0),
        ("####/####/####", 1),
        ("####/####/####/####", 0),
        ("#####/#####/#####/#####", 2),
        (five, 0),
    ] {
        assert_eq!(common::solve(&script, board, false).grundy, Some(want), "{board}");
    }
    let descriptor = DescriptorGame::load(&root().join("games/cram.ron")).unwrap();
    assert_eq!(common::solve(&descriptor, five, false).grundy, Some(0));
}

// --- 2. `moves` at a finished position ---------------------------------------------------

#[test]
fn moves_lists_nothing_where_the_game_is_over() {
    // X has three in a row: the game is over, O to move has lost.
    let (code, out, _) = run(&["moves", "tictactoe", "xxxoo...."]);
    assert_eq!(code, 0);
    assert!(out.contains("no moves: the game is over here (lose for the player to move)"), "{out}");
    let (_, json, _) = run(&["moves", "tictactoe", "xxxoo....", "--json"]);
    assert_eq!(json.trim(), "[]");
    // A solved puzzle: nothing to press.
    let (_, out, _) = run(&["moves", "lightsout", "00/00", "--engine", "script"]);
    assert!(out.contains("the puzzle is solved here"), "{out}");
}

// --- 3. `play` names the winner by whose turn it is ---------------------------------------

#[test]
fn play_names_the_player_who_made_three_in_a_row() {
    let (code, out, _) = run(&["play", "tictactoe", "xxxoo...."]);
    assert_eq!(code, 0);
    assert!(out.trim_end().ends_with("X wins!"), "{out}");
}

#[test]
fn play_from_a_position_with_o_to_move_lets_o_move() {
    let (code, out, _) = run(&["play", "tictactoe", "x........", "--x", "perfect", "--o", "perfect", "--seed", "1"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[3], "O to move (perfect)", "{out}");
    assert!(lines[4].starts_with("O plays "), "{out}");
    // The board after O's move has one o.
    assert_eq!(lines[5..8].concat().matches('o').count(), 1, "{out}");
    // Perfect play from one X in a corner is a tie.
    assert!(out.trim_end().ends_with("It is a tie."), "{out}");
}

#[test]
fn play_uses_the_scripts_player_names() {
    // 3, White to move: either move reaches 4, so White wins at once.
    let (code, out, _) = run(&["play", &u("turns.rhai"), "3,w", "--x", "perfect", "--o", "perfect"]);
    assert_eq!(code, 0);
    assert!(out.contains("White to move (perfect)"), "{out}");
    assert!(out.contains("White plays "), "{out}");
    assert!(out.trim_end().ends_with("White wins!"), "{out}");
    // 2, Black to move: Black adds 2 and wins.
    let (_, out, _) = run(&["play", &u("turns.rhai"), "2,b", "--x", "perfect", "--o", "random"]);
    assert!(out.trim_end().ends_with("Black wins!"), "{out}");
    fails_with(&["solve", &u("bad_players.rhai"), "x"], "PLAYERS must be an array of two names");
}

// --- 4. `analyze` counts a whole puzzle, even from its goal --------------------------------

#[test]
fn analyze_counts_a_puzzle_from_its_goal() {
    let (code, out, _) = run(&["analyze", &u("ring.rhai"), "0", "--json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["positions"], 5, "{v}");
    let by_r: Vec<(u64, u64)> = v["by_remoteness"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["remoteness"].as_u64().unwrap(), e["solvable"].as_u64().unwrap()))
        .collect();
    assert_eq!(by_r, vec![(0, 1), (1, 2), (2, 2)], "{v}");
}

// --- 5. A `children` that disagrees with `moves` + `play` ---------------------------------

#[test]
fn a_wrong_children_is_caught() {
    // 8 under take-1-or-2 is a win (8 mod 3 = 2): with the bad children it would look lost.
    let err = fails_with(&["solve", &u("wrong_children.rhai"), "8"], "children disagrees with moves + play at 8");
    assert!(err.contains("wrong_children.rhai:7:"), "{err}");
    assert!(err.contains("only moves + play give [6]"), "{err}");
}

#[test]
fn check_finds_a_canonical_that_changes_values() {
    let (code, out, _) = run(&["check", &u("wrong_canonical.rhai"), "--seed", "1"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("canonical maps it to 3"), "{out}");
}

#[test]
fn check_finds_parts_that_do_not_add_up() {
    let (code, out, _) = run(&["check", &u("wrong_parts.rhai"), "--seed", "1"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("split gives the parts"), "{out}");
}

#[test]
fn check_passes_correct_lone_games() {
    for (game, from) in
        // (tictactoe.rhai has tictactoe.ron beside it now: notakto.ron is a lone board game.)
        [
            ("games/notakto.ron", None),
            (&u("parts_ok.rhai")[..], Some("3,4,5")),
            (&u("ring.rhai")[..], Some("3")),
        ]
    {
        let mut args = vec!["check", game, "--count", "60", "--seed", "7"];
        if let Some(f) = from {
            args.extend(["--from", f]);
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{game}: {out}{err}");
        assert!(out.contains("no disagreement"), "{out}");
    }
}

// --- 6. `play` returning () ----------------------------------------------------------------

#[test]
fn a_function_returning_unit_is_named_where_it_is() {
    let err =
        fails_with(&["solve", &u("unit_play.rhai"), "3"], "unit_play.rhai:5: play returned () instead of a position");
    assert!(err.contains("`b[i] = x;`"), "{err}");
}

// --- 7. A hook named `split` hijacks `text.split(...)` -------------------------------------

#[test]
fn the_split_clash_is_detected_and_parts_works() {
    fails_with(
        &["solve", &u("split_clash.rhai"), "3,4,5"],
        "split_clash.rhai:5:16: this calls the string method `split`",
    );
    let g = ScriptGame::load(&root().join(u("parts_ok.rhai"))).unwrap();
    assert!(g.has_split());
    // 3 xor 4 xor 5 = 2.
    assert_eq!(common::solve(&g, "3,4,5", false).grundy, Some(2));
}

// --- 8. `check` beside a descriptor, `bench` of any game ----------------------------------

#[test]
fn check_a_script_compares_it_with_the_descriptor_beside_it() {
    let (code, out, err) = run(&["check", "games/kayles.rhai", "--count", "30", "--seed", "3"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("0 disagreements between the script") && out.contains("kayles.ron"), "{out}");
}

#[test]
fn bench_measures_any_game_and_refuses_unknown_ones() {
    let (code, out, err) = run(&["bench", &u("ring.rhai"), "--position", "3", "--repeat", "1"]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("| ring |")).unwrap_or_else(|| panic!("no row:\n{out}"));
    assert!(row.contains("`3`"), "{row}");
    assert!(!out.contains("Native modules"), "empty tables printed:\n{out}");
    fails_with(&["bench", &u("turns.rhai")], "no start position");
    fails_with(&["bench", "no-such-game"], "no game named");
    // The nim-sequence benchmarks alone, with the periods Winning Ways gives for Kayles
    // (12 from n = 71) and Dawson's Kayles (34 from n = 53), and Nim's g(n) = n.
    let (code, out, err) = run(&["bench", "sequence", "--repeat", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| 0.77 | 100000 | period 12 from n = 71 |"), "{out}");
    assert!(out.contains("| 0.07 | 100000 | period 34 from n = 53 |"), "{out}");
    assert!(out.contains("| 0.3… | 1000000 | g(n + 1) = g(n) + 1 (seen) |"), "{out}");
    assert!(!out.contains("Scripts ("), "{out}");
}

// --- 9. Errors that help -------------------------------------------------------------------

#[test]
fn sandbox_limits_name_the_line() {
    let err = fails_with(&["solve", &u("deep.rhai"), "3"], "deep.rhai:4:14: more than 64 nested function calls");
    assert!(err.contains("moves → down ×64"), "{err}");
    fails_with(&["solve", &u("loop_in_helper.rhai"), "3"], "loop_in_helper.rhai:6:14: the script used more than");
}

#[test]
fn text_that_parse_int_refuses_is_an_invalid_position() {
    let g = ScriptGame::load(&root().join(u("deep.rhai"))).unwrap();
    match g.parse("x3") {
        Err(GameError::BadPosition(why)) => assert!(why.contains("x3") && why.contains("deep.rhai:3:"), "{why}"),
        other => panic!("{other:?}"),
    }
    fails_with(&["solve", "lightsout", "#0/00 @x", "--engine", "script"], "invalid position");
}

#[test]
fn counts_agree_with_their_nouns() {
    let (_, out, _) = run(&["analyze", "tictactoe", "xxxoo...."]);
    assert!(out.contains("positions:   1 reachable, 0 moves between them"), "{out}");
    assert!(out.contains("visited:     1 position\n"), "{out}");
    let (_, out, _) = run(&["analyze", &u("ring.rhai"), "3"]);
    assert!(out.contains("longest:     2 moves"), "{out}");
    let (_, out, _) = run(&["analyze", &u("ring.rhai"), "0"]);
    assert!(!out.contains("1 moves"), "{out}");
    let (_, _, err) = run(&["moves", "nim", "1"]);
    assert!(err.contains("visited 1 position in") || err.contains("visited 2 positions in"), "{err}");
}

// --- Issue #29, 6: what a new user tripped over in the second round ------------------------

/// Domineering on 2×2 written without `primitive`: the vertical player (first) takes a
/// column; the horizontal player then has no two cells side by side and loses. By hand: a win
/// for the first player in 1.
#[test]
fn a_partisan_script_without_primitive_is_normal_play() {
    let dir = common::temp_dir("partisan-no-primitive");
    let file = dir.join("tiny-domineering.rhai");
    std::fs::write(
        &file,
        r#"
const NAME = "tiny-domineering";
const KIND = "partisan";
const START = "....|v";
fn parse(t) { let s = t.split("|"); [s[0], s[1]] }
fn format(p) { `${p[0]}|${p[1]}` }
// Cells 0 1 / 2 3. Vertical covers 0+2 or 1+3; horizontal 0+1 or 2+3.
fn moves(p) {
    let pairs = if p[1] == "v" { [[0, 2], [1, 3]] } else { [[0, 1], [2, 3]] };
    pairs.filter(|q| p[0][q[0]] == '.' && p[0][q[1]] == '.')
}
fn play(p, m) {
    let b = p[0];
    b[m[0]] = '#';
    b[m[1]] = '#';
    [b, if p[1] == "v" { "h" } else { "v" }]
}
"#,
    )
    .unwrap();
    let (code, out, err) = run(&["solve", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value:       win") && out.contains("remoteness:  1"), "{out}");
    // A puzzle still needs its goal.
    let puzzle = dir.join("goalless.rhai");
    std::fs::write(
        &puzzle,
        "const NAME = \"goalless\";\nconst KIND = \"puzzle\";\nfn parse(t) { t }\nfn format(p) { p }\nfn moves(p) { [] }\nfn play(p, m) { p }\n",
    )
    .unwrap();
    fails_with(&["solve", puzzle.to_str().unwrap(), "x"], "a puzzle must define `fn primitive(pos)`");
}

/// Seconds since 1970 as `YYYY-MM-DDThh:mm:ssZ`, by Howard Hinnant's days-to-civil
/// algorithm: a second implementation beside the binary's (humantime).
fn iso_utc(secs: u64) -> String {
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

#[test]
fn the_civil_date_oracle_knows_its_calendar() {
    assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
    // 2000 was a leap year (divisible by 400): 30 years of days, 7 of them leap, then 59.
    assert_eq!(iso_utc((30 * 365 + 7 + 59) * 86_400), "2000-02-29T00:00:00Z");
    assert_eq!(iso_utc(u64::from(u32::MAX)), "2106-02-07T06:28:15Z");
}

/// `db info` gives dates as ISO 8601 dates and times in UTC, and the same bytes a position
/// as the save said: the file's size over its positions, read here from the file itself.
#[test]
fn db_info_dates_and_sizes_agree_with_the_save() {
    let dir = common::temp_dir("db-info-dates");
    let db = dir.join("t.redb");
    let db = db.to_str().unwrap();
    let (code, _, err) = run(&["solve", "tictactoe", "--save", "--db", db]);
    assert_eq!(code, 0, "{err}");
    let said = err.split(" MiB, ").nth(1).and_then(|s| s.split(' ').next()).unwrap().to_string();
    let (code, out, err) = run(&["db", "info", db]);
    assert_eq!(code, 0, "{err}");
    let store = gamesman::db::Store::open(std::path::Path::new(db), None).unwrap();
    let secs: u64 = store.meta()["created"].parse().unwrap();
    let created = out.lines().find(|l| l.starts_with("created:")).unwrap();
    assert_eq!(created.trim_start_matches("created:").trim(), iso_utc(secs), "{out}");
    let per = out.split(" bytes, ").nth(1).and_then(|s| s.split(' ').next()).unwrap();
    let want = std::fs::metadata(db).unwrap().len() as f64 / store.len().unwrap() as f64;
    assert_eq!(store.len().unwrap(), 5478, "tic-tac-toe's positions reachable from the empty board");
    assert_eq!(said, format!("{want:.1}"), "the save");
    assert_eq!(per, said, "db info against the save");
}

/// `check` on a puzzle with nothing to compare it with: the 8-puzzle (181,440 positions) is
/// solved once for all the sampled positions, not once per position and child.
#[test]
fn check_on_a_puzzle_solves_it_once() {
    let (code, out, err) = run(&["check", "tests/games/eight_puzzle.rhai", "--count", "30", "--seed", "7"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("30 random positions") && out.contains("no disagreement"), "{out}");
}

// --- A mistyped flag is named, not taken as the position --------------------------------

#[test]
fn a_mistyped_flag_is_named_with_the_nearest_one() {
    // Every command that takes a position, and a sum: the word is named as a flag the command
    // does not have, with the flag it is nearest to where there is one (clap's suggestion).
    let cases: [(&[&str], &str, Option<&str>); 8] = [
        (&["solve", "tictactoe", "--no-remotenes"], "--no-remotenes", Some("--no-remoteness")),
        (&["solve", "tictactoe", "x........", "--no-remotenes"], "--no-remotenes", Some("--no-remoteness")),
        (&["moves", "tictactoe", "--jsn"], "--jsn", Some("--json")),
        (&["analyze", "tictactoe", "--mizere"], "--mizere", Some("--misere")),
        (&["strategy", "tictactoe", "xo.......", "--full-search"], "--full-search", None),
        (&["play", "tictactoe", "--no-dbb"], "--no-dbb", Some("--no-db")),
        (&["export", "nim", "--literl"], "--literl", Some("--literal")),
        (&["solve", "nim:3 + kayles:4", "--no-remotenes"], "--no-remotenes", Some("--no-remoteness")),
    ];
    for (args, typo, near) in cases {
        let (code, out, err) = run(args);
        assert_ne!(code, 0, "{args:?}: {out}");
        assert!(err.contains(&format!("unexpected argument '{typo}'")), "{args:?}: {err}");
        if let Some(near) = near {
            assert!(err.contains(&format!("a similar argument exists: '{near}'")), "{args:?}: {err}");
        }
        assert!(!err.contains("position") && !err.contains("panicked"), "{args:?}: {err}");
    }
    // A position that does start with `--` goes after `--`: then it is the position (and
    // this one is not a board of 9 cells).
    fails_with(&["solve", "tictactoe", "--", "--no-remotenes"], "invalid position");
    // A position starting with one `-` (stdin) is still a position.
    let (code, out, err) = common::run_in(&["solve", "tictactoe", "-", "--no-db"], "xo.......");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value:       win"), "{out}");
}
