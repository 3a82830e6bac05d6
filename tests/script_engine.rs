//! The engine under scripts: what it changes must not change what a script means.

mod common;

use common::*;

#[test]
fn a_constant_read_without_a_copy_is_still_a_constant() {
    // `moves` copies global::T and global::M into locals and changes the copies; it throws
    // if the constants changed. Three positions, each calling `moves`.
    let (code, out, err) = run_in(&["solve", "tests/games/constants.rhai", "3"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value:       win"), "{out}");
}

#[test]
fn the_parallel_explorer_says_when_it_throws_its_work_away() {
    // Connect-3 on 4×4 (about 20,000 positions) on 2 threads at once, with 1 MiB: the
    // explorer cannot hold the game and the one-thread search takes over; the answer is the
    // same (X wins, the script's own note and the full search agree) and the progress line says why
    // the count started again.
    let (code, out, err) = run_in(
        &[
            "solve",
            "connect4",
            "4x4k3",
            "--threads",
            "2",
            "--parallel-after",
            "0",
            "--max-memory",
            "1",
            "--progress",
            "--full-search",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value:       win"), "{out}");
    assert!(err.contains("note: the search on 2 threads keeps every position in memory"), "{err}");
    assert!(err.contains("the count of positions starts again"), "{err}");
}
