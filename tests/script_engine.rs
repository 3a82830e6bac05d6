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
