//! Board games a new user wrote as descriptors from README.md and docs/descriptors.md alone
//! (tests/games/newuser_*.ron, and two inline), each checked against a plain search written
//! here without anything from src/: a negamax over two bitmasks for k in a row, a mex over a
//! bitmask for Cram, a breadth-first search for the sliding puzzle. The same searches in
//! Python are tests/oracles/newuser_inrow.py, newuser_cram.py and newuser_puzzles.py, and
//! gave the same numbers. Then the typos such a user makes, through the command line: each
//! error is one line naming the file, the line and the column (found here in the source text,
//! not copied from a run) and saying what to write.

use crate::common;

use common::*;
use gamesman::descriptor::DescriptorGame;
use gamesman::game::{Game, Value};
use gamesman::progress::Progress;
use gamesman::solve::census::census;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Positions counted by (value, remoteness); a value as its name, since `Value` has no order.
type Hist = BTreeMap<(String, u32), u64>;

fn test_descriptor(name: &str) -> DescriptorGame {
    DescriptorGame::load(&root().join("tests/games").join(format!("{name}.ron"))).unwrap_or_else(|e| panic!("{e}"))
}

/// Every position reachable from `text`, counted by (value, remoteness), as `analyze` counts.
fn histogram(g: &DescriptorGame, text: &str) -> Hist {
    let root = g.parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let c = census(g, &root, 1 << 30, &Progress::default()).unwrap();
    let mut h = BTreeMap::new();
    for s in &c.solutions {
        *h.entry((format!("{:?}", s.value), s.remoteness.expect("a finite game has remoteness"))).or_insert(0) += 1;
    }
    h
}

// ---------------------------------------------------------------------------------------
// The oracle for k in a row: cells numbered r * cols + c, X's and O's cells as bitmasks,
// X first; a move puts the mover's mark on an empty cell (with gravity: the lowest empty
// cell of a column). The player who just moved and made a line has won (normal) or lost
// (misère); a full board without a line is a tie. Remoteness: a win, 1 + the least among
// the losing children; a tie, 1 + the least among the tying children; a loss, 1 + the most.

struct InRow {
    rows: usize,
    cols: usize,
    gravity: bool,
    misere: bool,
    lines: Vec<u32>,
    memo: HashMap<(u32, u32), (Value, u32)>,
}

