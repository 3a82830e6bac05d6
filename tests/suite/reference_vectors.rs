//! The reference vectors of tests/data, solved through the Rhai scripts in games/ and the
//! RON descriptors of the same games (each test runs both definitions).

use crate::common;
use common::*;
use gamesman::game::{Game, Misere, Value};

/// Nim: the assignment's output gives the value and the winning moves, pile by pile.
fn nim_vectors<G: Game>(g: &G) {
    let mut checked = 0;
    for case in cases("nim") {
        let args: Vec<String> = serde_json::from_value(case["args"].clone()).unwrap();
        let expected = case["stdout"].as_str().unwrap();
        let misere = args.first().is_some_and(|a| a == "-m");
        let heaps: Vec<u64> = args.iter().skip(misere as usize).map(|a| a.parse().unwrap()).collect();
        // The definitions search the game tree; keep to trees of a manageable size.
        if heaps.iter().map(|h| h + 1).product::<u64>() > 200_000 {
            continue;
        }
        let text = heaps.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        let r = if misere { solve(&Misere::new(g), &text, true) } else { solve(g, &text, true) };
        let mut out = String::from(if r.value == Value::Win { "win!\n" } else { "loss!\n" });
        for m in &r.winning_moves {
            // The heap whose size changed, and by how much.
            let after: Vec<u64> = m.position.split(',').map(|h| h.parse().unwrap()).collect();
            let i = (0..heaps.len()).find(|&i| after[i] != heaps[i]).expect("a move changes a heap");
            out += &format!("winning move: remove {} from the {} pile\n", heaps[i] - after[i], heaps[i]);
        }
        assert_eq!(out, expected, "nim {args:?} ({})", g.info().name);
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} nim vectors were small enough");
}

#[test]
fn nim_vectors_normal_and_misere() {
    nim_vectors(&game("nim"));
    nim_vectors(&descriptor("nim"));
}

#[test]
fn nim_grundy_is_the_xor_of_the_heaps() {
    let r = solve(&game("nim"), "3,4,5", false);
    assert_eq!(r.grundy, Some(3 ^ 4 ^ 5));
    let r = solve(&game("nim"), "1,2,3", true);
    assert_eq!((r.value, r.grundy), (Value::Lose, Some(0)));
}

/// Chomp: `LOSS`, or `WIN: ` and the state after the winning move that takes the leftmost
/// piece, which is the first winning move in the script's move order.
#[test]
fn chomp_vectors() {
    chomp_vectors_of(&game("chomp"));
    chomp_vectors_of(&descriptor("chomp"));
}

fn chomp_vectors_of<G: Game>(g: &G) {
    let cases = cases("chomp");
    assert_eq!(cases.len(), 20);
    for case in cases {
        let state = case["state"].as_str().unwrap();
        let answer = case["answer"].as_str().unwrap();
        let r = solve(g, state, false);
        let got = match r.value {
            Value::Lose => "LOSS".to_string(),
            _ => format!("WIN: {}", r.winning_moves[0].position),
        };
        assert_eq!(got, answer, "chomp {state}");
    }
}

#[test]
fn chomp_empty_board_is_a_win_and_a_lone_poison_a_loss() {
    assert_eq!(solve(&game("chomp"), "0", true).value, Value::Win);
    assert_eq!(solve(&game("chomp"), "1", true).value, Value::Lose);
    // A square board n×n: take (1,1), leaving an L with equal arms, and mirror: a win.
    let r = solve(&game("chomp"), "4444", true);
    assert_eq!(r.value, Value::Win);
    assert!(r.winning_moves.iter().any(|m| m.position == "4111"));
}

/// Wythoff: P-positions and Grundy values for piles below 30.
#[test]
fn wythoff_vectors_below_30() {
    wythoff_vectors_of(&game("nimrod"));
    wythoff_vectors_of(&descriptor("nimrod"));
}

fn wythoff_vectors_of<G: Game>(g: &G) {
    let mut checked = 0;
    for case in cases("wythoff") {
        let (a, b) = (case["a"].as_u64().unwrap(), case["b"].as_u64().unwrap());
        if a >= 30 || b >= 30 {
            continue;
        }
        let r = solve(g, &format!("{a},{b}"), true);
        assert_eq!(r.value == Value::Lose, case["p"].as_bool().unwrap(), "wythoff {a},{b}");
        assert_eq!(r.grundy, case["grundy"].as_u64(), "wythoff {a},{b}");
        checked += 1;
    }
    assert_eq!(checked, 10);
}

