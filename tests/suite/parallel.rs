//! The whole-game solve on several threads (`analyze --threads N`) gives exactly what one
//! thread gives: the same positions in the same order, so the same report, figure for
//! figure; and the figures are the known ones.

use crate::common;

use common::run_in;
use serde_json::Value as Json;

/// The report without its timing, its memory (measured in part: each thread holds a copy of
/// the game) and its thread count (checked: the native TacTix module cannot be copied to
/// other threads and runs on one; every script and descriptor can).
fn analyze(args: &[&str], threads: &str) -> Json {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "--threads", threads]);
    let (code, out, err) = run_in(&all, "");
    assert_eq!(code, 0, "{err}");
    let mut j: Json = serde_json::from_str(&out).unwrap();
    let o = j.as_object_mut().unwrap();
    for k in ["seconds", "memory_bytes", "memory"] {
        o.remove(k);
    }
    let used = if args[0] == "tactix" { 1 } else { threads.parse::<u64>().unwrap() };
    assert_eq!(o.remove("threads"), Some(Json::from(used)), "{args:?}");
    j
}

#[test]
fn one_thread_or_many_the_same_answers() {
    for args in [
        &["tictactoe"][..],
        &["connect4", "4x4k3"],
        &["cram", "####/####/####"],
        &["kayles", "12"],
        &["lightsout.rhai", "##0/#00/000", "--engine", "script"],
        &["tactix", "111/111/111"],
        &["kayles", "9", "--misere"],
        &["kayles.ron", "12"],
        &["cram.ron", "####/####/####"],
        &["nim.rhai", "1,2,3", "--misere", "--engine", "script"],
    ] {
        let one = analyze(args, "1");
        for t in ["2", "3", "7"] {
            assert_eq!(analyze(args, t), one, "{args:?} on {t} threads");
        }
    }
    // And the known figures: tic-tac-toe's 5,478 positions; Connect-3 on 4×4 a first-player
    // win in 9; Cram 3×4 Grundy value 1; the full 3×3 TacTix board's 512 positions.
    assert_eq!(analyze(&["tictactoe"], "2")["positions"], 5478);
    let c3 = analyze(&["connect4", "4x4k3"], "2");
    assert_eq!((c3["value"].as_str(), c3["remoteness"].as_u64()), (Some("win"), Some(9)));
    assert_eq!(analyze(&["cram", "####/####/####"], "2")["grundy"], 1);
    assert_eq!(analyze(&["tactix", "111/111/111"], "2")["positions"], 512);
    // Misère Nim: with a heap of two or more, the normal-play rule (1,2,3 has XOR 0: a loss);
    // with heaps of one only, an odd count loses (1,1,1).
    let nim = |p: &str| analyze(&["nim.rhai", p, "--misere", "--engine", "script"], "2")["value"].clone();
    assert_eq!(
        (nim("1,2,3"), nim("1,1,1"), nim("1,1"), nim("2,2,1")),
        ("lose".into(), "lose".into(), "win".into(), "win".into())
    );
}

#[test]
fn errors_on_a_worker_thread_are_reported_as_on_one() {
    // A script error met while expanding on a worker: one line, exit 1, as on one thread.
    let (code1, _, err1) = run_in(&["analyze", "tests/games/broken_runtime.rhai", "3", "--threads", "1"], "");
    let (code2, _, err2) = run_in(&["analyze", "tests/games/broken_runtime.rhai", "3", "--threads", "2"], "");
    assert_eq!((code1, code2), (1, 1));
    assert_eq!(err1, err2);
    assert!(err1.contains("no_such_helper"), "{err1}");
    // The time limit stops the workers too (Connect-4 4×5 takes minutes).
    let (code, _, err) = run_in(&["analyze", "connect4", "4x5k4", "--threads", "2", "--time-limit", "1"], "");
    assert_eq!(code, 1);
    assert!(err.contains("time limit"), "{err}");
    // The memory budget holds too.
    let (code, _, err) = run_in(&["analyze", "connect4", "4x4k3", "--threads", "2", "--max-memory", "1"], "");
    assert_eq!(code, 1);
    assert!(err.contains("memory budget"), "{err}");
}

/// `solve`'s report without its timing and its count of positions visited (a solve on several
/// threads visits some positions twice: first depth-first, then the whole game).
fn solve(args: &[&str], threads: &str) -> Json {
    let mut all = vec!["solve"];
    all.extend_from_slice(args);
    // `--parallel-after 0`: over to all threads at once (by default after a quarter second).
    all.extend_from_slice(&["--json", "--no-db", "--threads", threads, "--parallel-after", "0"]);
    let (code, out, err) = run_in(&all, "");
    assert_eq!(code, 0, "{err}");
    let mut j: Json = serde_json::from_str(&out).unwrap();
    let o = j.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("positions_visited");
    j
}

#[test]
fn solve_on_many_threads_gives_what_one_gives() {
    // A partisan game with a win, an impartial one (Grundy values computed alongside), a
    // loopy one, and a descriptor, each explored on all threads from the start.
    let cases: [&[&str]; 3] =
        [&["connect4", "4x4k3"], &["chomp.rhai", "88888888", "--engine", "script"], &["tests/games/ring.rhai", "r"]];
    for args in cases {
        let one = solve(args, "1");
        for t in ["2", "3"] {
            assert_eq!(solve(args, t), one, "{args:?} on {t} threads");
        }
    }
    // The known values: Connect-3 on 4×4 a first-player win in 9; a rectangle of Chomp a
    // first-player win (strategy stealing); Cram 4×5 Grundy value 2; the ring game drawn by
    // hand in its file.
    assert_eq!(solve(&["cram.ron", "#####/#####/#####/#####"], "2")["grundy"], 2);
    let c3 = solve(&["connect4", "4x4k3"], "2");
    assert_eq!((c3["value"].as_str(), c3["remoteness"].as_u64()), (Some("win"), Some(9)));
    assert_eq!(solve(&["chomp.rhai", "88888888", "--engine", "script"], "2")["value"], "win");
    let ring = solve(&["tests/games/ring.rhai", "r"], "2");
    assert_eq!(ring["value"], "draw");
    let moves = ring["winning_moves"].as_array().unwrap();
    assert_eq!((moves.len(), moves[0]["position"].as_str()), (1, Some("5000")));
    let line = solve(&["tests/games/ring.rhai", "4999"], "2");
    assert_eq!((line["value"].as_str(), line["remoteness"].as_u64()), (Some("win"), Some(4999)));
}