impl InRow {
    fn new(rows: usize, cols: usize, k: usize, gravity: bool, misere: bool) -> Self {
        let mut lines = Vec::new();
        for r in 0..rows as i32 {
            for c in 0..cols as i32 {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let cells: Vec<(i32, i32)> = (0..k as i32).map(|i| (r + i * dr, c + i * dc)).collect();
                    if cells.iter().all(|&(a, b)| a >= 0 && a < rows as i32 && b >= 0 && b < cols as i32) {
                        lines.push(cells.iter().fold(0u32, |m, &(a, b)| m | 1 << (a as usize * cols + b as usize)));
                    }
                }
            }
        }
        InRow { rows, cols, gravity, misere, lines, memo: HashMap::new() }
    }

    fn moves(&self, x: u32, o: u32) -> Vec<usize> {
        let full = x | o;
        if self.gravity {
            (0..self.cols)
                .filter_map(|c| (0..self.rows).rev().map(|r| r * self.cols + c).find(|&i| full >> i & 1 == 0))
                .collect()
        } else {
            (0..self.rows * self.cols).filter(|&i| full >> i & 1 == 0).collect()
        }
    }

    /// (value, remoteness) for the player to move.
    fn solve(&mut self, x: u32, o: u32) -> (Value, u32) {
        if let Some(&v) = self.memo.get(&(x, o)) {
            return v;
        }
        let x_to_move = x.count_ones() == o.count_ones();
        let last = if x_to_move { o } else { x };
        let v = if self.lines.iter().any(|&l| l & !last == 0) {
            (if self.misere { Value::Win } else { Value::Lose }, 0)
        } else if (x | o).count_ones() as usize == self.rows * self.cols {
            (Value::Tie, 0)
        } else {
            let kids: Vec<(Value, u32)> = self
                .moves(x, o)
                .into_iter()
                .map(|i| if x_to_move { self.solve(x | 1 << i, o) } else { self.solve(x, o | 1 << i) })
                .collect();
            let least = |want: Value| kids.iter().filter(|k| k.0 == want).map(|k| k.1).min();
            if let Some(r) = least(Value::Lose) {
                (Value::Win, r + 1)
            } else if let Some(r) = least(Value::Tie) {
                (Value::Tie, r + 1)
            } else {
                (Value::Lose, kids.iter().map(|k| k.1).max().unwrap() + 1)
            }
        };
        self.memo.insert((x, o), v);
        v
    }

    /// Every position reachable from the empty board, by (value, remoteness): the memo holds
    /// exactly those, since the search visits every child of every position that goes on.
    fn histogram(&mut self) -> Hist {
        self.solve(0, 0);
        let mut h = BTreeMap::new();
        for &(v, r) in self.memo.values() {
            *h.entry((format!("{v:?}"), r)).or_insert(0) += 1;
        }
        h
    }

    fn text(&self, x: u32, o: u32) -> String {
        let rows: Vec<String> = (0..self.rows)
            .map(|r| {
                (0..self.cols)
                    .map(|c| {
                        let i = r * self.cols + c;
                        if x >> i & 1 == 1 {
                            'x'
                        } else if o >> i & 1 == 1 {
                            'o'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            })
            .collect();
        rows.join("/")
    }
}

fn total(h: &Hist, v: Value) -> u64 {
    h.iter().filter(|(k, _)| k.0 == format!("{v:?}")).map(|(_, n)| n).sum()
}

#[test]
fn connect3_on_4x5_agrees_with_a_plain_negamax() {
    let g = test_descriptor("newuser_connect3");
    let mut oracle = InRow::new(4, 5, 3, true, false);
    let want = oracle.histogram();
    // The Python oracle (tests/oracles/newuser_inrow.py) counts the same: 613,459 positions,
    // win 260,064, lose 353,129, tie 266; the first player wins in 9.
    assert_eq!(want.values().sum::<u64>(), 613_459);
    assert_eq!(
        (total(&want, Value::Win), total(&want, Value::Lose), total(&want, Value::Tie)),
        (260_064, 353_129, 266)
    );
    assert_eq!(histogram(&g, "4x5k3"), want);
    // The start: the first player wins, by one of the three middle columns (1 to 5).
    let r = solve(&g, "4x5k3", true);
    assert_eq!((r.value, r.remoteness), (oracle.solve(0, 0).0, Some(oracle.solve(0, 0).1)));
    let mut best: Vec<String> = r.winning_moves.iter().map(|m| m.name.clone()).collect();
    best.sort();
    let mut want_best: Vec<String> =
        (0..5).filter(|&c| oracle.solve(1 << (15 + c), 0).0 == Value::Lose).map(|c| (c + 1).to_string()).collect();
    want_best.sort();
    assert_eq!(best, want_best);
    assert_eq!(best, ["2", "3", "4"]);
    // "4x5" alone takes k from `InRow(3)`.
    assert_eq!(g.format(&g.parse("4x5").unwrap()).unwrap(), "4x5k3/...../...../...../.....");
}

#[test]
fn misere_tictactoe_and_three_in_a_row_on_3x4_agree_with_a_plain_negamax() {
    let g = test_descriptor("newuser_misere_ttt");
    let mut oracle = InRow::new(3, 3, 3, false, true);
    let want = oracle.histogram();
    // newuser_inrow.py: 5,478 positions (as plain tic-tac-toe), win 3,054, lose 1,444, tie 980.
    assert_eq!((total(&want, Value::Win), total(&want, Value::Lose), total(&want, Value::Tie)), (3054, 1444, 980));
    assert_eq!(histogram(&g, "3x3"), want);
    // A tie, kept only by the centre: every other first move loses (the known result).
    let r = solve(&g, "3x3", true);
    assert_eq!((r.value, r.remoteness), (Value::Tie, Some(9)));
    let names: Vec<&str> = r.winning_moves.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["1:1"]);
    for i in 0..9 {
        let after = oracle.solve(1 << i, 0).0;
        assert_eq!(after, if i == 4 { Value::Tie } else { Value::Win }, "first move {i}");
        let mine = solve(&g, &oracle.text(1 << i, 0), false).value;
        assert_eq!(mine, after, "after the first move {i}");
    }

    // Three in a row on 3 rows by 4 columns, placed anywhere, the size fixed.
    let src = r#"(name: "ttt34", start: "3x4", rules: Board(size: "3x4", moves: Place, ends: [InRow(3)]))"#;
    let g = DescriptorGame::from_source("ttt34.ron", src, None).unwrap();
    let mut oracle = InRow::new(3, 4, 3, false, false);
    let want = oracle.histogram();
    // newuser_inrow.py: 111,973 positions, win 64,738, lose 44,175, tie 3,060; a win in 7.
    assert_eq!(want.values().sum::<u64>(), 111_973);
    assert_eq!(histogram(&g, "3x4"), want);
    let r = solve(&g, "3x4", true);
    assert_eq!((r.value, r.remoteness), (Value::Win, Some(7)));
    // Every first move wins but the two middle cells of the middle row (1:0 and 1:3 are the
    // edge ones; by the oracle, 1:1 and 1:2 win too: 10 of 12).
    let wins = (0..12).filter(|&i| oracle.solve(1 << i, 0).0 == Value::Lose).count();
    assert_eq!(r.winning_moves.len(), wins);
    assert_eq!(wins, 10);
}

#[test]
fn cram_3x7_agrees_with_a_plain_mex() {
    let (rows, cols) = (3usize, 7usize);
    let mut dominoes = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let i = r * cols + c;
            if c + 1 < cols {
                dominoes.push(1u32 << i | 1 << (i + 1));
            }
            if r + 1 < rows {
                dominoes.push(1u32 << i | 1 << (i + cols));
            }
        }
    }
    fn mex(covered: u32, dominoes: &[u32], memo: &mut HashMap<u32, u64>) -> u64 {
        if let Some(&g) = memo.get(&covered) {
            return g;
        }
        let mut seen = 0u64;
        for &d in dominoes {
            if covered & d == 0 {
                seen |= 1 << mex(covered | d, dominoes, memo);
            }
        }
        let g = (!seen).trailing_zeros() as u64;
        memo.insert(covered, g);
        g
    }
    let mut memo = HashMap::new();
    // newuser_cram.py: the empty 3x7 board has Grundy value 1 (a first-player win).
    assert_eq!(mex(0, &dominoes, &mut memo), 1);
    let src = r#"(name: "cram37", start: "3x7", rules: Board(moves: Domino(Either), pieces: Shared))"#;
    let g = DescriptorGame::from_source("cram37.ron", src, None).unwrap();
    let r = solve(&g, "3x7", false);
    assert_eq!((r.value, r.grundy), (Value::Win, Some(1)));
    // After every first domino (covered cells '#', as `cells` defaults to ".#").
    for &d in &dominoes {
        let text: Vec<String> = (0..rows)
            .map(|r| (0..cols).map(|c| if d >> (r * cols + c) & 1 == 1 { '#' } else { '.' }).collect())
            .collect();
        let text = text.join("/");
        assert_eq!(solve(&g, &text, false).grundy, Some(mex(d, &dominoes, &mut memo)), "{text}");
    }
}

