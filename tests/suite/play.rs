//! `gamesman play` and `gamesman analyze`, end to end with scripted stdin, checked against
//! independent facts: Wythoff's losing positions as the Nimrod assignment constructs them,
//! tic-tac-toe is a tie, a Lights Out solution solves its board, and the known counts of
//! tic-tac-toe and 3×3 TacTix positions.

use crate::common;

use common::{cases, game};
use gamesman::game::Game;
use gamesman::progress::Progress;
use gamesman::solve::census::census;
use gamesman::solve::{Analyzer, Options};
use std::collections::HashSet;

fn run(args: &[&str], input: &str) -> (i32, String, String) {
    common::run_in(args, input)
}

/// Wythoff's losing positions, by the construction in the Nimrod assignment: the i-th is
/// (n, n + i) where n is the smallest integer not used by an earlier one. Both orders.
fn nimrod_lose_positions(limit: u64) -> HashSet<(u64, u64)> {
    let mut used = HashSet::new();
    let mut out = HashSet::new();
    let mut n = 0;
    for i in 0.. {
        while used.contains(&n) {
            n += 1;
        }
        if n > limit {
            break;
        }
        let (a, b) = (n, n + i);
        used.insert(a);
        used.insert(b);
        out.insert((a, b));
        out.insert((b, a));
    }
    out
}

fn piles(line: &str) -> (u64, u64) {
    let (a, b) = line.trim().split_once(',').unwrap_or_else(|| panic!("a position line: {line:?}"));
    (a.parse().unwrap(), b.parse().unwrap())
}

/// The positions the perfect side left behind in a transcript (the line after each of its
/// moves).
fn left_by(transcript: &str, side: &str) -> Vec<(u64, u64)> {
    let lines: Vec<&str> = transcript.lines().collect();
    let tag = format!("{side} plays ");
    (0..lines.len()).filter(|&i| lines[i].starts_with(&tag)).map(|i| piles(lines[i + 1])).collect()
}

/// A clumsy human: alternately tries to take one rod from pile B and from pile A (an illegal
/// try is refused and the next line read), so some move is always possible.
fn clumsy_human() -> String {
    "0 1\n1 0\n".repeat(60)
}

#[test]
fn nimrod_the_perfect_player_never_loses_from_a_winning_position() {
    let lose = nimrod_lose_positions(40);
    for engine in ["native", "script"] {
        // The human moves first from a losing position: the perfect player (O) is winning
        // after every human move, and must always move back to a losing position.
        for start in ["3,5", "7,4", "10,6", "13,8", "0,0"] {
            let (code, out, err) = run(&["play", "nimrod", start, "--engine", engine, "--seed", "7"], &clumsy_human());
            if start == "0,0" {
                assert!(out.trim_end().ends_with("O wins!"), "{out}");
                continue;
            }
            assert_eq!(code, 0, "{start} {engine}: {out}\n{err}");
            assert!(out.trim_end().ends_with("O wins!"), "{start} {engine}: {out}");
            let left = left_by(&out, "O");
            assert!(!left.is_empty());
            for p in left {
                assert!(
                    lose.contains(&p),
                    "{start} {engine}: the perfect player left {p:?}, a winning position\n{out}"
                );
            }
        }
        // The perfect player moves first from winning positions against the human.
        for start in ["5,9", "2,2", "1,7", "12,21"] {
            assert!(!lose.contains(&piles(start)));
            let (code, out, _) =
                run(&["play", "nimrod", start, "--x", "perfect", "--o", "human", "--engine", engine], &clumsy_human());
            assert_eq!(code, 0);
            assert!(out.trim_end().ends_with("X wins!"), "{start}: {out}");
            assert!(left_by(&out, "X").iter().all(|p| lose.contains(p)), "{out}");
        }
    }
    // And against a random player, many times.
    for seed in 0..20 {
        let s = seed.to_string();
        let (_, out, _) = run(&["play", "nimrod", "8,13", "--x", "random", "--o", "perfect", "--seed", &s], "");
        assert!(out.trim_end().ends_with("O wins!"), "seed {seed}: {out}");
    }
}

#[test]
fn tictactoe_perfect_against_perfect_is_a_tie() {
    for seed in 0..8 {
        let s = seed.to_string();
        let (code, out, _) = run(&["play", "tictactoe", "--x", "perfect", "--o", "perfect", "--seed", &s], "");
        assert_eq!(code, 0);
        assert!(out.trim_end().ends_with("It is a tie."), "seed {seed}: {out}");
        assert_eq!(out.matches(" plays ").count(), 9, "a tie fills the board: {out}");
    }
}