#[test]
fn wythoff_losing_positions_from_the_assignment() {
    // (0 0) (1 2) (3 5) (4 7) (6 10) (8 13) (9 15), from the Nimrod assignment.
    for (a, b) in [(0, 0), (1, 2), (3, 5), (4, 7), (6, 10), (8, 13), (9, 15)] {
        assert_eq!(solve(&game("nimrod"), &format!("{a},{b}"), true).value, Value::Lose, "{a},{b}");
        assert_eq!(solve(&game("nimrod"), &format!("{b},{a}"), true).value, Value::Lose, "{b},{a}");
    }
    assert_eq!(solve(&game("nimrod"), "5,9", true).value, Value::Win);
}

/// TacTix: Grundy values (nimsums) of the reference boards.
#[test]
fn tactix_vectors() {
    tactix_vectors_of(&game("tactix"));
    tactix_vectors_of(&descriptor("tactix"));
}

fn tactix_vectors_of<G: Game>(g: &G) {
    let cases = cases("tactix");
    assert_eq!(cases.len(), 30);
    for case in cases {
        let pbm = case["pbm"].as_str().unwrap();
        let r = solve(g, pbm, false);
        assert_eq!(r.grundy, case["grundy"].as_u64(), "tactix board\n{pbm}");
        assert_eq!(r.value == Value::Win, case["grundy"].as_u64() != Some(0));
    }
}

#[test]
fn tactix_even_by_even_rectangles_are_losses() {
    // The second player mirrors every move through the centre.
    for (w, h) in [(2, 2), (2, 4), (4, 2), (2, 6), (4, 4)] {
        let rows = vec!["1".repeat(w); h].join("/");
        assert_eq!(solve(&game("tactix"), &rows, false).grundy, Some(0), "{w}×{h}");
    }
    // A straight bar of n tokens is a Nim heap of n.
    for n in 1..=7 {
        assert_eq!(solve(&game("tactix"), &"1".repeat(n), false).grundy, Some(n as u64));
    }
}

/// Lights Out: solvable or not, and the fewest presses; the solution must really work.
#[test]
fn lightsout_vectors() {
    lightsout_vectors_of(&game("lightsout"), usize::MAX);
    lightsout_vectors_of(&descriptor("lightsout"), usize::MAX);
}

fn lightsout_vectors_of<G: Game>(g: &G, max_cells: usize) {
    let cases = cases("lightsout");
    assert_eq!(cases.len(), 10);
    for case in cases {
        let board = case["board"].as_str().unwrap();
        if board.lines().map(str::len).sum::<usize>() > max_cells {
            continue;
        }
        let r = solve(g, board, true);
        assert_eq!(r.value == Value::Win, case["solvable"].as_bool().unwrap(), "lights out\n{board}");
        assert_eq!(r.remoteness.map(u64::from), case["min_presses"].as_u64(), "lights out\n{board}");
        // Press the solution's lights on the board by hand: every light must go out.
        let mut cells: Vec<Vec<bool>> = board.lines().map(|l| l.chars().map(|c| c == '#').collect()).collect();
        let (h, w) = (cells.len() as i64, cells[0].len() as i64);
        for m in &r.winning_moves {
            let (r0, c0) = m.name.split_once(':').unwrap();
            let (r0, c0): (i64, i64) = (r0.parse().unwrap(), c0.parse().unwrap());
            for (dr, dc) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
                let (r, c) = (r0 + dr, c0 + dc);
                if (0..h).contains(&r) && (0..w).contains(&c) {
                    cells[r as usize][c as usize] ^= true;
                }
            }
        }
        if r.value == Value::Win {
            assert!(cells.iter().flatten().all(|&on| !on), "the solution leaves lights on\n{board}");
        }
    }
}

#[test]
fn tictactoe_start_is_a_tie_in_nine() {
    let r = solve(&game("tictactoe"), ".........", true);
    assert_eq!((r.value, r.remoteness), (Value::Tie, Some(9)));
    // X to move with two in a row and the third cell free wins at once.
    let r = solve(&game("tictactoe"), "xx.oo....", true);
    assert_eq!((r.value, r.remoteness), (Value::Win, Some(1)));
    assert_eq!(r.winning_moves.len(), 1);
    assert_eq!(r.winning_moves[0].position, "xxxoo....");
}

#[test]
fn kayles_nim_sequence_to_100() {
    let (g, d) = (game("kayles"), descriptor("kayles"));
    for n in 0..=100usize {
        assert_eq!(solve(&g, &n.to_string(), false).grundy, Some(kayles(n)), "Kayles {n} (script)");
        assert_eq!(solve(&d, &n.to_string(), false).grundy, Some(kayles(n)), "Kayles {n} (descriptor)");
    }
}

#[test]
fn kayles_sums_xor() {
    // K(10) = 2 and K(7) = 2: the sum is a loss.
    let r = solve(&game("kayles"), "10,7", true);
    assert_eq!((r.value, r.grundy), (Value::Lose, Some(0)));
}