#[test]
fn sliding_2x3_agrees_with_a_breadth_first_search() {
    let g = test_descriptor("newuser_slide23");
    // BFS from the goal (slides are reversible), cells in reading order, '.' the blank.
    let goal = b"12345.".to_vec();
    let mut dist: HashMap<Vec<u8>, u32> = HashMap::from([(goal.clone(), 0)]);
    let mut queue = VecDeque::from([goal]);
    while let Some(s) = queue.pop_front() {
        let b = s.iter().position(|&t| t == b'.').unwrap();
        let (r, c) = (b / 3, b % 3);
        let mut next = Vec::new();
        if r > 0 {
            next.push(b - 3);
        }
        if r < 1 {
            next.push(b + 3);
        }
        if c > 0 {
            next.push(b - 1);
        }
        if c < 2 {
            next.push(b + 1);
        }
        for j in next {
            let mut t = s.clone();
            t.swap(b, j);
            if !dist.contains_key(&t) {
                dist.insert(t.clone(), dist[&s] + 1);
                queue.push_back(t);
            }
        }
    }
    let mut want = BTreeMap::new();
    for &d in dist.values() {
        *want.entry((format!("{:?}", Value::Win), d)).or_insert(0u64) += 1;
    }
    // Half of the 6! arrangements, the farthest 21 moves away (newuser_puzzles.py; the 2x3
    // puzzle's published diameter is 21).
    assert_eq!(dist.len(), 360);
    assert_eq!(dist.values().max(), Some(&21));
    assert_eq!(histogram(&g, "123/45."), want);
    let r = solve(&g, "45./123", true);
    assert_eq!((r.value, r.remoteness, r.winning_moves.len()), (Value::Win, Some(21), 21));
    assert_eq!(solve(&g, "3.1/245", true).remoteness, Some(dist[&b"3.1245".to_vec()]));
    // The other half cannot be reached: two tiles swapped.
    assert_eq!(solve(&g, "213/45.", false).value, Value::Lose);
}

// ---------------------------------------------------------------------------------------
// Typos, through the command line as a user meets them.

