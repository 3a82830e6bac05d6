//! The helpers scripts call, each run in a script engine as a script calls it.

use rhai::Dynamic;

fn eval<T: Clone + 'static>(script: &str) -> T {
    super::sandbox::engine().eval::<T>(script).unwrap_or_else(|e| panic!("{script}: {e}"))
}

fn error(script: &str) -> String {
    super::sandbox::engine().eval::<Dynamic>(script).expect_err(script).to_string()
}

#[test]
fn count_characters() {
    assert_eq!(eval::<i64>(r#""xox.x".count('x')"#), 3);
    assert_eq!(eval::<i64>(r#""".count('x')"#), 0);
}

#[test]
fn any_line_on_strings_and_arrays() {
    let lines = "[[0,1,2],[3,4,5],[0,4,8]]";
    assert!(eval::<bool>(&format!(r#"any_line("x...x...x", {lines}, 'x')"#)));
    assert!(!eval::<bool>(&format!(r#"any_line("xx.oo....", {lines}, 'x')"#)));
    assert!(eval::<bool>(&format!("any_line([0,0,0,2,2,2,0,0,0], {lines}, 2)")));
    assert!(!eval::<bool>(&format!("any_line([0,0,0,2,2,2,0,0,0], {lines}, 1)")));
    // An empty line is never full.
    assert!(!eval::<bool>(r#"any_line("x", [[]], 'x')"#));
    assert!(error(r#"any_line("xx", [[0, 5]], 'x')"#).contains("index 5 is outside 0..2"));
}

#[test]
fn least_image_under_symmetries() {
    // Reversal of a 3-cell row: "xo." and ".ox" are one position, ".ox" the least.
    let syms = "[[0,1,2],[2,1,0]]";
    assert_eq!(eval::<String>(&format!(r#"least_image("xo.", {syms})"#)), ".ox");
    assert_eq!(eval::<String>(&format!(r#"least_image(".ox", {syms})"#)), ".ox");
    let a = eval::<rhai::Array>(&format!("least_image([3, 1, 2], {syms})"));
    assert_eq!(a.iter().map(|v| v.as_int().unwrap()).collect::<Vec<_>>(), vec![2, 1, 3]);
    // The value itself counts as an image, whether or not the identity is listed.
    assert_eq!(eval::<String>(r#"least_image("ab", [[1, 0]])"#), "ab");
    assert_eq!(eval::<String>(r#"least_image("ba", [[1, 0]])"#), "ab");
    assert!(error(r#"least_image("abc", [[0, 0, 1]])"#).contains("a symmetry is an array of the 3 indices"));
    assert!(error(r#"least_image("abc", [[0, 1]])"#).contains("a symmetry is an array of the 3 indices"));
}

#[test]
fn swaps_of_two_cells() {
    assert_eq!(eval::<String>(r#""ab.".swapped(2, 0)"#), ".ba");
    assert_eq!(eval::<String>(r#""aé.".swapped(1, 2)"#), "a.é");
    let all = eval::<rhai::Array>(r#""1.3".swaps(1, [0, 2])"#);
    assert_eq!(all.iter().map(|v| v.to_string()).collect::<Vec<_>>(), [".13", "13."]);
    let wide = eval::<rhai::Array>(r#""aé.b".swaps(2, [0, 1, 3])"#);
    assert_eq!(wide.iter().map(|v| v.to_string()).collect::<Vec<_>>(), [".éab", "a.éb", "aéb."]);
    assert!(error(r#""aé.".swaps(2, [0, 3])"#).contains("index 3 is outside 0..3"));
    let a = eval::<rhai::Array>("[1, 0, 3].swapped(1, 2)");
    assert_eq!(a.iter().map(|v| v.as_int().unwrap()).collect::<Vec<_>>(), [1, 3, 0]);
    assert_eq!(eval::<rhai::Array>("[1, 0, 3].swaps(1, [0, 2, 1])").len(), 3);
    assert!(error(r#""abc".swapped(0, 3)"#).contains("index 3 is outside 0..3"));
    assert!(error("[1, 2].swaps(0, [1, 2])").contains("index 2 is outside 0..2"));
}

#[test]
fn splits_of_a_heap() {
    // 6 = 1 + 5 = 2 + 4 = 3 + 3; unequal: without 3 + 3.
    let text = "let s = \"\"; for p in splits(6) { s += `${p[0]}+${p[1]} `; } s";
    assert_eq!(eval::<String>(text), "1+5 2+4 3+3 ");
    assert_eq!(eval::<rhai::Array>("unequal_splits(6).to_array()").len(), 2);
    assert_eq!(eval::<rhai::Array>("splits(1).to_array()").len(), 0);
    assert!(error("splits(-1)").contains("a heap is a whole number"));
}

#[test]
fn segments_of_given_lengths() {
    // Dominoes on a full 2×3 board: 2 a row, 3 columns of one.
    assert_eq!(eval::<rhai::Array>("full_grid(2, 3).segments(2, 2)").len(), 7);
    assert_eq!(eval::<rhai::Array>("full_grid(2, 3).run_removals(2, 2)").len(), 7);
    assert!(error("full_grid(2, 3).segments(3, 2)").contains("segment lengths 3 to 2"));
    assert!(error("full_grid(2, 3).segments(0, 2)").contains("segment lengths 0 to 2"));
}

/// Hex connection by a second method: grow X's (or O's) region from its first side by
/// sweeping every cell until nothing changes, with the six neighbours written out.
fn oracle_joined(cells: &[u8], n: usize, who: u8) -> bool {
    let mut reach = vec![false; n * n];
    for i in 0..n {
        let c = if who == b'x' { i } else { i * n };
        reach[c] = cells[c] == who;
    }
    loop {
        let mut grew = false;
        for r in 0..n {
            for c in 0..n {
                if reach[r * n + c] || cells[r * n + c] != who {
                    continue;
                }
                let near = [
                    r > 0 && reach[(r - 1) * n + c],
                    r > 0 && c + 1 < n && reach[(r - 1) * n + c + 1],
                    c > 0 && reach[r * n + c - 1],
                    c + 1 < n && reach[r * n + c + 1],
                    r + 1 < n && c > 0 && reach[(r + 1) * n + c - 1],
                    r + 1 < n && reach[(r + 1) * n + c],
                ];
                if near.iter().any(|&b| b) {
                    reach[r * n + c] = true;
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    (0..n).any(|i| reach[if who == b'x' { (n - 1) * n + i } else { i * n + n - 1 }])
}

#[test]
fn connects_agrees_with_a_second_method_on_random_hex_boards() {
    let engine = super::sandbox::engine();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut joined = 0;
    for trial in 0..600 {
        let n = 1 + trial % 6;
        let cells: Vec<u8> = (0..n * n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                [b'x', b'o', b'.'][(seed % 3) as usize]
            })
            .collect();
        let rows: Vec<String> = cells.chunks(n).map(|r| String::from_utf8(r.to_vec()).unwrap()).collect();
        let text = rows.join("/");
        let ints: Vec<String> = cells
            .iter()
            .map(|&c| {
                if c == b'x' {
                    "1"
                } else if c == b'o' {
                    "2"
                } else {
                    "0"
                }
                .to_string()
            })
            .collect();
        for (who, ch, int, from, to) in [(b'x', 'x', 1, "top", "bottom"), (b'o', 'o', 2, "left", "right")] {
            let want = oracle_joined(&cells, n, who);
            joined += want as usize;
            let steps = "[[-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0]]";
            let on_text = format!(r#"connects("{text}", {n}, '{ch}', {steps}, "{from}", "{to}")"#);
            assert_eq!(engine.eval::<bool>(&on_text).unwrap(), want, "{on_text}");
            // The same neighbours by name; and through a variable of no declared type.
            let named = format!(r#"connects("{text}", {n}, '{ch}', "hex", "{from}", "{to}")"#);
            assert_eq!(engine.eval::<bool>(&named).unwrap(), want, "{named}");
            let named = format!(r#"let s = "hex"; connects([{}], {n}, {int}, s, "{from}", "{to}")"#, ints.join(","));
            assert_eq!(engine.eval::<bool>(&named).unwrap(), want, "{named}");
            let on_ints = format!(r#"connects([{}], {n}, {int}, {steps}, "{from}", "{to}")"#, ints.join(","));
            assert_eq!(engine.eval::<bool>(&on_ints).unwrap(), want, "{on_ints}");
            // The sides as arrays of cells.
            let cells_of = |name: &str| -> String {
                let v: Vec<String> = (0..n)
                    .map(|i| match name {
                        "top" => i,
                        "bottom" => (n - 1) * n + i,
                        "left" => i * n,
                        _ => i * n + n - 1,
                    })
                    .map(|c| c.to_string())
                    .collect();
                format!("[{}]", v.join(","))
            };
            let by_cells = format!(r#"connects("{text}", {n}, '{ch}', {steps}, {}, {})"#, cells_of(from), cells_of(to));
            assert_eq!(engine.eval::<bool>(&by_cells).unwrap(), want, "{by_cells}");
        }
    }
    // Both answers occur often enough for the comparison to mean something.
    assert!(joined > 150 && joined < 1050, "{joined} boards joined of 1200");
}

#[test]
fn connects_refuses_bad_input() {
    let steps = "[[0, 1]]";
    assert!(error(&format!(r#"connects("xxx", 2, 'x', {steps}, "left", "right")"#)).contains("not rows of 2"));
    assert!(error(&format!(r#"connects("xx", 2, 'x', {steps}, "up", "right")"#)).contains("not \"up\""));
    assert!(error(&format!(r#"connects("xx", 2, 'x', {steps}, [0, 7], "right")"#)).contains("cell 7 is outside"));
    assert!(error(r#"connects("xx", 2, 'x', [[0]], "left", "right")"#).contains("[row, column] pairs"));
    assert!(error(r#"connects("xx", 2, 1, [[0, 1]], "left", "right")"#).contains("the piece is a character"));
    assert!(error(r#"connects("xx", 2, 'x', "square", "left", "right")"#).contains("not \"square\""));
    // The neighbours by name, by hand: x on a diagonal, corner to corner.
    for (board, hex, orthogonal, king) in [("x./.x", false, false, true), (".x/x.", true, false, true)] {
        for (steps, want) in [("hex", hex), ("orthogonal", orthogonal), ("king", king)] {
            let call = format!(r#"connects("{board}", 2, 'x', "{steps}", "top", "bottom")"#);
            assert_eq!(eval::<bool>(&call), want, "{call}");
        }
    }
    // Steps that do not join a row's cells: no connection across it.
    assert!(eval::<bool>(r#"connects("xx", 2, 'x', [[0, 1]], "left", "right")"#));
    assert!(!eval::<bool>(r#"connects("xx", 2, 'x', [[1, 0]], "left", "right")"#));
}

#[test]
fn pairs_agree_with_every_cell_tried() {
    let engine = super::sandbox::engine();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for trial in 0..200 {
        let (rows, cols) = (1 + trial % 5, 1 + trial / 5 % 6);
        let cells: Vec<bool> = (0..rows * cols)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                !seed.is_multiple_of(3)
            })
            .collect();
        let text: String = cells.iter().map(|&e| if e { '.' } else { '#' }).collect();
        for (dr, dc) in [(1i64, 0i64), (0, 1), (1, 1), (-1, 2)] {
            let want: Vec<i64> = (0..rows * cols)
                .filter(|&i| {
                    let (r, c) = ((i / cols) as i64 + dr, (i % cols) as i64 + dc);
                    cells[i]
                        && (0..rows as i64).contains(&r)
                        && (0..cols as i64).contains(&c)
                        && cells[r as usize * cols + c as usize]
                })
                .map(|i| i as i64)
                .collect();
            let call = format!(r#"pairs("{text}", {cols}, '.', {dr}, {dc})"#);
            let got: Vec<i64> =
                engine.eval::<rhai::Array>(&call).unwrap().iter().map(|v| v.as_int().unwrap()).collect();
            assert_eq!(got, want, "{call}");
        }
    }
    // By hand: vertical dominoes on a 2×3 board whose middle top cell is covered.
    let got = eval::<rhai::Array>(r#"pairs(".#./...", 3, '.', 1, 0)"#);
    assert_eq!(got.iter().map(|v| v.as_int().unwrap()).collect::<Vec<_>>(), vec![0, 2]);
    assert!(error(r#"pairs("...", 2, '.', 1, 0)"#).contains("pairs: a board of 3 cells is not rows of 2"));
}

#[test]
fn placements_put_a_piece_on_each_empty_cell() {
    let a = eval::<rhai::Array>(r#"placements("x../.o.", '.', 'o')"#);
    let got: Vec<String> = a.iter().map(|v| v.to_string()).collect();
    assert_eq!(got, ["xo./.o.", "x.o/.o.", "x../oo.", "x../.oo"]);
    let a = eval::<rhai::Array>("placements([1, 0, 2, 0], 0, 2)");
    let got: Vec<Vec<i64>> =
        a.iter().map(|v| v.clone().into_array().unwrap().iter().map(|x| x.as_int().unwrap()).collect()).collect();
    assert_eq!(got, [vec![1, 2, 2, 0], vec![1, 0, 2, 2]]);
    assert!(eval::<rhai::Array>(r#"placements("xo", '.', 'x')"#).is_empty());
    assert!(error(r#"let s = "."; s.pad(5000, '.'); placements(s, '.', 'x')"#).contains("more than the 16777216"));
}

/// Pushes worked by hand on a 3×3 board (cells 0..9 row by row, then a turn character):
/// taking the corner 0 and pushing in at 2 shifts cells 1 and 2 left; taking 2 and pushing
/// in at 0 shifts them right.
#[test]
fn pushes_worked_by_hand() {
    assert_eq!(eval::<String>(r#""xo.o..x..o".pushed([0, 1, 2], 'o')"#), "o.oo..x..o");
    assert_eq!(eval::<String>(r#""xo.o..x..o".pushed([2, 1, 0], 'o')"#), "oxoo..x..o");
    assert_eq!(eval::<String>(r#""xo.o..x..o".pushed([6, 3, 0], 'o')"#), "oo.x..o..o");
    assert_eq!(eval::<String>(r#""ab".pushed([1], 'c')"#), "ac", "a path of one cell replaces it");
    // Only paths whose first cell holds one of `takes`, in order: 0 holds x (not taken
    // by o), 2 holds . (taken), 6 holds x.
    let all: rhai::Array = eval(r#""xo.o..x..o".pushes([[0, 1, 2], [2, 1, 0], [6, 3, 0], [2, 5, 8]], ".o", 'o')"#);
    let all: Vec<String> = all.into_iter().map(|d| d.into_string().unwrap()).collect();
    assert_eq!(all, ["oxoo..x..o", "xo.o..x.oo"]);
    // Arrays of integers: 0 empty, 1 and 2 pieces.
    let a: rhai::Array = eval("[1, 0, 2, 0].pushes([[0, 1, 2, 3], [3, 2, 1, 0], [1, 0]], [0, 2], 2)");
    let a: Vec<Vec<i64>> =
        a.into_iter().map(|d| d.into_array().unwrap().iter().map(|v| v.as_int().unwrap()).collect()).collect();
    assert_eq!(a, [vec![2, 1, 0, 2], vec![2, 1, 2, 0]]);
    assert_eq!(
        eval::<rhai::Array>("[1, 0, 2].pushed([0, 2], 5)").iter().map(|v| v.as_int().unwrap()).collect::<Vec<_>>(),
        [2, 0, 5]
    );
    // A top-level constant as the paths (shared with the call, not copied).
    let n: i64 =
        super::sandbox::engine().eval("const P = [[0, 1], [1, 0]]; \"..x\".pushes(P, \".\", 'y').len()").unwrap();
    assert_eq!(n, 2);
    assert!(error(r#""abc".pushed([0, 3], 'x')"#).contains("cell 3 is outside 0..3"));
    assert!(error(r#""abc".pushed([], 'x')"#).contains("non-empty array of cell numbers"));
    assert!(error(r#""abc".pushes([[0, "a"]], "a", 'x')"#).contains("non-empty array of cell numbers"));
    assert!(error(r#""abc".pushes(3, "a", 'x')"#).contains("an array of paths"));
}