#[test]
fn lightsout_a_solvers_output_solves_the_board() {
    let dir = tempdir();
    let mut checked = 0;
    for (i, case) in cases("lightsout").iter().enumerate() {
        let board = case["board"].as_str().unwrap();
        let cells = board.lines().map(str::len).sum::<usize>();
        let path = dir.join(format!("board{i}.txt"));
        std::fs::write(&path, board).unwrap();
        let p = path.to_str().unwrap();
        let (code, solution, _) = run(&["lightsout", p], "");
        if !case["solvable"].as_bool().unwrap() {
            assert_eq!((code, solution.as_str()), (1, ""));
            continue;
        }
        let engines: &[&str] = if cells <= 30 { &["native", "script"] } else { &["native"] };
        for engine in engines {
            // `gamesman lightsout b | gamesman play lightsout b`
            let (code, out, err) = run(&["play", "lightsout", p, "--engine", engine], &solution);
            assert_eq!(code, 0, "{board}\n{out}\n{err}");
            assert!(out.trim_end().ends_with("You got all the lights out!"), "{out}");
            let flips = out.lines().filter(|l| l.starts_with("Flipping ")).count();
            assert_eq!(flips as u64, case["min_presses"].as_u64().unwrap());
        }
        checked += 1;
    }
    assert!(checked >= 5);
    // loplayer's transcript, from the assignment (the 3×2 board 3x2-34).
    let path = dir.join("3x2-34.txt");
    std::fs::write(&path, "#00\n##0\n").unwrap();
    let (code, out, _) = run(&["play", "lightsout", path.to_str().unwrap()], "1:0\n");
    assert_eq!(code, 0);
    assert_eq!(out, "#00\n##0\nFlipping 1:0\n000\n000\nYou got all the lights out!\n");
}

#[test]
fn lightsout_a_person_may_press_any_light() {
    let dir = tempdir();
    let path = dir.join("b.txt");
    std::fs::write(&path, "#00\n##0\n").unwrap();
    let p = path.to_str().unwrap();
    for engine in ["native", "script"] {
        // Press 1:2 (not on the solution) and then undo it by pressing it again, then solve.
        let (code, out, err) = run(&["play", "lightsout", p, "--engine", engine], "1:2\n1:2\n1:0\n");
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("Flipping 1:2\n#0#\n#0#\n"), "{out}");
        // A bad press is refused with a reason, and play goes on; end of input stops it.
        let (code, out, err) = run(&["play", "lightsout", p, "--engine", engine], "7:7\nhello\n");
        assert_eq!(code, 2, "{out}");
        assert!(err.contains("a press is row:col"), "{err}");
    }
}

#[test]
fn hint_undo_and_history() {
    // 5,9 is a win for X (it is not a losing position); taking 1 from pile B leaves 5,8,
    // which is not a losing position either: a mistake.
    let (code, out, _) =
        run(&["play", "nimrod", "5,9", "--o", "human"], "hint\n0 1\nhistory\nundo\n0 6\nhistory\nquit\n");
    assert_eq!(code, 2);
    let hint: Vec<&str> = out.lines().filter(|l| l.starts_with("  take ")).collect();
    assert_eq!(hint.len(), 5 + 9 + 5, "every move is listed: {out}");
    let winning: Vec<&&str> = hint.iter().filter(|l| l.contains(" win in ")).collect();
    assert_eq!(winning.len(), 1, "{out}");
    assert!(winning[0].contains("take 0 from pile A and 6 from pile B"), "to 5,3: {out}");
    assert!(out.contains("1. X plays take 0 from pile A and 1 from pile B: O to move, win in"), "{out}");
    assert!(out.contains("a mistake by X"), "{out}");
    // After the undo, the right move: no mistake in the second history.
    let second = out.rsplit("start:").next().unwrap();
    assert!(
        second.contains("1. X plays take 0 from pile A and 6 from pile B: O to move, lose in")
            && !second.contains("mistake")
    );
}

#[test]
fn play_errors_are_clear() {
    let (code, _, err) = run(&["play", "tictactoe", "xxx"], "");
    assert_eq!(code, 1);
    assert!(err.starts_with("gamesman: error: invalid position"), "{err}");
    let (code, _, err) = run(&["play", "lightsout"], "");
    assert_eq!(code, 1);
    assert!(err.contains("has no start position"), "{err}");
    // A tic-tac-toe move that is not legal is refused, with the legal ones.
    let (code, _, err) = run(&["play", "tictactoe", "--o", "human"], "4:4\n");
    assert_eq!(code, 2);
    assert!(err.contains("not a legal move here (legal: 0:0, 0:1"), "{err}");
}

