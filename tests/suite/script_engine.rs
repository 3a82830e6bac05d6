//! The engine under scripts: what it changes must not change what a script means.

use crate::common;

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

#[test]
fn packed_positions_count_what_the_descriptor_counts() {
    // Domineering as a script whose positions are [cells as a string, columns, turn] (packed
    // a bit a cell) against the native descriptor (games/domineering.ron), a second
    // implementation: the same positions, moves and values on 4×4 (by hand for 2×2: the
    // first player takes a column and wins in 1). A packing that merged two positions, or
    // split one, would change the counts.
    let script = run_in(&["analyze", "tests/games/domineering.rhai", "4x4", "--json"], "");
    let native = run_in(&["analyze", "domineering", "4x4", "--json"], "");
    assert_eq!((script.0, native.0), (0, 0), "{}{}", script.2, native.2);
    let (s, n): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&script.1).unwrap(), serde_json::from_str(&native.1).unwrap());
    for field in ["positions", "moves", "by_value", "by_remoteness", "value", "remoteness"] {
        assert_eq!(s[field], n[field], "{field}");
    }
    assert!(s["positions"].as_u64().unwrap() > 2000, "{s}");
    let (code, out, err) = run_in(&["solve", "tests/games/domineering.rhai", "2x2"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value:       win") && out.contains("remoteness:  1"), "{out}");
}

#[test]
fn a_children_list_with_a_bad_entry_is_named_as_before() {
    // The keys of a `children` list are made all at once; an entry that is `()` or a float
    // still stops the run with the hook's line and what is wrong with that entry.
    let script = |entry: &str| {
        format!(
            "const KIND = \"impartial\";\nfn parse(t) {{ t.parse_int() }}\nfn moves(p) {{ if p > 0 {{ [1] }} else {{ [] }} }}\n\
             fn play(p, m) {{ p - m }}\nfn children(p) {{ if p > 0 {{ [p - 1, {entry}] }} else {{ [] }} }}\n"
        )
    };
    for (entry, want) in
        [("()", "children returned () instead of a position"), ("0.5", "children returned a value of type")]
    {
        let dir = std::env::temp_dir().join(format!("gamesman-children-entry-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(if entry == "()" { "unit.rhai" } else { "float.rhai" });
        std::fs::write(&file, script(entry)).unwrap();
        let (code, _, err) = run_in(&["solve", file.to_str().unwrap(), "3"], "");
        assert_ne!(code, 0);
        assert!(err.contains(want), "{entry}: {err}");
        assert!(err.contains(":5: "), "the line of `children`: {err}");
    }
}
