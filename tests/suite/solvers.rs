//! Solver behaviour: loops and draws, depth, misère, the memory budget.

use crate::common;
use common::*;
use gamesman::game::{Game, Value};
use gamesman::solve::{Analyzer, Options};

#[test]
fn loopy_game_values_drawn_by_hand() {
    let g = test_game("loopy");
    let expect = [
        (0, Value::Lose, Some(0)),
        (1, Value::Win, Some(1)),
        (2, Value::Draw, None),
        (3, Value::Draw, None),
        (4, Value::Win, Some(1)),
        (5, Value::Draw, None),
        (6, Value::Lose, Some(2)),
        (7, Value::Tie, Some(0)),
        (8, Value::Tie, Some(1)), // a tie is better than a draw
    ];
    for (p, value, remoteness) in expect {
        let r = solve(&g, &p.to_string(), true);
        assert_eq!((r.value, r.remoteness), (value, remoteness), "position {p}");
    }
    // From 3, the only move that does not lose is back to 2.
    let r = solve(&g, "3", true);
    assert_eq!(r.winning_moves.iter().map(|m| m.position.as_str()).collect::<Vec<_>>(), ["2"]);
}

#[test]
fn a_million_moves_deep_without_overflowing_the_stack() {
    let g = test_game("countdown");
    let r = solve(&g, "1000000", true);
    // Subtraction set {1}: n even is a loss, with remoteness n; Grundy value n mod 2.
    assert_eq!((r.value, r.remoteness, r.grundy), (Value::Lose, Some(1_000_000), Some(0)));
}

#[test]
fn misere_nim_small_cases_by_hand() {
    // Misère Nim: with every heap at most 1, the player to move wins iff the number of
    // 1-heaps is even; otherwise as in normal play.
    // 1,2,3 has a heap above 1, so it is played as in normal play: 1^2^3 = 0 loses.
    for (heaps, win) in
        [("1", false), ("1,1", true), ("1,1,1", false), ("2", true), ("2,2", false), ("1,2,3", false), ("1,1,2", true)]
    {
        let r = solve_misere(game("nim"), heaps);
        assert_eq!(r.value == Value::Win, win, "misère {heaps}");
        assert_eq!(r.grundy, None, "no Grundy values under misère play");
    }
}

#[test]
fn misere_tactix_3x3() {
    // In misère TacTix a single token is a loss for the player to move (they must take it).
    let r = solve_misere(game("tactix"), "1");
    assert_eq!(r.value, Value::Lose);
    // Two separate tokens: take one, leave the other to the opponent.
    let r = solve_misere(game("tactix"), "101");
    assert_eq!(r.value, Value::Win);
}

#[test]
fn a_tiny_memory_budget_evicts_but_gives_the_same_answers() {
    let g = game("chomp");
    let pos = g.parse("8888888").unwrap();
    let big = Analyzer::new(&g, Options::default()).solve(&pos).unwrap();
    // 6,435 positions; a 256 KiB budget gives the memo 192 KiB, which does not hold them all
    // (a position is a record of its packed bytes, its solution and its work, 24 bytes, and
    // 12 of table: about 226 KiB for all), and the search's path the other 64 KiB, which is
    // enough for it.
    let mut small = Analyzer::new(&g, Options { max_memory: 256 << 10, ..Options::default() });
    let r = small.solve(&pos).unwrap();
    assert!(r.evicted > 0, "a 256 KiB budget must evict");
    assert_eq!((r.value, r.remoteness, r.grundy), (big.value, big.remoteness, big.grundy));
    assert_eq!(
        r.winning_moves.iter().map(|m| &m.position).collect::<Vec<_>>(),
        big.winning_moves.iter().map(|m| &m.position).collect::<Vec<_>>()
    );
}

#[test]
fn puzzle_positions_one_press_from_solved() {
    // One press in the middle of an all-off 3×3 board lights a plus: one press solves it.
    let r = solve(&game("lightsout"), "0#0/###/0#0", true);
    assert_eq!((r.value, r.remoteness), (Value::Win, Some(1)));
    assert_eq!(r.winning_moves[0].name, "1:1");
    let r = solve(&game("lightsout"), "000/000", true);
    assert_eq!((r.value, r.remoteness), (Value::Win, Some(0)));
}

#[test]
fn the_example_in_the_scripting_guide_works() {
    let doc = std::fs::read_to_string(root().join("docs/scripting.md")).unwrap();
    let start = doc.find("```rhai\n").expect("a rhai example") + "```rhai\n".len();
    let source = &doc[start..start + doc[start..].find("```").unwrap()];
    let g = gamesman::script::ScriptGame::from_source("docs/scripting.md", source).unwrap();
    // Subtraction set {1, 3, 4}: g(n) = mex{g(n-1), g(n-3), g(n-4)} = 0,1,0,1,2,3,2 repeating.
    let period = [0, 1, 0, 1, 2, 3, 2];
    for n in 0..30 {
        let r = solve(&g, &n.to_string(), true);
        assert_eq!(r.grundy, Some(period[n % 7]), "n = {n}");
        assert_eq!(r.value == Value::Win, period[n % 7] != 0);
    }
}
