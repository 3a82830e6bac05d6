//! The value-first search (`solve` and `moves` without `--full-search`): every value it gives
//! agrees with the full search (a second, independent solver: retrograde analysis with
//! remoteness), and it looks at fewer positions where a win is found early.

use crate::common;

use common::*;
use gamesman::game::{Game, Value};
use gamesman::solve::{Analyzer, Options};
use std::collections::{HashSet, VecDeque};

fn analyzer<G: Game>(game: &G, full: bool) -> Analyzer<&G> {
    Analyzer::new(game, Options { full_search: full, remoteness: full, ..Options::default() })
}

/// Every position reachable from `start` in at most `depth` moves.
fn reachable<G: Game>(game: &G, start: &str, depth: usize) -> Vec<G::Pos> {
    let root = game.parse(start).unwrap();
    let mut seen: HashSet<String> = HashSet::from([game.format(&root).unwrap()]);
    let mut out = vec![root.clone()];
    let mut queue = VecDeque::from([(root, 0)]);
    while let Some((p, d)) = queue.pop_front() {
        if d == depth || game.primitive(&p).unwrap().is_some() {
            continue;
        }
        for m in game.moves(&p).unwrap() {
            let c = game.play(&p, &m).unwrap();
            if seen.insert(game.format(&c).unwrap()) {
                out.push(c.clone());
                queue.push_back((c, d + 1));
            }
        }
    }
    out
}

fn agree_everywhere<G: Game>(game: &G, start: &str, depth: usize) -> usize {
    let positions = reachable(game, start, depth);
    let mut quick = analyzer(game, false);
    let mut full = analyzer(game, true);
    for p in &positions {
        let q = quick.solve(p).unwrap();
        let f = full.solve(p).unwrap();
        let text = game.format(p).unwrap();
        assert_eq!(q.value, f.value, "{text}");
        // The moves that keep the value: the same set by both searches.
        let names =
            |r: &gamesman::solve::Report| r.winning_moves.iter().map(|m| m.name.clone()).collect::<HashSet<_>>();
        assert_eq!(names(&q), names(&f), "{text}");
        assert!(q.remoteness.is_none(), "--no-remoteness: {text}");
    }
    positions.len()
}

#[test]
fn tictactoe_every_position_agrees_with_the_full_search() {
    // 5,478 positions are reachable in tic-tac-toe (the well-known count).
    assert_eq!(agree_everywhere(&game("tictactoe"), ".........", 9), 5478);
    let g = game("tictactoe");
    let mut quick = analyzer(&g, false);
    // Tic-tac-toe is a tie.
    assert_eq!(quick.solve(&g.parse(".........").unwrap()).unwrap().value, Value::Tie);
}

#[test]
fn connect3_on_4x4_agrees_with_the_full_search() {
    let g = game("connect4");
    agree_everywhere(&g, "4x4k3", 4);
}

#[test]
fn hex_is_a_first_player_win_and_the_value_first_search_looks_at_less() {
    // Nash's strategy-stealing argument: the first player wins Hex on every n×n board.
    let g = test_game("hex");
    for n in ["2", "3"] {
        let pos = g.parse(n).unwrap();
        let mut quick = analyzer(&g, false);
        let mut full = analyzer(&g, true);
        let q = quick.solve(&pos).unwrap();
        let f = full.solve(&pos).unwrap();
        assert_eq!(q.value, Value::Win, "{n}x{n}");
        assert_eq!(f.value, Value::Win, "{n}x{n}");
        if n == "3" {
            assert!(q.visited < f.visited / 2, "value first {} positions, full {}", q.visited, f.visited);
        }
    }
}