fn analyze_json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = run(args, "");
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("one JSON object")
}

#[test]
fn analyze_counts_real_positions() {
    // Tic-tac-toe: 5,478 legal positions are reachable from the empty board, 958 of them
    // terminal (626 won by X, 316 by O: 942 lost by the player to move; 16 full-board ties).
    let t = analyze_json(&["analyze", "tictactoe", "--json"]);
    assert_eq!(t["positions"], 5478);
    assert_eq!(t["primitive"]["lose"], 942);
    assert_eq!(t["primitive"]["tie"], 16);
    assert_eq!(t["value"], "tie");
    assert_eq!(t["remoteness"], 9);
    let sum: u64 = ["win", "lose", "tie", "draw"].iter().map(|v| t["by_value"][v].as_u64().unwrap()).sum();
    assert_eq!(sum, 5478);
    // The full 3×3 TacTix board reaches all 2^9 = 512 boards; 88 lose in normal play, 89 in
    // misère.
    for (engine, misere, losing) in
        [("native", false, 88), ("script", false, 88), ("native", true, 89), ("script", true, 89)]
    {
        let mut args = vec!["analyze", "tactix", "###/###/###", "--json", "--engine", engine];
        if misere {
            args.push("--misere");
        }
        let a = analyze_json(&args);
        assert_eq!(a["positions"], 512, "{engine}");
        assert_eq!(a["by_value"]["lose"], losing, "{engine} misère {misere}");
        // Normal play: the losing positions are exactly those of Grundy value 0.
        if !misere {
            assert_eq!(a["by_grundy"][0]["grundy"], 0);
            assert_eq!(a["by_grundy"][0]["positions"], 88);
        } else {
            assert!(a["by_grundy"].is_null());
        }
    }
    // The text report carries the same figures.
    let (_, out, _) = run(&["analyze", "tictactoe"], "");
    assert!(out.contains("positions:   5478 reachable"), "{out}");
    assert!(out.contains("primitive:   958 (win 0, lose 942, tie 16, draw 0)"), "{out}");
}

#[test]
fn analyze_agrees_with_the_depth_first_solver() {
    // Two different algorithms: retrograde analysis over the whole graph (analyze) and the
    // memoized depth-first search with symmetry reduction (solve).
    let g = game("tictactoe");
    let root = g.start().unwrap().unwrap();
    let c = census(&g, &root, 1 << 30, &Progress::default()).unwrap();
    let mut analyzer = Analyzer::new(&g, Options::default());
    for (pos, s) in c.graph.nodes.iter().zip(&c.solutions) {
        let pos = &*pos;
        let (dfs, _) = analyzer.value(pos).unwrap();
        assert_eq!(dfs, *s, "{}", g.format(pos).unwrap());
    }
    // Grundy values of every 3×3 TacTix board: the census's mex over the graph against the
    // Grundy solver with decomposition into components.
    let t = game("tactix");
    let root = t.parse("###/###/###").unwrap();
    let c = census(&t, &root, 1 << 30, &Progress::default()).unwrap();
    let grundy = c.grundy.as_ref().expect("normal play, no cycles");
    let mut analyzer = Analyzer::new(&t, Options { remoteness: false, ..Options::default() });
    for (pos, g) in c.graph.nodes.iter().zip(grundy) {
        let pos = &*pos;
        assert_eq!(analyzer.grundy(pos).unwrap(), Some(*g), "{}", t.format(pos).unwrap());
    }
}

#[test]
fn analyze_a_loopy_game_and_a_puzzle() {
    let (code, out, err) = run(&["analyze", "tests/games/loopy.rhai", "8", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(a["by_value"]["draw"].as_u64().unwrap() > 0, "{out}");
    assert!(a["by_grundy"].is_null());
    // Lights Out 2×2, all on: four presses (one per light... by hand: pressing all four
    // toggles each light three times).
    let dir = tempdir();
    let path = dir.join("b.txt");
    std::fs::write(&path, "##\n##\n").unwrap();
    let a = analyze_json(&["analyze", "lightsout", path.to_str().unwrap(), "--json"]);
    assert_eq!(a["value"], "solvable");
    assert_eq!(a["remoteness"], 4);
}

fn tempdir() -> std::path::PathBuf {
    let d =
        std::env::temp_dir().join(format!("gamesman-play-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