/// (line, column) of the first `needle` in `src`, both from 1 (columns count characters).
fn at(src: &str, needle: &str) -> (usize, usize) {
    let i = src.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {src}"));
    let line = src[..i].matches('\n').count() + 1;
    let col = src[..i].rsplit('\n').next().unwrap().chars().count() + 1;
    (line, col)
}

/// Run `gamesman solve FILE` on `src`: the one line of stderr, after a non-zero exit.
fn solve_error(dir: &std::path::Path, file: &str, src: &str) -> String {
    std::fs::write(dir.join(file), src).unwrap();
    let out = bin().current_dir(dir).args(["solve", file]).output().expect("gamesman runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{file}: {err}");
    assert!(out.stdout.is_empty(), "{file}: printed {}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(err.lines().count(), 1, "{file}: one line: {err}");
    err
}

/// The descriptor a new user writes (tic-tac-toe with `rules`/`start`/a top line changed).
fn ttt(start: &str, top: &str, rules: &str) -> String {
    format!("// a new game\n(\n    name: \"mine\",\n    start: {start},\n{top}    rules: {rules},\n)\n")
}

#[test]
fn typos_are_refused_with_the_file_line_and_column_and_what_to_write() {
    let dir = temp_dir("newuser-typos");
    let place = r#"Board(size: "3x3", moves: Place, ends: [InRow(3)])"#;
    // (what the user wrote, where the error points: the text found there, what it says)
    let cases: Vec<(String, &str, &str)> = vec![
        // Misspelt words and fields: the point of the typo, and the words that exist.
        (ttt("\"3x3\"", "", &place.replace("Place", "Plac")), "Plac", "expected one of `Place`, `Drop`, `Domino`"),
        (ttt("\"3x3\"", "", &place.replace("InRow", "InRo")), "InRo", "expected one of `InRow`, `Connect`"),
        (ttt("\"3x3\"", "", &place.replace("moves:", "move:")), "move:", "expected one of `size`, `shape`, `moves`"),
        (ttt("\"3x3\"", "", &place.replace("ends:", "end:")), "end:", "`ends`"),
        (ttt("\"3x3\"", "    end: Misre,\n", place), "Misre", "expected one of `Normal`, `Misere`"),
        (
            ttt("\"3x7\"", "", "Board(moves: Domino(Eiter), pieces: Shared)"),
            "Eiter",
            "expected either `Either` or `PerPlayer`",
        ),
        (
            ttt("\"3x7\"", "", "Board(moves: Domino(Either), pieces: Sharde)"),
            "Sharde",
            "expected either `Own` or `Shared`",
        ),
        (
            ttt("\"x.../x.../x.../.ooo\"", "", "Board(moves: Step(first: [E, Nrth, S], second: [N, E, W], off: true))"),
            "Nrth",
            "expected one of `N`, `S`, `E`, `W`",
        ),
        // A wrong type: RON points at the blank before the value, and says only what it expected.
        (ttt("\"3x3\"", "", &place.replace("\"3x3\"", "3x3")), " 3x3,", "Expected string (texts are in double quotes"),
        // RON's own messages get what to write instead.
        (
            ttt("\"3x3\"", "", place).replace("// a new game", "# a new game"),
            " a new game",
            "`#` is not a comment in RON",
        ),
        (ttt("\"3x3\"", "    kind: \"partisan\",\n", place), "\"partisan\"", "without quotes: `kind: Partisan`"),
        (
            ttt("\"3x7\"", "", "Board(moves: Domino, pieces: Shared)"),
            ", pieces",
            "`Domino(Either)` or `Domino(PerPlayer)`",
        ),
        (
            ttt("\"3x7\"", "", "Board(moves: Domino(Either), cells: \"#.\")"),
            "rules:",
            "with one mark for both players (Cram, Notakto), write `pieces: Shared`",
        ),
        (
            ttt("\"x../.../..o\"", "", "Board(moves: Step(first: [E], second: [W], off: \"yes\"))"),
            " \"yes\"",
            "Expected boolean",
        ),
        // Sizes, k and cells: the line of `rules:`.
        (ttt("\"3x3\"", "", &place.replace("3x3", "3by3")), "rules:", "write rows x columns, such as 3x3"),
        (ttt("\"3x3\"", "", &place.replace("3x3", "0x3")), "rules:", "at least one row and one column"),
        (ttt("\"3x3\"", "", &place.replace("3x3", "20x20")), "rules:", "rows × (columns + 1) ≤ 128"),
        (ttt("\"3x3\"", "", &place.replace("InRow(3)", "InRow(4)")), "rules:", "InRow(4) cannot fit on a 3x3 board"),
        (
            ttt("\"3x3\"", "", &place.replace(")]", ")], cells: \".x\"")),
            "rules:",
            "must be 3 characters: the empty cell, then the first player's mark and the second's",
        ),
        // An impossible start: the line of `start:`.
        (ttt("\"xx./.../...\"", "", place), "start:", "write \" o\" or \" x\" after the board"),
        (ttt("\"x.q/.../...\"", "", place), "start:", "'q' is not a cell: use 'x' or 'o', or '.'"),
        (ttt("\"4x4\"", "", place), "start:", "this game is played on a 3x3 board, not 4x4"),
        (
            ttt("\"4x5k3/...../...../..x../.....\"", "", "Board(moves: Drop, ends: [InRow(3)])"),
            "start:",
            "the piece at row 3, column 3 floats above an empty cell",
        ),
        (
            ttt("\"4321//\"", "", "Board(moves: Hanoi, ends: [Goal(\"///4321\")])"),
            "start:",
            "this puzzle has 4 discs on 4 pegs, as its goal",
        ),
        (
            ttt("\"123/44.\"", "", "Board(moves: Slide, ends: [Goal(\"123/45.\")])"),
            "start:",
            "the tiles must be the goal's (12345), not 12344",
        ),
    ];
    for (i, (src, point, says)) in cases.iter().enumerate() {
        let file = format!("typo{i}.ron");
        let err = solve_error(&dir, &file, src);
        let (line, col) = at(src, point);
        let head = format!("gamesman: error: {file}:{line}:{col}: ");
        assert!(err.starts_with(&head), "{src}\nwant {head}…\n got {err}");
        assert!(err.contains(says), "{src}\nwant …{says}…\n got {err}");
    }
    // A missing field: named, at the closing parenthesis of what lacks it.
    let src = ttt("\"3x3\"", "", r#"Board(size: "3x3", ends: [InRow(3)])"#);
    let err = solve_error(&dir, "missing.ron", &src);
    let (line, col) = at(&src, ")])");
    assert!(err.starts_with(&format!("gamesman: error: missing.ron:{line}:{}: ", col + 2)), "{err}");
    assert!(err.contains("missing field named `moves` in `Board`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Found by the new user (and fixed in src/descriptor/board.rs): starts no game reaches were
/// accepted and answered. Both players with three in a row (`xxx/ooo/...`) is answered "lose,
/// remoteness 0"; X with three in a row and X to move (`xxx/oo./o..`: the game ended when X
/// made the line, so O never moved after it) is answered "win, remoteness 1", the engine
/// taking X's old line for a new one after any move. The rules (a line ends the game, and
/// only the player who just moved can have made it: docs/descriptors.md) make both
/// impossible; they should be refused on the line of `start:`, like the other impossible
/// positions (a wrong piece count, a floating Connect-Four piece).
#[test]
fn starts_no_game_reaches_are_refused() {
    let dir = temp_dir("newuser-impossible");
    for (i, start) in ["\"xxx/ooo/...\"", "\"xxx/oo./o..\""].into_iter().enumerate() {
        let src = ttt(start, "", r#"Board(size: "3x3", moves: Place, ends: [InRow(3)])"#);
        let file = format!("impossible{i}.ron");
        let err = solve_error(&dir, &file, &src);
        let (line, col) = at(&src, "start:");
        assert!(err.starts_with(&format!("gamesman: error: {file}:{line}:{col}: ")), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A board of fixed size needs no `start:`: its empty board is the start (the new user's
/// fourth finding). Tic-tac-toe from the empty board is a tie, and every first move but none
/// loses (the known result); a descriptor whose pieces move still needs its start.
#[test]
fn a_fixed_size_is_the_start_when_none_is_written() {
    let dir = temp_dir("newuser-nostart");
    let src = "(name: \"mine\", rules: Board(size: \"3x3\", moves: Place, ends: [InRow(3)]))\n";
    std::fs::write(dir.join("nostart.ron"), src).unwrap();
    let out = bin().current_dir(&dir).args(["solve", "nostart.ron"]).output().expect("gamesman runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.lines().any(|l| l.starts_with("value:") && l.ends_with("tie")), "{text}");
    let src = "(name: \"mine\", rules: Board(size: \"3x3\", moves: Step(first: [E], second: [N], off: true), ends: [Gone]))\n";
    std::fs::write(dir.join("steps.ron"), src).unwrap();
    let out = bin().current_dir(&dir).args(["solve", "steps.ron"]).output().expect("gamesman runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no start position"));
    let _ = std::fs::remove_dir_all(&dir);
}