#[test]
fn solve_says_why_the_remoteness_is_missing() {
    let (code, out, err) = run_in(&["solve", "tests/games/hex.rhai", "3", "--no-remoteness"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value:       win"), "{out}");
    assert!(out.contains("not searched (--no-remoteness)"), "{out}");
    // The default finds the value first, then the remoteness, found by the full search in
    // its share of time: 5 (by hand: X needs a stone in each of the 3 rows, so at least 5
    // moves; from the centre X has two ways to each side and O blocks only one at a time).
    let (code, out, err) = run_in(&["solve", "tests/games/hex.rhai", "3"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("remoteness:  5"), "{out}");
}

/// Grundy's game by the definition: g(n) = mex { g(a) ^ g(n - a) : 1 ≤ a < n - a }.
fn grundys_game(to: usize) -> Vec<u64> {
    let mut g = vec![0u64; to + 1];
    for n in 3..=to {
        let seen: HashSet<u64> = (1..).take_while(|&a| a < n - a).map(|a| g[a] ^ g[n - a]).collect();
        g[n] = (0..).find(|v| !seen.contains(v)).unwrap();
    }
    g
}

#[test]
fn a_heap_script_has_a_nim_sequence() {
    let (code, out, err) = run_in(&["sequence", "tests/games/grundy.rhai", "--to", "100"], "");
    assert_eq!(code, 0, "{err}");
    let values: Vec<u64> = out
        .lines()
        .filter_map(|l| l.split_once(':').filter(|(n, _)| n.trim().parse::<usize>().is_ok()))
        .flat_map(|(_, vs)| vs.split_whitespace().map(|v| v.parse::<u64>().unwrap()).collect::<Vec<_>>())
        .collect();
    assert_eq!(values, grundys_game(100), "{out}");
    assert!(out.contains("no period seen"), "{out}");
    // A partisan script has no nim-sequence.
    let (code, _, err) = run_in(&["sequence", "games/tictactoe.rhai"], "");
    assert_eq!(code, 1);
    assert!(err.contains("impartial"), "{err}");
}

/// The values a `gamesman sequence` printed, in order.
fn sequence_values(out: &str) -> Vec<u64> {
    out.lines()
        .filter_map(|l| l.split_once(':').filter(|(n, _)| n.trim().parse::<usize>().is_ok()))
        .flat_map(|(_, vs)| vs.split_whitespace().map(|v| v.parse::<u64>().unwrap()).collect::<Vec<_>>())
        .collect()
}

/// Kayles (octal 0.77) by the definition: knock down 1 or 2 adjacent pins of a row of n,
/// leaving rows a and n - k - a for every a.
fn kayles(to: usize) -> Vec<u64> {
    let mut g = vec![0u64; to + 1];
    for n in 1..=to {
        let mut seen = HashSet::new();
        for k in 1..=2.min(n) {
            for a in 0..=n - k {
                seen.insert(g[a] ^ g[n - k - a]);
            }
        }
        g[n] = (0..).find(|v| !seen.contains(v)).unwrap();
    }
    g
}

#[test]
fn heap_options_give_a_script_its_nim_sequence_one_call_a_heap() {
    // tests/games/grundy.rhai has `heap_options` (`[unequal_splits(n)]`): the values to
    // 1,000 against the definition, read natively.
    let (code, out, err) = run_in(&["sequence", "tests/games/grundy.rhai", "--to", "1000"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(sequence_values(&out), grundys_game(1000), "{out}");
    assert!(out.contains("from heap_options, one call a heap"), "{out}");
    // Kayles: a row's options mix single rows (`[n - k]`) and `splits(n - k)`.
    let (code, out, err) = run_in(&["sequence", "games/kayles.rhai", "--to", "300"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(sequence_values(&out), kayles(300), "{out}");
    // Without the hook, the same script's values come from the search of its moves.
    let dir = temp_dir("heap-options");
    let source = std::fs::read_to_string("tests/games/grundy.rhai").unwrap();
    let plain: String = source.lines().filter(|l| !l.contains("heap_options")).collect::<Vec<_>>().join("\n");
    let write = |name: &str, text: &str| {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        f.display().to_string()
    };
    let f = write("plain.rhai", &plain);
    let (code, out, err) = run_in(&["sequence", &f, "--to", "40"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(sequence_values(&out), grundys_game(40), "{out}");
    assert!(out.contains("by search of the script's own moves"), "{out}");
    // A wrong hook is one line naming it. Equal splits allowed: g(2) would be 1, the moves
    // (unequal splits only) say 0.
    let f = write("equal.rhai", &format!("{plain}\nfn heap_options(n) {{ [splits(n)] }}\n"));
    let (code, _, err) = run_in(&["sequence", &f, "--to", "40"], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("heap_options disagrees with moves + play at heap 2"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let f = write("big.rhai", &format!("{plain}\nfn heap_options(n) {{ [[n]] }}\n"));
    let (code, _, err) = run_in(&["sequence", &f, "--to", "40"], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("heap_options(0) gave a heap of 0"), "{err}");
    let f = write("type.rhai", &format!("{plain}\nfn heap_options(n) {{ n }}\n"));
    let (code, _, err) = run_in(&["sequence", &f, "--to", "40"], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("heap_options(0) must return an array of options, not `i64`"), "{err}");
    let f = write("over.rhai", &format!("{plain}\nfn heap_options(n) {{ [splits(n + 1)] }}\n"));
    let (code, _, err) = run_in(&["sequence", &f, "--to", "40"], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("heap_options(0) gave splits(1): a split of more than the heap"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_puzzle_may_list_its_goal_instead_of_primitive() {
    // A count-down puzzle: from n, take 1 or 2; solved at 0. Remoteness of 7: 4 (by hand:
    // 2 + 2 + 2 + 1).
    let dir = temp_dir("goal");
    let base = "const KIND = \"puzzle\";\nfn parse(t) { let n = parse_int(t); if n < 0 { throw \"no\"; } n }\n\
                fn moves(n) { if n >= 2 { [1, 2] } else if n == 1 { [1] } else { [] } }\nfn play(n, m) { n - m }\n";
    let write = |name: &str, text: &str| {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        f.display().to_string()
    };
    let f = write("goal.rhai", &format!("{base}const GOAL = \"0\";\n"));
    let (code, out, err) = run_in(&["solve", &f, "7"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("remoteness:  4"), "{out}");
    let f = write("both.rhai", &format!("{base}const GOAL = \"0\";\nfn primitive(n) {{ () }}\n"));
    let (code, _, err) = run_in(&["solve", &f, "7"], "");
    assert_eq!(code, 1);
    assert!(err.contains("defines both GOAL and `primitive`"), "{err}");
    let f = write("bad.rhai", &format!("{base}const GOAL = \"-1\";\n"));
    let (code, _, err) = run_in(&["solve", &f, "7"], "");
    assert_eq!(code, 1);
    assert!(err.contains("GOAL \"-1\""), "{err}");
    let f = write("two.rhai", &format!("{base}const GOAL = \"0\";\n").replace("puzzle", "impartial"));
    let (code, _, err) = run_in(&["solve", &f, "7"], "");
    assert_eq!(code, 1);
    assert!(err.contains("GOAL is a puzzle's solved positions"), "{err}");
    let f = write("none.rhai", base);
    let (code, _, err) = run_in(&["solve", &f, "7"], "");
    assert_eq!(code, 1);
    assert!(err.contains("or list its solved positions as `const GOAL"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_script_whose_positions_split_gets_its_value_from_the_parts() {
    let g = grundys_game(60);
    // One heap of 60: the value from the parts' Grundy values; the remoteness search of
    // whole positions is given a share of time and does not finish in it.
    let (code, out, err) = run_in(&["solve", "tests/games/grundy.rhai", "60"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("grundy:      {}", g[60])), "{out}");
    assert!(out.contains(if g[60] != 0 { "value:       win" } else { "value:       lose" }), "{out}");
    assert!(out.contains("the Grundy values of the position's parts"), "{out}");
    // A sum of heaps: 5, 8, 13 (values by the definition, XORed).
    let (code, out, err) = run_in(&["solve", "tests/games/grundy.rhai", "5,8,13", "--no-remoteness"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("grundy:      {}", g[5] ^ g[8] ^ g[13])), "{out}");
}

/// Tic-tac-toe by a plain negamax over the 9 cells: the value for the player to move
/// (`x` when the counts are equal), an oracle for the script below.
fn tictactoe_oracle(b: &mut [u8; 9], memo: &mut std::collections::HashMap<[u8; 9], Value>) -> Value {
    if let Some(&v) = memo.get(b) {
        return v;
    }
    const LINES: [[usize; 3]; 8] =
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
    let xs = b.iter().filter(|&&c| c == b'x').count();
    let os = b.iter().filter(|&&c| c == b'o').count();
    let (me, last) = if xs == os { (b'x', b'o') } else { (b'o', b'x') };
    let v = if LINES.iter().any(|l| l.iter().all(|&i| b[i] == last)) {
        Value::Lose
    } else if !b.contains(&b'.') {
        Value::Tie
    } else {
        let mut best = Value::Lose;
        for i in 0..9 {
            if b[i] == b'.' {
                b[i] = me;
                let v = tictactoe_oracle(b, memo);
                b[i] = b'.';
                if v == Value::Lose {
                    best = Value::Win;
                } else if v == Value::Tie && best == Value::Lose {
                    best = Value::Tie;
                }
            }
        }
        best
    };
    memo.insert(*b, v);
    v
}

/// A script with `expand` (the value of a finished game or the children, one call) in place of
/// `primitive` and `children`: tic-tac-toe, whose ends are losses and ties. Every reachable
/// position's value, by the value-first search and by the full search, is the oracle's.
#[test]
fn a_script_with_expand_agrees_with_a_negamax_everywhere() {
    let source = r#"
        const KIND = "partisan";
        const LINES = [[0,1,2],[3,4,5],[6,7,8],[0,3,6],[1,4,7],[2,5,8],[0,4,8],[2,4,6]];
        fn parse(t) { t }
        fn turn(b) { if b.count('x') == b.count('o') { 'x' } else { 'o' } }
        fn expand(b) {
            let me = turn(b);
            let last = if me == 'x' { 'o' } else { 'x' };
            if b.any_line(global::LINES, last) { "lose" }
            else if b.count('.') == 0 { "tie" }
            else { b.placements('.', me) }
        }
        fn moves(b) { let out = []; for i in 0..b.len() { if b[i] == '.' { out.push(i); } } out }
        fn play(b, i) { b[i] = turn(b); b }
    "#;
    let g = gamesman::script::ScriptGame::from_source("expand.rhai", source).unwrap();
    let positions = reachable(&g, ".........", 9);
    assert_eq!(positions.len(), 5478);
    let mut memo = std::collections::HashMap::new();
    let mut quick = analyzer(&g, false);
    let mut full = analyzer(&g, true);
    let mut ties = 0;
    for p in &positions {
        let text = g.format(p).unwrap();
        let mut b: [u8; 9] = text.as_bytes().try_into().unwrap();
        let want = tictactoe_oracle(&mut b, &mut memo);
        ties += (want == Value::Tie) as usize;
        assert_eq!(quick.solve(p).unwrap().value, want, "{text}");
        assert_eq!(full.solve(p).unwrap().value, want, "{text}");
    }
    assert_eq!(memo[b"........."], Value::Tie);
    assert!(ties > 100, "{ties}");

    // `expand` with `primitive` or `children` beside it is refused; so is an answer that is
    // neither a value nor an array, and children that disagree with `moves` + `play`.
    let both = format!("{source}\nfn primitive(b) {{ () }}");
    let err = gamesman::script::ScriptGame::from_source("both.rhai", &both).err().unwrap().to_string();
    assert!(err.contains("defines `expand` and `primitive` or `children`"), "{err}");
    let bad = source.replace(r#"{ "tie" }"#, r#"{ "draw" }"#);
    let g = gamesman::script::ScriptGame::from_source("bad.rhai", &bad).unwrap();
    let err = analyzer(&g, false).solve(&g.parse("xoxxoo.x.").unwrap()).err().unwrap().to_string();
    assert!(err.contains("the value of a finished game") || err.contains("or an array of children"), "{err}");
    let wrong = source.replace("b.placements('.', me)", "b.placements('.', 'x')");
    let g = gamesman::script::ScriptGame::from_source("wrong.rhai", &wrong).unwrap();
    let err = analyzer(&g, false).solve(&g.parse("x........").unwrap()).err().unwrap().to_string();
    assert!(err.contains("expand disagrees with moves + play"), "{err}");
}

/// The first whole number after `label` in `text`.
fn number_after(text: &str, label: &str) -> u64 {
    let at = text.find(label).unwrap_or_else(|| panic!("no {label:?} in {text}")) + label.len();
    let digits: String = text[at..].trim_start().chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or_else(|_| panic!("no number after {label:?} in {text}"))
}

#[test]
fn moves_costs_no_more_than_solving_each_move_and_prints_the_same_on_a_busy_machine() {
    let run = |args: &[&str]| {
        let (code, out, err) = run_in(args, "");
        assert_eq!(code, 0, "{args:?}: {err}");
        (out, err)
    };
    let solved = |game: &str, pos: &str| {
        let (out, _) = run(&["solve", game, pos, "--no-db", "--json"]);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["positions_visited"].as_u64().unwrap()
    };
    // Connect-3 on 4×4 (a descriptor), Dodgem (loopy) and 4×4 Othello (a script with passes).
    let othello = "tests/games/othello4.rhai";
    for (game, start) in [("connect4.ron", "4x4k3"), ("dodgem", "x../x../.oo"), (othello, OTHELLO_START)] {
        let (table, err) = run(&["moves", game, start, "--no-db"]);
        let visited = number_after(&err, "visited");
        // What `solve` of the start and of each move's position visit, each alone: `moves`
        // learns the same things once, for all the moves together.
        let (list, _) = run(&["moves", game, start, "--no-db", "--json", "--no-remoteness"]);
        let list: serde_json::Value = serde_json::from_str(&list).unwrap();
        let children: Vec<&str> = list.as_array().unwrap().iter().map(|m| m["position"].as_str().unwrap()).collect();
        assert!(children.len() > 1, "{list}");
        let alone: u64 = solved(game, start) + children.iter().map(|c| solved(game, c)).sum::<u64>();
        assert!(visited <= alone, "{game}: moves visited {visited}, solve of the start and the moves {alone}");
        // Never more than the whole game, solved by `analyze`.
        let (whole, _) = run(&["analyze", game, start, "--no-db"]);
        let reachable = number_after(&whole, "positions:");
        if game != "dodgem" {
            // (Dodgem's first move meets a loop before the full search takes over: a few more.)
            assert!(visited <= reachable, "{game}: moves visited {visited} of {reachable} positions");
        }
        // The same table with every core spinning beside it: the remoteness share is counted
        // in work, not in wall-clock time.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let spinners: Vec<_> = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        let (busy, _) = run(&["moves", game, start, "--no-db"]);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spinners.into_iter().for_each(|s| s.join().unwrap());
        assert_eq!(busy, table, "{game}");
        // Every move's remoteness is there.
        assert!(!table.contains(" - "), "{table}");
    }
}

/// The start of 4×4 Othello as tests/games/othello4.rhai writes it.
const OTHELLO_START: &str = "..../.ox./.xo./.... x";

/// Two scripts solved whole by `analyze`, against Python searches written apart from
/// gamesman. 4×4 Othello (tests/oracles/othello.py): a loss for Black, the player to move
/// (the published result: the second player wins), in 12 moves counting passes; 62,789
/// positions (board and side to move; 51,943 boards) are reachable, 30,156 of them wins,
/// 27,624 losses and 5,009 ties for the player to move. Three Men's Morris
/// (tests/oracles/three_mens_morris.py): from the empty board a win in 9 for x (the first
/// player), 5,390 positions reachable, 2,997 wins, 1,185 losses, 1,208 draws.
#[test]
fn othello_and_three_mens_morris_agree_with_their_oracles() {
    let analyze = |game: &str, pos: &str| {
        let (code, out, err) = run_in(&["analyze", game, pos, "--no-db", "--json"], "");
        assert_eq!(code, 0, "{game}: {err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let r = analyze("tests/games/othello4.rhai", OTHELLO_START);
    let by = &r["by_value"];
    assert_eq!((r["value"].as_str(), r["remoteness"].as_u64()), (Some("lose"), Some(12)), "{r}");
    assert_eq!(r["positions"], 62_789, "{r}");
    assert_eq!(
        (by["win"].as_u64(), by["lose"].as_u64(), by["tie"].as_u64()),
        (Some(30_156), Some(27_624), Some(5_009))
    );
    let r = analyze("tests/games/three_mens_morris.rhai", "......... x");
    let by = &r["by_value"];
    assert_eq!((r["value"].as_str(), r["remoteness"].as_u64()), (Some("win"), Some(9)), "{r}");
    assert_eq!(r["positions"], 5_390, "{r}");
    assert_eq!((by["win"].as_u64(), by["lose"].as_u64(), by["draw"].as_u64()), (Some(2_997), Some(1_185), Some(1_208)));
}
