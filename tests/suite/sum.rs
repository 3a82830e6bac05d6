//! Sums across games on the command line: `gamesman solve 'chomp:4111 + nim:3 + kayles:10'`.
//! The Grundy values used here are known apart from gamesman: a Nim heap of n is n; an
//! L-shaped Chomp bar (one column of height a and a row of length b, `a111…`) is two Nim
//! heaps a−1 and b−1, and a single row of n squares is a heap of n−1; Kayles and Dawson's
//! Kayles are the published sequences (tests/common, tests/descriptors.rs).

use crate::common;

use common::run_in;
use serde_json::Value as Json;

fn solve(args: &[&str]) -> (i32, Json, String) {
    let mut all = vec!["solve"];
    all.extend_from_slice(args);
    all.push("--json");
    let (code, out, err) = run_in(&all, "");
    (code, serde_json::from_str(&out).unwrap_or(Json::Null), err)
}

fn grundies(j: &Json) -> Vec<u64> {
    j["sum"].as_array().unwrap().iter().map(|t| t["grundy"].as_u64().unwrap()).collect()
}

#[test]
fn a_sum_of_three_games_each_by_its_own_engine() {
    // L-shaped Chomp 4111 is Nim 3 + 3 = 0; Nim 3 is 3; Kayles 10 is 2 (Winning Ways).
    let (code, j, err) = solve(&["chomp:4111 + nim:3 + kayles:10"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(grundies(&j), [0, 3, common::kayles(10)]);
    assert_eq!((j["grundy"].as_u64(), j["value"].as_str()), (Some(1), Some("win")));
    // Only the Nim heap can bring the sum to 0: 3 -> 2.
    let moves = j["winning_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1, "{j}");
    assert_eq!((moves[0]["component"].as_u64(), moves[0]["position"].as_str()), (Some(2), Some("2")));
    assert_eq!(moves[0]["sum"], "4111 + 2 + 10");
    assert!(j["remoteness"].is_null() && j["remoteness_note"].as_str().is_some());
    let engines: Vec<&str> = j["sum"].as_array().unwrap().iter().map(|t| t["engine"].as_str().unwrap()).collect();
    assert_eq!(engines, ["native", "native", "script"]);
}

#[test]
fn winning_moves_inside_a_component() {
    // Chomp 4111 (0) + a row of four squares 1111 (a heap of 3): the row must go down to the
    // poisoned square alone (written 1000: the columns stay, empty).
    let (_, j, _) = solve(&["chomp:4111 + chomp:1111"]);
    assert_eq!(grundies(&j), [0, 3]);
    let moves: Vec<(u64, &str)> = j["winning_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["component"].as_u64().unwrap(), m["position"].as_str().unwrap()))
        .collect();
    assert_eq!(moves, [(2, "1000")]);
    // Equal components cancel.
    let (_, j, _) = solve(&["nim:3,5 + nim:6"]);
    assert_eq!((j["grundy"].as_u64(), j["value"].as_str()), (Some(0), Some("lose")));
}

#[test]
fn huge_heap_games_add_up_from_their_sequences() {
    // Kayles is periodic (12) from 72: K(100000) = K(100000 mod 12 + 72) = K(76) = 1.
    // Dawson's Kayles (34, from 53): D(10000) = D(72) = 2. The sum is 3.
    let (code, j, err) = solve(&["kayles.ron:100000 + dawsons-kayles:10000"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(grundies(&j), [1, 2]);
    assert_eq!(j["grundy"], 3);
    // Every winning move leaves Grundy value 0 in the whole sum.
    for m in j["winning_moves"].as_array().unwrap() {
        let g = m["grundy"].as_u64().unwrap();
        let other = if m["component"] == 1 { 2 } else { 1 };
        assert_eq!(g, other, "{m}");
    }
}

#[test]
fn misere_sums_are_searched_whole() {
    // Misère Nim: with all heaps of 1, the player to move loses when their number is odd.
    let (_, j, _) = solve(&["nim:1 + nim:1", "--misere"]);
    assert_eq!(j["value"], "win");
    let (_, j, _) = solve(&["nim:1 + nim:1 + nim:1", "--misere"]);
    assert_eq!(j["value"], "lose");
    // With a heap above 1 it is normal Nim's rule: 3 xor 5 is not 0, a win; and the whole
    // search agrees with the single game Nim 3,5 in value and remoteness.
    let (_, sum, _) = solve(&["nim:3 + nim:5", "--misere"]);
    let (_, one, _) = solve(&["nim", "3,5", "--misere"]);
    assert_eq!(sum["value"], "win");
    assert_eq!((sum["value"].clone(), sum["remoteness"].clone()), (one["value"].clone(), one["remoteness"].clone()));
    let (_, text, _) = run_in(&["solve", "nim:3 + nim:5", "--misere"], "");
    assert!(text.contains("searched whole"), "{text}");
}

#[test]
fn what_cannot_be_added_is_refused() {
    for (expr, says) in [
        ("chomp:4432 + tictactoe:.........", "only impartial games add up"),
        ("nim:3 + nim:", "both given"),
        ("nim:3 + 5", "not a term of a sum"),
        ("chomp:3432 + nim:1", "invalid position"),
        ("nosuchgame:3 + nim:1", "no game named"),
    ] {
        let (code, out, err) = run_in(&["solve", expr], "");
        assert_eq!(code, 1, "{expr}: {out}");
        assert!(err.contains(says), "{expr}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
