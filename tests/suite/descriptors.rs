//! RON descriptors: published nim-sequences, the escape hatch, `check` against the scripts,
//! the command line, and errors with line and column. (The reference vectors run through the
//! descriptors in script_cases.rs, beside the scripts.)

use crate::common;

use common::*;
use gamesman::descriptor::DescriptorGame;
use gamesman::game::{Game, GameExt, Value};

/// Dawson's Kayles (octal game 0.07), n = 0..=100: OEIS A002187. Its values on n + 1 pins
/// are those of Dawson's chess (0.137) on n files, whose sequence has period 34 with the
/// last exceptional value at n = 51 (Winning Ways, ch. 4): so here it repeats from 53 on.
const DAWSON: [u64; 101] = [
    0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 2, 7, 4, 0, 1, 1,
    2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 2, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 3, 7, 4, 8, 1, 1, 2, 0, 3, 1,
    1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 9, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 3,
];

fn grundy<G: Game>(g: &G, text: &str) -> u64 {
    solve(g, text, false).grundy.unwrap_or_else(|| panic!("{text}: no Grundy value"))
}

#[test]
fn dawsons_kayles_nim_sequence_to_100() {
    for n in 53..=66 {
        assert_eq!(DAWSON[n], DAWSON[n + 34], "the table itself is periodic from 53");
    }
    let d = descriptor("dawsons-kayles");
    for (n, &g) in DAWSON.iter().enumerate() {
        assert_eq!(grundy(&d, &n.to_string()), g, "Dawson's Kayles {n}");
    }
}

#[test]
fn octal_0_137_is_dawsons_kayles_shifted_by_one() {
    // Dawson's chess (0.137) on n files is Dawson's Kayles on n + 1 pins.
    let src = r#"(name: "dawsons-chess", rules: Heaps(moves: [Octal("0.137")]))"#;
    let g = DescriptorGame::from_source("dawsons-chess.ron", src, None).unwrap();
    for n in 0..=60usize {
        assert_eq!(grundy(&g, &n.to_string()), DAWSON[n + 1], "0.137 at {n}");
    }
}

/// Octal codes whose last digit repeats for ever, written "0.03…" or "0.03...": 0.03… takes
/// two or more tokens, leaving a heap or none, so the options of n are every heap up to
/// n - 2 and g(n) = ⌊n/2⌋ (by hand).
#[test]
fn octal_codes_with_a_repeating_digit() {
    for code in ["0.03…", "0.03..."] {
        let src = format!(r#"(name: "two-or-more", rules: Heaps(moves: [Octal("{code}")]))"#);
        let g = DescriptorGame::from_source("two-or-more.ron", &src, None).unwrap();
        // A heap of 7: take 2 to 7, leaving 5, 4, 3, 2, 1 or nothing.
        let seven = g.parse("7").unwrap();
        assert_eq!(g.moves(&seven).unwrap().len(), 6, "{code}");
        for n in 0..=40usize {
            assert_eq!(grundy(&g, &n.to_string()), n as u64 / 2, "{code} at {n}");
        }
        assert_eq!(grundy(&g, "9,5"), 4 ^ 2);
    }
    // The sequence command says what it saw, and that it is not a proof.
    let dir = temp_dir("repeating-octal");
    let path = dir.join("two-or-more.ron");
    std::fs::write(&path, "(name: \"two-or-more\", start: \"12,7\", rules: Heaps(moves: [Octal(\"0.03…\")]))\n")
        .unwrap();
    let (code, out, err) = run(&["sequence", path.to_str().unwrap(), "--to", "2000", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("g(n + 2) = g(n) + 1 from n = 0"), "{out}");
    assert!(out.contains("seen, not proved"), "{out}");
    // The values the sequence gives agree with the game's own moves.
    let (code, out, err) = run(&["check", path.to_str().unwrap(), "--count", "30", "--seed", "4"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no disagreement"), "{out}");
    // A code whose repeated digit splits reads n/2 xors a value: 2^17 values at most, and a
    // longer --to is refused at once (there is no period to wait for).
    let path = dir.join("splits.ron");
    std::fs::write(&path, "(name: \"splits\", rules: Heaps(moves: [Octal(\"0.07…\")]))\n").unwrap();
    let (code, out, err) = run(&["sequence", path.to_str().unwrap(), "--to", "18446744073709551615"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("up to n = 131071 at most; ask for --to 131071 or less"), "{err}");
    let (code, _, err) = run(&["solve", path.to_str().unwrap(), "300000"]);
    assert_eq!(code, 1);
    assert!(err.contains("computed up to n = 131071 at most; a heap here has 300000 tokens"), "{err}");
}

#[test]
fn subtraction_134_has_period_7() {
    // S(1,3,4): 0 1 0 1 2 3 2, repeated (by hand: mex over n-1, n-3, n-4).
    let g = descriptor("subtraction-134");
    for n in 0..=100usize {
        assert_eq!(grundy(&g, &n.to_string()), [0, 1, 0, 1, 2, 3, 2][n % 7], "S(1,3,4) at {n}");
    }
    // Heaps are independent: 10 and 12 have values 1 and 3.
    assert_eq!(grundy(&g, "10,12"), 1 ^ 3);
}

#[test]
fn wythoff_does_not_split_and_keeps_two_piles() {
    let g = descriptor("nimrod");
    assert!(!g.has_split());
    let e = g.parse("1,2,3").unwrap_err().to_string();
    assert!(e.contains("has 2 heaps"), "{e}");
    assert_eq!(solve(&g, "3,5", true).value, Value::Lose);
}

#[test]
fn the_escape_hatch_decides_the_end() {
    let g = DescriptorGame::load(&root().join("tests/games/hatch.ron")).unwrap();
    // Worked by hand: from 4, taking 3 or 4 reaches a tie at once; 1 or 2 tokens are ties.
    let r = solve(&g, "4", true);
    assert_eq!((r.value, r.remoteness), (Value::Tie, Some(1)));
    assert_eq!(solve(&g, "1", true).remoteness, Some(0));
    // Two heaps of 1: the hook sees both (total 2: not over); any move ends in a tie.
    let r = solve(&g, "1,1", true);
    assert_eq!((r.value, r.remoteness), (Value::Tie, Some(1)));
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().expect("gamesman runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_descriptor_works_like_a_script_on_the_command_line() {
    let json = |args: &[&str]| -> serde_json::Value {
        let (code, out, err) = run(args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let d = json(&["solve", "games/kayles.ron", "10,7", "--json"]);
    let s = json(&["solve", "games/kayles.rhai", "10,7", "--json"]);
    assert_eq!(d["engine"], "descriptor");
    for field in ["value", "remoteness", "grundy"] {
        assert_eq!(d[field], s[field], "{field}");
    }
    assert_eq!(d["grundy"], 0, "K(10) = K(7) = 2");
    // A name finds the script first; a descriptor with no script of its name by name too.
    let (code, out, _) = run(&["solve", "dawsons-kayles", "10"]);
    assert_eq!(code, 0);
    assert!(out.contains("grundy:      3"), "{out}");
    // A descriptor that names a native module is answered by it unless asked otherwise.
    assert_eq!(json(&["solve", "games/chomp.ron", "4432", "--json"])["engine"], "native");
    let d = json(&["solve", "games/chomp.ron", "4432", "--json", "--engine", "script"]);
    assert_eq!((d["engine"].as_str(), d["winning_moves"][0]["position"].as_str()), (Some("descriptor"), Some("4111")));
    // `games` lists descriptors.
    let (_, out, _) = run(&["games"]);
    assert!(out.contains("subtraction-134.ron"), "{out}");
}

#[test]
fn check_compares_a_descriptor_with_its_script_and_its_native_module() {
    for g in ["games/kayles.ron", "games/nim.ron", "games/tactix.ron", "games/chomp.ron", "games/lightsout.ron"] {
        let (code, out, err) = run(&["check", g, "--count", "40", "--seed", "11"]);
        assert_eq!(code, 0, "{g}: {out}{err}");
        assert!(out.contains(", 0 disagreements between the descriptor"), "{out}");
    }
    let (code, out, _) = run(&["check", "games/kayles.ron", "--count", "40", "--seed", "3", "--misere"]);
    assert_eq!(code, 0, "{out}");
    // A descriptor that only pretends to be Nim is caught.
    let (code, out, _) = run(&["check", "tests/games/nim_wrong.ron", "--count", "40", "--seed", "1"]);
    assert_eq!(code, 1);
    assert!(out.contains("disagreement at"), "{out}");
    // Nothing to compare with: the game is checked against its own moves, and says so.
    let (code, out, _) = run(&["check", "games/subtraction-134.ron", "--seed", "5"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("checked against the game's own moves: no disagreement"), "{out}");
}

fn load_error(src: &str) -> String {
    common::descriptor_error("bad.ron", src)
}

#[test]
fn errors_point_at_the_line_and_column() {
    let cases: &[(&str, &str)] = &[
        // a misspelt field
        (
            "(\n    name: \"x\",\n    rules: Heaps(moves: [TakeAny]),\n    strat: \"3\",\n)",
            "bad.ron:4:5: Unexpected field named `strat`",
        ),
        // a misspelt move
        (
            "(\n    name: \"x\",\n    rules: Heaps(moves: [TakeAll]),\n)",
            "bad.ron:3:26: Unexpected variant named `TakeAll`",
        ),
        // a syntax error
        ("(\n    name: \"x\"\n    rules: Heaps(moves: [TakeAny]),\n)", "bad.ron:3:5: Expected comma"),
        // a missing field
        ("(\n    name: \"x\",\n)", "bad.ron:3:1: Unexpected missing field named `rules`"),
        // impossible combinations
        (
            "(\n    name: \"x\",\n    rules: Heaps(moves: [Octal(\"0.78\")]),\n)",
            "bad.ron:3:5: octal code \"0.78\": '8' is not an octal digit",
        ),
        (
            "(\n    name: \"x\",\n    rules: Heaps(moves: [Subtract([0, 2])]),\n)",
            "bad.ron:3:5: a subtraction set needs positive numbers",
        ),
        (
            "(\n    name: \"x\",\n    end: Misere,\n    rules: Grid(moves: Toggle(pattern: Plus)),\n)",
            "bad.ron:3:5: a puzzle has one player",
        ),
        (
            "(\n    name: \"x\",\n    kind: Partisan,\n    rules: Heaps(moves: [TakeAny]),\n)",
            "bad.ron:3:5: the rules make this game impartial, but `kind` says partisan",
        ),
        (
            "(\n    name: \"x\",\n    rules: Grid(moves: Chomp, text: Heights, components: true),\n)",
            "bad.ron:3:5: Chomp boards are one piece",
        ),
        (
            "(\n    name: \"x\",\n    rules: Grid(moves: RemoveRun(max: 0)),\n)",
            "bad.ron:3:5: RemoveRun's `max` must be at least 1",
        ),
        (
            "(\n    name: \"x\",\n    rules: Heaps(moves: [TakeEqual], heaps: 1),\n)",
            "bad.ron:3:5: TakeEqual takes from two heaps",
        ),
        (
            "(\n    name: \"x\",\n    rules: Heaps(moves: [Split], heaps: 2),\n)",
            "bad.ron:3:5: Split makes two heaps of one, so the number of heaps changes: `heaps` does not apply",
        ),
        (
            "(\n    name: \"x\",\n    rules: Heaps(moves: [Splitt]),\n)",
            "bad.ron:3:26: Unexpected variant named `Splitt`",
        ),
        ("(\n    name: \"x\",\n    rules: Heaps(moves: [Split(2)]),\n)", "bad.ron:3:"),
        (
            "(\n    name: \"x\",\n    start: \"1,x\",\n    rules: Heaps(moves: [TakeAny]),\n)",
            "bad.ron:3:5: the start position: invalid position",
        ),
    ];
    for (src, want) in cases {
        let e = load_error(src);
        assert!(e.starts_with(want), "got {e:?}, wanted it to start with {want:?}");
    }
    // From the command line: one line, exit 1.
    let dir = std::env::temp_dir().join(format!("gamesman-ron-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typo.ron");
    std::fs::write(&path, "(\n  name: \"typo\",\n  rules: Heaps(moves: [Substract([1])]),\n)\n").unwrap();
    let (code, out, err) = run(&["solve", path.to_str().unwrap(), "3"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.starts_with(&format!("gamesman: error: {}:3:24: Unexpected variant named `Substract`", path.display())),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn max_run_length_and_reflections() {
    // TacTix where a move removes at most 1 token: every token is a move of its own, so a
    // board of n tokens is n moves long whatever the play: Grundy value n mod 2.
    let src = r#"(name: "t1", rules: Grid(moves: RemoveRun(max: 1), symmetry: Reflections, components: true))"#;
    let g = DescriptorGame::from_source("t1.ron", src, None).unwrap();
    for (board, n) in [("###/###", 6), ("##/#0", 3), ("#", 1), ("#0#/###", 5)] {
        assert_eq!(grundy(&g, board), n % 2, "{board}");
    }
    // At most 2: a bar of n is then the subtraction game S(1,2) on a heap... but a run may
    // be taken from the middle, splitting the bar: it is Kayles (0.77).
    let src = r#"(name: "t2", rules: Grid(moves: RemoveRun(max: 2), symmetry: Square, components: true))"#;
    let g = DescriptorGame::from_source("t2.ron", src, None).unwrap();
    for n in 1..=12 {
        assert_eq!(grundy(&g, &"#".repeat(n)), kayles(n), "a bar of {n}");
    }
}

/// The fewest presses that turn `board` off, by trying every set of presses (rows × cols ≤
/// 12), with `reach` the cells a press at (r, c) toggles.
fn brute_force(board: &[&str], reach: &[(i64, i64)]) -> Option<u32> {
    let (h, w) = (board.len() as i64, board[0].len() as i64);
    let lit: Vec<bool> = board.iter().flat_map(|row| row.chars().map(|c| c == '#')).collect();
    let n = (h * w) as u32;
    (0u32..1 << n)
        .filter(|set| {
            let mut cells = lit.clone();
            for i in (0..n).filter(|i| set >> i & 1 == 1) {
                let (r, c) = ((i as i64) / w, (i as i64) % w);
                for &(dr, dc) in reach {
                    let (y, x) = (r + dr, c + dc);
                    if (0..h).contains(&y) && (0..w).contains(&x) {
                        cells[(y * w + x) as usize] ^= true;
                    }
                }
            }
            cells.iter().all(|&on| !on)
        })
        .map(u32::count_ones)
        .min()
}

#[test]
fn toggle_puzzles_with_every_pattern() {
    let square: Vec<(i64, i64)> = (-1..=1).flat_map(|dr| (-1..=1).map(move |dc| (dr, dc))).collect();
    let patterns: [(&str, Vec<(i64, i64)>); 3] =
        [("Cell", vec![(0, 0)]), ("Plus", vec![(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]), ("Square", square)];
    let boards = ["#0#/0##/#00", "###/###/###", "#00#/0##0/##00", "0#0/#0#", "##/#0/00/0#", "#0##/##0#/0#00"];
    for (name, reach) in &patterns {
        let src = format!("(name: \"t\", rules: Grid(moves: Toggle(pattern: {name})))");
        let g = DescriptorGame::from_source("t.ron", &src, None).unwrap();
        for b in boards {
            let rows: Vec<&str> = b.split('/').collect();
            let r = solve(&g, b, true);
            let want = brute_force(&rows, reach);
            assert_eq!(r.remoteness, want, "{name} {b}");
            assert_eq!(r.value == Value::Win, want.is_some(), "{name} {b}");
        }
    }
}

#[test]
fn huge_positions_are_refused_not_listed() {
    // 10^11 tokens: 10^11 moves to list. A clear error, not an out-of-memory abort.
    for (game, pos) in [("games/nim.ron", "1000000,3"), ("games/kayles.ron", "99999999999")] {
        let (code, out, err) = run(&["solve", game, pos, "--engine", "script"]);
        assert_eq!((code, out.as_str()), (1, ""), "{err}");
        assert!(err.contains("more than the 1000000 a search can list"), "{err}");
    }
    // Nim's values grow with the heap: they are computed to 2^24 - 1 at most, and past that
    // the descriptor says why it cannot tell.
    let (code, out, err) = run(&["solve", "games/nim.ron", "1000000000000,3", "--engine", "script"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.contains("computed up to n = 16777215 at most") && err.contains("a heap here has 1000000000000 tokens"),
        "{err}"
    );
}

/// The nim-sequence engine (`gamesman sequence`) against the published sequences, and the
/// periods they are known to have: Kayles (0.77) period 12 with the last exceptional value at
/// n = 70, Dawson's Kayles (0.07) period 34 with the last at 52, S(1,3,4) period 7.
#[test]
fn nim_sequences_and_their_periods() {
    let mut k = descriptor("kayles").nim_sequence().map(|s| s.clone()).expect("Kayles has a sequence");
    for n in 0..=100 {
        assert_eq!(k.get(n), kayles(n), "Kayles {n}");
    }
    k.extend_to(1000); // the theorem needs n up to 2·71 + 12 + 2 to confirm the period
    assert_eq!(k.period(), Some((71, 12)));
    let mut d = descriptor("dawsons-kayles").nim_sequence().map(|s| s.clone()).unwrap();
    for (n, &g) in DAWSON.iter().enumerate() {
        assert_eq!(d.get(n), g, "Dawson's Kayles {n}");
    }
    d.extend_to(1000);
    assert_eq!(d.period(), Some((53, 34)));
    let mut s = descriptor("subtraction-134").nim_sequence().map(|s| s.clone()).unwrap();
    assert_eq!((0..14).map(|n| s.get(n)).collect::<Vec<_>>(), vec![0, 1, 0, 1, 2, 3, 2, 0, 1, 0, 1, 2, 3, 2]);
    s.extend_to(100);
    assert_eq!(s.period(), Some((0, 7)));
    // Nim (TakeAny, the octal code 0.3…) has one too, g(n) = n; Wythoff's game, whose
    // moves take from two heaps at once, has none.
    let mut nim = descriptor("nim").nim_sequence().map(|s| s.clone()).expect("Nim is 0.3…");
    assert_eq!((0..50).map(|n| nim.get(n)).collect::<Vec<_>>(), (0..50).collect::<Vec<u64>>());
    assert!(descriptor("nimrod").nim_sequence().is_none());

    let (code, out, _) = run(&["sequence", "kayles.ron", "--to", "100000", "--quiet"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("period 12 from n = 71 (the last value off the period is at n = 70)"), "{out}");
}

/// `gamesman sequence` takes an octal code as it is written, as `ogsolve` does: Kayles by its
/// code and by its bare name (the descriptor, though kayles.rhai exists too), Dawson's chess
/// (0.137: period 34, last exceptional value at n = 51, Winning Ways ch. 4), and a code that is
/// not octal named for its digit.
#[test]
fn sequence_takes_an_octal_code() {
    for game in ["0.77", "kayles"] {
        let (code, out, err) = run(&["sequence", game, "--to", "1000", "--quiet"]);
        assert_eq!(code, 0, "{game}: {err}");
        assert!(out.starts_with("period 12 from n = 71 (the last value off the period is at n = 70)"), "{game}: {out}");
    }
    let (code, out, err) = run(&["sequence", "0.137", "--to", "1000", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("period 34 from n = 52 (the last value off the period is at n = 51)"), "{out}");
    let (code, out, _) = run(&["sequence", "0.137", "--to", "11"]);
    assert_eq!(code, 0);
    // Dawson's chess on n files is Dawson's Kayles on n + 1 pins (OEIS A002187).
    let want: Vec<String> = DAWSON[1..13].iter().map(u64::to_string).collect();
    assert!(out.starts_with(&format!("       0: {}\n", want.join(" "))), "{out}");
    let (code, _, err) = run(&["sequence", "0.78"]);
    assert_eq!(code, 1);
    assert!(err.contains(r#"octal code "0.78": '8' is not an octal digit"#), "{err}");
}

#[test]
fn a_heap_of_100000_is_answered_from_the_sequence() {
    // Kayles 100000: Grundy value from the Winning Ways table's period; every winning move
    // leaves two rows whose table values are equal.
    let (code, out, err) = run(&["solve", "kayles.ron", "100000", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["grundy"].as_u64(), Some(kayles(100_000)));
    assert_eq!(v["value"], "win");
    let moves = v["winning_moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    for m in moves {
        let rows: Vec<usize> = m["position"].as_str().unwrap().split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(rows.iter().fold(0, |acc, &r| acc ^ kayles(r)), 0, "{m}");
    }
}

/// Grundy's game (`Split`), n = 0..=104: OEIS A002188 ("Sprague-Grundy values for Grundy's
/// game", its first terms, https://oeis.org/A002188; Guy and Smith 1956, table 4).
const A002188: [u64; 105] = [
    0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3, 0, 4, 1, 2, 3, 1, 2, 4, 1, 2, 4, 1,
    2, 4, 1, 5, 4, 1, 5, 4, 1, 5, 4, 1, 0, 2, 1, 0, 2, 1, 5, 2, 1, 3, 2, 1, 3, 2, 4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 3, 2,
    4, 3, 2, 4, 5, 2, 4, 5, 2, 4, 3, 7, 4, 3, 7, 4, 3, 7, 4, 3, 5, 2, 3, 5, 2, 3, 5, 2, 3,
];

/// `games/grundys-game.ron` through the nim-sequence engine: the published terms, then the
/// values of tests/oracles/grundy.py (the mex by the definition) to n = 2000; the sequence
/// command and `solve` agree, and no period is claimed.
#[test]
fn grundys_game_by_the_sequence_engine() {
    let oracle: Vec<u64> = std::fs::read_to_string("tests/data/grundys-game.txt")
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(oracle.len(), 2001);
    assert_eq!(&oracle[..105], &A002188[..], "the oracle against OEIS");
    let game = descriptor("grundys-game");
    let mut seq = game.nim_sequence().map(|s| s.clone()).expect("Split has a nim-sequence");
    for (n, &g) in oracle.iter().enumerate() {
        assert_eq!(seq.get(n), g, "Grundy's game, heap {n}");
    }
    assert_eq!(seq.period(), None);
    // A sum of heaps: the XOR, and the search over the moves agrees where it is small.
    assert_eq!(grundy(&game, "7,5,20"), oracle[7] ^ oracle[5] ^ oracle[20]);
    let (code, out, err) = run(&["sequence", "grundys-game", "--to", "23"]);
    assert_eq!(code, 0, "{err}");
    let row = |from: usize| A002188[from..from + 12].iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
    assert!(out.starts_with(&format!("       0: {}\n      12: {}\n", row(0), row(12))), "{out}");
    assert!(out.contains("no period can be confirmed"), "{out}");
    // The winning moves of a heap of 13 (value 3): the splits to a position of value 0.
    let (code, out, err) = run(&["solve", "grundys-game", "13", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["grundy"].as_u64(), Some(3));
    let want: Vec<String> =
        (1..7).filter(|&a| oracle[a] == oracle[13 - a]).map(|a| format!("{a},{}", 13 - a)).collect();
    let got: Vec<&str> =
        v["winning_moves"].as_array().unwrap().iter().map(|m| m["position"].as_str().unwrap()).collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

/// `gamesman check`: the descriptor against tests/games/grundy.rhai (the same game written as
/// a script, its moves in Rhai), paired by name in a folder of their own.
#[test]
fn grundys_game_agrees_with_its_script() {
    let dir = std::env::temp_dir().join(format!("gamesman-grundy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("games/grundys-game.ron", dir.join("grundy.ron")).unwrap();
    std::fs::copy("tests/games/grundy.rhai", dir.join("grundy.rhai")).unwrap();
    let ron = dir.join("grundy.ron");
    for from in ["10", "17", "9,6,4"] {
        let (code, out, err) = run(&["check", ron.to_str().unwrap(), "--from", from, "--count", "40", "--seed", "7"]);
        assert_eq!(code, 0, "{from}: {out}{err}");
        assert!(out.contains(", 0 disagreements between the descriptor"), "{out}");
    }
    // Misère play has no sequence: the search answers from the moves, and agrees too.
    let (code, out, err) = run(&["check", ron.to_str().unwrap(), "--count", "40", "--seed", "7", "--misere"]);
    assert_eq!(code, 0, "misère: {out}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fair Shares and Varied Pairs (`games/fsvp.ron`: `SplitEqual` and `MergeUnequal`), loopy:
/// every position for N = 4..12 and 20, as GamesmanOne solved them and as the retrograde
/// oracle `tests/oracles/fsvp.py` agrees (tests/data/README.md), value and remoteness.
#[test]
fn fsvp_agrees_with_gamesmanone_on_every_position_to_20() {
    let text = std::fs::read_to_string(root().join("tests/data/fsvp.jsonl")).unwrap();
    let game = descriptor("fsvp");
    let mut seen = std::collections::BTreeMap::new();
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let n = row["n"].as_u64().unwrap();
        if n > 20 {
            continue;
        }
        let heaps: Vec<String> = row["heaps"].as_array().unwrap().iter().map(|h| h.to_string()).collect();
        let position = heaps.join(",");
        let r = solve(&game, &position, true);
        let want = match row["value"].as_str().unwrap() {
            "win" => Value::Win,
            "lose" => Value::Lose,
            "draw" => Value::Draw,
            v => panic!("{v}"),
        };
        assert_eq!(r.value, want, "N = {n}: {position}");
        assert_eq!(r.remoteness.map(u64::from), row["remoteness"].as_u64(), "N = {n}: {position}");
        *seen.entry(n).or_insert(0) += 1;
    }
    // Every partition of each N (p(N), OEIS A000041).
    let p = [(4, 5), (5, 7), (6, 11), (7, 15), (8, 22), (9, 30), (10, 42), (11, 56), (12, 77), (20, 627)];
    assert_eq!(seen, p.into_iter().collect());
}

/// Fair Shares and Varied Pairs loops, and its keys (partitions, `heap_keys.rs`) are solved
/// whole by retrograde analysis on the keys themselves: every position the solver expands is
/// a key, and every partition of 30 gets the value and remoteness of the search on positions
/// (a second implementation, the one checked against GamesmanOne above).
#[test]
fn fsvp_loops_are_solved_on_keys() {
    use gamesman::solve::value::ValueSolver;
    let game = std::rc::Rc::new(descriptor("fsvp"));
    let mut keys = ValueSolver::new(game.clone(), 1 << 28, false);
    let mut plain = ValueSolver::new(game.clone(), 1 << 28, false).without_keys();
    let start = game.parse("30").unwrap();
    let (root, _) = keys.solve(&start).unwrap();
    assert!(keys.visited() > 0);
    assert_eq!(keys.visited_on_keys(), keys.visited(), "a position searched off the keys");
    assert_eq!(plain.solve(&start).unwrap().0, root);
    assert_eq!(plain.visited_on_keys(), 0);
    // Every partition of 30, largest part first.
    fn partitions(left: u64, max: u64, cur: &mut Vec<u64>, out: &mut Vec<String>) {
        if left == 0 {
            out.push(cur.iter().map(u64::to_string).collect::<Vec<_>>().join(","));
        }
        for p in (1..=left.min(max)).rev() {
            cur.push(p);
            partitions(left - p, p, cur, out);
            cur.pop();
        }
    }
    let mut all = Vec::new();
    partitions(30, 30, &mut Vec::new(), &mut all);
    assert_eq!(all.len(), 5604, "p(30), OEIS A000041");
    let mut draws = 0;
    for text in &all {
        let pos = game.parse(text).unwrap();
        let (k, p) = (keys.solve(&pos).unwrap().0, plain.solve(&pos).unwrap().0);
        assert_eq!(k, p, "{text}");
        draws += usize::from(k.value == Value::Draw);
    }
    assert_eq!(keys.visited_on_keys(), keys.visited());
    assert!(draws > 0, "a loopy game with no draws among 5,604 positions");
}

#[test]
fn fsvp_moves_and_their_errors() {
    let game = descriptor("fsvp");
    let pos = game.parse("6,3,1").unwrap();
    let mut kids: Vec<String> =
        game.children(&pos).unwrap().iter().map(|c| game.format(&game.canonical(c).unwrap()).unwrap()).collect();
    kids.sort();
    kids.dedup();
    // 6 into 3+3, 2+2+2 or six 1s; 3 into three 1s; merges 6+3, 6+1, 3+1.
    let mut want = vec!["1,3,3,3", "1,2,2,2,3", "1,1,1,1,1,1,1,3", "1,1,1,1,6", "1,9", "3,7", "4,6"];
    want.sort();
    assert_eq!(kids, want);
    // Two equal heaps cannot merge, and 1s cannot split: the end.
    assert!(game.children(&game.parse("1,1,1").unwrap()).unwrap().is_empty());
    let e = descriptor_error("m.ron", "(name: \"m\", rules: Heaps(moves: [MergeUnequal], heaps: Some(3)))");
    assert!(e.contains("MergeUnequal makes one heap of two"), "{e}");
    let e = descriptor_error("s.ron", "(name: \"s\", rules: Heaps(moves: [SplitEqual], heaps: Some(2)))");
    assert!(e.contains("SplitEqual makes several heaps of one"), "{e}");
}
