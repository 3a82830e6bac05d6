//! Board games as descriptors (`rules: Board(...)`, src/descriptor/board.rs): the shipped
//! games against published results and against the plain Python solvers in
//! `bench/python/boards.py` (an independent implementation: strings of cells, negamax or
//! mex, no symmetry, no decomposition), `check` against the scripts of the same games, the
//! position text, and the errors a typo gets.

use crate::common;

use common::*;
use gamesman::descriptor::DescriptorGame;
use gamesman::game::packed::PackedPlay;
use gamesman::game::{Game, GameExt, Value};
use gamesman::progress::Progress;
use gamesman::solve::census::{Census, census};
use gamesman::solve::{Analyzer, Options};
use std::collections::HashMap;

fn value(g: &DescriptorGame, text: &str) -> Value {
    solve(g, text, false).value
}

#[test]
fn tictactoe_is_a_tie_with_5478_positions() {
    let g = descriptor("tictactoe");
    // A tie from the empty board (folklore; boards.py: tie), as tictactoe.rhai says too.
    let r = solve(&g, "3x3", true);
    assert_eq!((r.value, r.remoteness), (Value::Tie, Some(9)));
    // 5,478 positions reachable from the empty board (counted without symmetry; boards.py's
    // reachable_tictactoe gives 5478, as does `gamesman analyze tictactoe`).
    let root = g.start().unwrap().unwrap();
    let c = census(&g, &root, 1 << 30, &Progress::default()).unwrap();
    assert_eq!(c.graph.nodes.len(), 5478);
    // X to move after X in a corner and O beside it: X wins (by hand: take the centre, then
    // X threatens two lines at once).
    assert_eq!(value(&g, "xo./.../..."), Value::Win);
}

#[test]
fn connect_four_small_boards() {
    let g = descriptor("connect4");
    // John Tromp's table of Connect-Four results: boards 4 columns wide (and 4 rows high, 5
    // wide) are draws; boards.py agrees (4x4, 5x4 and 4x5: tie). Connect-3 on 4×4 is a win
    // for the first player (connect4.rhai's comment; boards.py: win).
    assert_eq!(value(&g, "4x4"), Value::Tie);
    assert_eq!(value(&g, "5x4"), Value::Tie);
    assert_eq!(value(&g, "4x4k3"), Value::Win);
    let r = solve(&g, "4x4k3", true);
    assert_eq!(r.remoteness, Some(9), "connect4.rhai: X wins in 9 moves");
    // Gravity: a piece may not float, and the move is a column.
    let e = g.parse("4x4k4/..../.x../..../....").unwrap_err().to_string();
    assert!(e.contains("floats above an empty cell"), "{e}");
    let p = g.parse("4x4k4").unwrap();
    assert_eq!(g.moves(&p).unwrap().len(), 4);
}

#[test]
fn domineering_second_player_wins_5x5() {
    let g = descriptor("domineering");
    // Lachmann, Moore and Rapaport (2002), "Who wins Domineering on rectangular boards?":
    // 5×5 is a second-player win (value 0), whoever starts; 2×2, 3×3 and 4×4 are
    // first-player wins. boards.py agrees, and gives 3 rows × 4 columns a loss for the
    // vertical player moving first, 4 × 3 a win.
    assert_eq!(value(&g, "5x5"), Value::Lose);
    assert_eq!(value(&g, "5x5 o"), Value::Lose);
    for s in ["2x2", "3x3", "4x4", "4x3", "2x2 o", "3x3 o", "4x4 o"] {
        assert_eq!(value(&g, s), Value::Win, "{s}");
    }
    assert_eq!(value(&g, "3x4"), Value::Lose);
    // The horizontal player moving first on 4 × 3 is the vertical one on 3 × 4, turned.
    assert_eq!(value(&g, "4x3 o"), Value::Lose);
    // Whose turn: implied by the count of covered cells, or said after the board.
    let p = g.parse("##./.../...").unwrap();
    assert_eq!(g.to_move(&p).unwrap(), Some(1));
    assert_eq!(g.format(&g.parse("5x5 o").unwrap()).unwrap(), "...../...../...../...../..... o");
}

/// Breuker, Uiterwijk and van den Herik, "Solving 8 × 8 Domineering", Theoretical Computer
/// Science 230 (2000) 195–206, table of m × n boards: 6 × 6 is a win for the player to move
/// (either one: the board turned a quarter is the same game with the players swapped). The
/// value-first search, children with the fewest replies first, finds it in about a second.
#[test]
fn domineering_first_player_wins_6x6() {
    let g = descriptor("domineering");
    assert_eq!(value(&g, "6x6"), Value::Win);
    assert_eq!(value(&g, "6x6 o"), Value::Win);
}

/// `move_count`, which orders the value-first search, counts what `moves` lists, on every
/// position of random games of each board game.
#[test]
fn move_count_agrees_with_moves() {
    for (game, start) in [
        ("domineering", "5x4"),
        ("cram", "4x5"),
        ("tictactoe", "3x3"),
        ("connect4", "5x4"),
        ("hex", "4x4"),
        ("notakto", "3x3"),
    ] {
        let g = descriptor(game);
        let mut seed = 12345u64;
        for _ in 0..20 {
            let mut p = g.parse(start).unwrap();
            loop {
                let moves = g.moves(&p).unwrap();
                assert_eq!(g.move_count(&p).unwrap(), moves.len(), "{game} {}", g.format(&p).unwrap());
                if moves.is_empty() || g.primitive(&p).unwrap().is_some() {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                p = g.play(&p, &moves[(seed >> 33) as usize % moves.len()]).unwrap();
            }
        }
    }
}

#[test]
fn hex_first_player_wins_3x3_and_notakto_too() {
    let g = descriptor("hex");
    // Nash's strategy-stealing argument: the first player wins every n×n board; boards.py
    // finds the win on 3×3 (and 4×4, slowly).
    let r = solve(&g, "3x3", false);
    assert_eq!(r.value, Value::Win);
    // On 3×3 the centre wins at once for X (by hand: it touches both of X's rows through
    // two bridges that O cannot both block).
    let centre: Vec<String> =
        r.winning_moves.iter().map(|m| m.position.replace('\n', "/")).filter(|p| p == ".../.x./...").collect();
    assert_eq!(centre.len(), 1, "{:?}", r.winning_moves.iter().map(|m| &m.position).collect::<Vec<_>>());
    // A chain joining top and bottom wins, for X only (O joins left and right).
    assert_eq!(g.primitive(&g.parse("x../xo./x.o").unwrap()).unwrap(), Some(Value::Lose));
    assert_eq!(g.primitive(&g.parse("xo./x../.o.").unwrap()).unwrap(), None);
    assert_eq!(g.primitive(&g.parse("ooo/xx./x..").unwrap()).unwrap(), Some(Value::Lose));

    let n = descriptor("notakto");
    // Notakto on one board: a first-player win by the centre (Plambeck and Whitcomb,
    // "A Winning Strategy for Notakto"; boards.py: win).
    let r = solve(&n, "3x3", false);
    assert_eq!(r.value, Value::Win);
    assert!(r.winning_moves.iter().any(|m| m.position.replace('\n', "/") == ".../.x./..."));
    // Whoever makes three in a row loses: the player to move after it wins.
    assert_eq!(n.primitive(&n.parse("xxx/.../...").unwrap()).unwrap(), Some(Value::Win));
}

#[test]
fn cram_nimbers_agree_with_the_python_oracle() {
    let g = descriptor("cram");
    // boards.py's cram(R, C), a mex over every domino of the whole board: 2×n is 0 for even
    // n, 1 for odd n (the mirror strategy gives 0 for even n); 3×3 0, 3×4 1, 3×5 1, 4×4 0,
    // 4×5 2 (the last four also in cram.rhai and Winning Ways' table).
    for (size, nimber) in [("2x2", 0), ("2x3", 1), ("2x4", 0), ("2x5", 1), ("3x3", 0), ("3x4", 1), ("3x5", 1)] {
        assert_eq!(solve(&g, size, false).grundy, Some(nimber), "{size}");
    }
    assert_eq!(solve(&g, "4x4", false).grundy, Some(0));
    assert_eq!(solve(&g, "#####/#####/#####/#####", false).grundy, Some(2));
    // Cells as in cram.rhai: '#' empty, '.' covered. A row of 2 is worth 1; a row of 4 is
    // worth mex{1 (leaving 2), 0 (two single cells)} = 2 (by hand); apart, they add as nim.
    assert_eq!(solve(&g, "##.##", false).grundy, Some(0));
    assert_eq!(solve(&g, "####.##", false).grundy, Some(2 ^ 1));
}

#[test]
fn check_agrees_with_the_scripts() {
    for (game, from) in [("tictactoe.ron", None), ("cram.ron", None), ("connect4.ron", Some("4x4k3"))] {
        let mut args = vec!["check", game, "--count", "25", "--seed", "7"];
        if let Some(f) = from {
            args.extend(["--from", f]);
        }
        let out = bin().args(&args).current_dir(root().join("games")).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{game}: {text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("0 disagreements between the descriptor"), "{game}: {text}");
    }
}

#[test]
fn position_text() {
    let t = descriptor("tictactoe");
    // The script's one-line form, rows with '/', and the size alone.
    assert_eq!(t.parse("x.o......").unwrap(), t.parse("x.o/.../...").unwrap());
    assert_eq!(t.parse("X.O/.../...").unwrap(), t.parse("x.o/.../...").unwrap());
    assert_eq!(t.parse("3x3").unwrap(), t.parse(".........").unwrap());
    for (text, needle) in [
        ("xx./.../...", "as many pieces"),
        ("x.q/.../...", "'q' is not a cell"),
        ("4x4", "played on a 3x3 board"),
        ("x../...", "3 rows"),
        ("x..../.../...", "row 1 has 5 cells"),
        ("", "empty position"),
    ] {
        let e = t.parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    let c = descriptor("connect4");
    let e = c.parse("20x20").unwrap_err().to_string();
    assert!(e.contains("too big"), "{e}");
    let e = c.parse("4x4k9").unwrap_err().to_string();
    assert!(e.contains("k must be"), "{e}");
    assert_eq!(c.format(&c.parse("4x5").unwrap()).unwrap(), "4x5k4/...../...../...../.....");
}

#[test]
fn symmetry_follows_from_the_rules() {
    // Tic-tac-toe: the 8 symmetries of the square, so the four corners are one position.
    let t = descriptor("tictactoe");
    let corners: Vec<_> = ["x../.../...", "..x/.../...", ".../.../x..", ".../.../..x"]
        .iter()
        .map(|s| t.canonical(&t.parse(s).unwrap()).unwrap())
        .collect();
    assert!(corners.windows(2).all(|w| w[0] == w[1]));
    // Connect-Four: the left-right mirror only (gravity has a bottom).
    let c = descriptor("connect4");
    let a = c.canonical(&c.parse("4x4k4/..../..../..../x...").unwrap()).unwrap();
    let b = c.canonical(&c.parse("4x4k4/..../..../..../...x").unwrap()).unwrap();
    let top = c.canonical(&c.parse("4x4k4/..../..../x.../o...").unwrap()).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, top);
    // Hex: the half turn keeps each player's sides; the mirror across a diagonal does not.
    let h = descriptor("hex");
    let x = h.canonical(&h.parse("x../.../...").unwrap()).unwrap();
    assert_eq!(x, h.canonical(&h.parse(".../.../..x").unwrap()).unwrap());
    assert_ne!(x, h.canonical(&h.parse("..x/.../...").unwrap()).unwrap());
    // Domineering: no quarter turn (it would swap the players' directions).
    let d = descriptor("domineering");
    assert_ne!(
        d.canonical(&d.parse("##./.../...").unwrap()).unwrap(),
        d.canonical(&d.parse("#../#../...").unwrap()).unwrap()
    );
}

/// A descriptor around `rules` (a Board(...)), as a file named t.ron.
fn board_error(rules: &str) -> String {
    descriptor_error("t.ron", &format!("(\n    name: \"t\",\n    rules: {rules},\n)"))
}

#[test]
fn errors_name_the_file_line_and_column() {
    for (rules, needle) in [
        ("Board(moves: Place, ends: [InRow(3)], sise: \"3x3\")", "t.ron:3:"),
        ("Board(moves: Plac)", "Unexpected variant named `Plac`"),
        ("Board(moves: Place, ends: [InRow(0)])", "t.ron:3:5: InRow(0): k must be from 1 to 15"),
        ("Board(moves: Place, ends: [Connect])", "add `shape: Hex`"),
        ("Board(shape: Hex, moves: Drop)", "a Hex board takes `moves: Place`"),
        ("Board(moves: Domino(Either), ends: [InRow(3)])", "`ends` must be empty"),
        ("Board(size: \"3by3\", moves: Place)", "not a board size"),
        ("Board(size: \"3x3\", moves: Place, ends: [InRow(4)])", "cannot fit on a 3x3 board"),
        ("Board(moves: Place, cells: \".x\")", "must be 3 characters"),
        ("Board(moves: Place, cells: \".xx\")", "cells are distinct"),
        ("Board(shape: Hex, moves: Place, pieces: Shared, ends: [Connect])", "`pieces: Own`"),
    ] {
        let e = board_error(rules);
        assert!(e.contains(needle), "{rules}: {e}");
        assert!(e.starts_with("t.ron:"), "{rules}: {e}");
    }
}

/// Cram positions on boards up to 4×5 (empty, and reached by random dominoes), solved whole
/// by `tests/oracles/cram.py` (a plain mex over bitmasks: no symmetry, no regions): the
/// Grundy value of each, and how many of its moves lead to a Grundy value of 0. Checked
/// through `solve` (the value-at-a-time search, and the winning moves it finds without
/// solving each child) and through both Grundy solvers directly (with and without it).
#[test]
fn cram_positions_agree_with_the_mex_oracle() {
    use gamesman::solve::grundy::GrundySolver;
    let g = descriptor("cram");
    let shared = std::rc::Rc::new(descriptor("cram"));
    let mut value_search = GrundySolver::new(shared.clone(), 1 << 28).with_value_search(true);
    let mut mex_only = GrundySolver::new(shared.clone(), 1 << 28).with_value_search(false);
    let cases = cases("cram");
    assert!(cases.len() >= 100);
    for case in cases {
        let text = case["position"].as_str().unwrap();
        let want = case["grundy"].as_u64().unwrap();
        let r = solve(&g, text, false);
        assert_eq!(r.grundy, Some(want), "{text}");
        assert_eq!(r.value, if want == 0 { Value::Lose } else { Value::Win }, "{text}");
        assert_eq!(r.winning_moves.len() as u64, case["wins"].as_u64().unwrap(), "{text}");
        assert!(r.winning_moves.iter().all(|m| m.grundy == Some(0)), "{text}");
        let pos = shared.parse(text).unwrap();
        assert_eq!(value_search.grundy(&pos).unwrap(), want, "{text}");
        assert_eq!(value_search.is_zero(&pos).unwrap(), want == 0, "{text}");
        assert_eq!(mex_only.grundy(&pos).unwrap(), want, "{text}");
    }
}

/// A game deeper than the value-at-a-time search goes (a heap of 3,000 in the subtraction
/// game S(1,3,4), whose Grundy values repeat 0 1 0 1 2 3 2 with period 7: Winning Ways,
/// ch. 4; by hand from the mex) is handed to the iterative solver, with the same answers.
#[test]
fn a_deep_game_falls_back_to_the_iterative_solver() {
    use gamesman::solve::grundy::GrundySolver;
    let g = std::rc::Rc::new(descriptor("subtraction-134"));
    let period = [0, 1, 0, 1, 2, 3, 2];
    let mut s = GrundySolver::new(g.clone(), 1 << 28).with_value_search(true);
    for n in [3000u64, 2999, 2998, 40] {
        let pos = g.parse(&n.to_string()).unwrap();
        assert_eq!(s.grundy(&pos).unwrap(), period[(n % 7) as usize], "heap of {n}");
    }
    let pos = g.parse("2996").unwrap();
    assert_eq!(s.is_zero(&pos).unwrap(), period[2996 % 7] == 0);
}

/// Published Cram nimbers beyond the oracle's boards: 4×7 is 3 and 5×5 is 0 (Lemoine and
/// Viennot's Glop; Schneider, *Das Spiel Juvavum*, 2009; the table in beling/impartial-games'
/// README), and 4×6 and 4×8 are 0 by the symmetry strategy (even by even: the second player
/// answers every domino with its half-turn image); 5×6 is 2, 5×7 and 4×9 are 1 (the same
/// table; Schneider 2009), found now in under a second each by the search on keys.
#[test]
fn cram_published_nimbers_of_larger_boards() {
    let g = descriptor("cram");
    for (size, nimber) in [("4x6", 0), ("4x7", 3), ("4x8", 0), ("5x5", 0), ("5x6", 2), ("5x7", 1), ("4x9", 1)] {
        assert_eq!(solve(&g, size, false).grundy, Some(nimber), "{size}");
    }
}

/// GAMESMAN's value and remoteness by a plain negamax over every position, written here as
/// the oracle of the solver's searches: no symmetry, no cut (every move of every position),
/// positions keyed by their text. A win is 1 + the smallest remoteness of its losing
/// children, a tie 1 + the smallest of its tying ones, a loss 1 + the largest of all.
fn negamax(
    g: &DescriptorGame,
    p: &<DescriptorGame as Game>::Pos,
    memo: &mut HashMap<String, (Value, u32)>,
) -> (Value, u32) {
    let key = g.format(p).unwrap();
    if let Some(&e) = memo.get(&key) {
        return e;
    }
    let e = if let Some(v) = g.primitive(p).unwrap() {
        (v, 0)
    } else {
        let kids: Vec<_> = g.moves(p).unwrap().iter().map(|m| negamax(g, &g.play(p, m).unwrap(), memo)).collect();
        let best = |want: Value| kids.iter().filter(|k| k.0 == want).map(|k| k.1).min();
        if kids.is_empty() {
            (g.stalemate(), 0)
        } else if let Some(r) = best(Value::Lose) {
            (Value::Win, r + 1)
        } else if let Some(r) = best(Value::Tie) {
            (Value::Tie, r + 1)
        } else {
            (Value::Lose, kids.iter().map(|k| k.1).max().unwrap() + 1)
        }
    };
    memo.insert(key, e);
    e
}

/// The remoteness the default solve gives (the value-first search, then depth-bounded
/// searches for a win's or a loss's remoteness) and every move's, against the negamax above:
/// Hex 3×3 and positions of Hex 4×4 a few stones in, Connect-3 4×4 (and positions of it),
/// Domineering, tic-tac-toe (a tie: the full search) and Notakto.
#[test]
fn remoteness_agrees_with_a_plain_negamax() {
    let mut seed = 99u64;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for (game, start, stones, samples) in [
        ("hex", "3x3", 0, 1),
        ("hex", "4x4", 6, 4),
        ("connect4", "4x4k3", 0, 1),
        ("connect4", "4x4k3", 3, 4),
        ("connect4", "4x4", 6, 3),
        ("domineering", "4x4", 0, 1),
        ("domineering", "3x4", 0, 1),
        ("domineering", "4x4 o", 2, 3),
        ("tictactoe", "3x3", 1, 3),
        ("notakto", "3x3", 0, 1),
    ] {
        let g = descriptor(game);
        let mut memo = HashMap::new();
        for _ in 0..samples {
            let mut p = g.parse(start).unwrap();
            for _ in 0..stones {
                let moves = g.moves(&p).unwrap();
                if g.primitive(&p).unwrap().is_some() || moves.is_empty() {
                    break;
                }
                p = g.play(&p, &moves[next(moves.len())]).unwrap();
            }
            let text = g.format(&p).unwrap();
            let want = negamax(&g, &p, &mut memo);
            let mut a = Analyzer::new(&g, Options { remoteness: true, ..Options::default() });
            let r = a.solve(&p).unwrap();
            assert_eq!((r.value, r.remoteness), (want.0, Some(want.1)), "{game} {text}");
            for m in a.moves(&p).unwrap() {
                let child = g.parse(&m.position.replace('\n', "/")).unwrap();
                let want = negamax(&g, &child, &mut memo);
                assert_eq!((m.value, m.remoteness), (want.0, Some(want.1)), "{game} {text}, move {}", m.name);
            }
        }
    }
}

/// Cram's keys (`Game::packed_sum`, the board descriptor's `domino_sum.rs`): the parts of a
/// position are smaller positions (leaves and bridges taken away, regions cut at twin cells,
/// regions a mirror strategy shows worth 0 left out), and their Grundy values must XOR to the
/// position's own, found by the plain mex over the descriptor's positions (no keys, no
/// reductions). Random positions of boards both ways round, dense and sparse, and three by
/// hand: the empty 4×4 board (its own half turn, no domino across its centre: worth 0, no
/// part); a 2×2 block whose corners P and Q touch only the block, cut in two; a row of five
/// (its middle cell a bridge: two dominoes, worth 1 ⊕ 1 = 0).
#[test]
fn cram_keys_split_into_parts_of_the_same_grundy_value() {
    use gamesman::solve::grundy::GrundySolver;
    let g = std::rc::Rc::new(descriptor("cram"));
    let mut mex = GrundySolver::new(g.clone(), 1 << 28).with_value_search(false);
    let mut check = |text: &str| -> Vec<u64> {
        let pos = g.parse(text).unwrap();
        let space = g.packed_sum(&pos).expect("Cram packs");
        let mut parts = Vec::new();
        space.parts(space.pack(&pos).unwrap(), &mut parts);
        let sum = parts.iter().fold(0, |x, &k| x ^ mex.grundy(&space.unpack(k)).unwrap());
        assert_eq!(sum, mex.grundy(&pos).unwrap(), "{text}: parts {parts:?}");
        parts
    };
    assert!(check("4x4").is_empty());
    assert_eq!(check(".####/.####/###../##.../.....").len(), 2);
    let row = check("#####");
    assert!(row.is_empty() || row.len() == 2, "{row:?}");
    let mut rng = fastrand::Rng::with_seed(31);
    for (rows, cols) in [(3, 4), (4, 4), (4, 5), (5, 4), (3, 6), (2, 7), (5, 5)] {
        for round in 0..200 {
            let p = [0.1, 0.25, 0.4][round % 3];
            let text: Vec<String> =
                (0..rows).map(|_| (0..cols).map(|_| if rng.f64() < p { '.' } else { '#' }).collect()).collect();
            check(&text.join("/"));
        }
    }
}

type DPos = <DescriptorGame as Game>::Pos;

/// A case of the key tests: the game shared, its name and start, the space of keys of its
/// start (there must be one), and the census of everything reachable from the start (of
/// `count` positions where it is given, a count known from outside).
fn key_case(
    g: DescriptorGame,
    start: &str,
    count: Option<usize>,
) -> (std::rc::Rc<DescriptorGame>, String, Box<dyn PackedPlay<DPos>>, Census<DPos>) {
    let g = std::rc::Rc::new(g);
    let name = format!("{} {start}", g.info().name);
    let root = g.parse(start).unwrap();
    let space = g.packed_play(&root).unwrap_or_else(|| panic!("{name}: no keys"));
    let c = census(&*g, &root, 1 << 30, &Progress::default()).unwrap();
    if let Some(n) = count {
        assert_eq!(c.graph.nodes.len(), n, "{name}");
    }
    (g, name, space, c)
}

/// Cram under misère play (whoever cannot move wins), a descriptor of the tests' own.
fn misere_cram() -> DescriptorGame {
    DescriptorGame::from_source(
        "misere-cram.ron",
        r##"(name: "misere-cram", start: "3x4", end: Misere,
            rules: Board(moves: Domino(Either), pieces: Shared, cells: "#."))"##,
        None,
    )
    .unwrap()
}

/// The full search on keys (`Game::packed_play`: `src/solve/value.rs` on keys over the board
/// descriptor's keys) against the full search over the game's own positions (the fallback,
/// `ValueSolver::without_keys`) and the census's retrograde analysis of the whole game (a third
/// implementation), at every position reachable from the start: values, remoteness and
/// Grundy values equal. Boards taller than wide and wider than tall (a domino board's key is
/// turned then, and Domineering's players swap directions on it), normal and misère play, all
/// 5,478 positions of tic-tac-toe. The keys round-trip, and a key's children are the game's
/// children, up to the symmetries.
#[test]
fn full_search_on_keys_agrees_with_the_search_over_positions() {
    use gamesman::solve::value::ValueSolver;
    let cases: Vec<(DescriptorGame, &str, Option<usize>)> = vec![
        (descriptor("cram"), "3x4", None),
        (descriptor("cram"), "4x4", None),
        (descriptor("cram"), "2x5", None),
        (misere_cram(), "3x4", None),
        (descriptor("domineering"), "4x4", None),
        (descriptor("domineering"), "3x5", None),
        (descriptor("domineering"), "4x3", None),
        (descriptor("tictactoe"), "3x3", Some(5478)),
        (descriptor("notakto"), "3x3", None),
        (descriptor("hex"), "3x3", None),
        (descriptor("connect4"), "4x4k3", None),
    ];
    for (g, start, count) in cases {
        let (g, name, space, c) = key_case(g, start, count);
        let with_grundy = g.kind() == gamesman::game::Kind::Impartial && g.stalemate() == Value::Lose;
        let mut keys = ValueSolver::new(g.clone(), 1 << 28, with_grundy);
        let mut plain = ValueSolver::new(g.clone(), 1 << 28, with_grundy).without_keys();
        let (mut kids, mut want) = (Vec::new(), Vec::new());
        for (i, p) in c.graph.nodes.iter().enumerate() {
            let p = &*p;
            let text = g.format(p).unwrap();
            let key = space.pack(p).unwrap_or_else(|| panic!("{name}: {text} does not pack"));
            assert_eq!(&space.unpack(key), p, "{name}: {text}");
            kids.clear();
            space.children(key, &mut kids);
            let mut got: Vec<u128> = kids.iter().map(|&k| space.canonical(k)).collect();
            want.clear();
            if g.primitive(p).unwrap().is_none() {
                want.extend(g.children(p).unwrap().iter().map(|q| space.canonical(space.pack(q).unwrap())));
            }
            if g.primitive(p).unwrap().is_some() {
                got.clear();
            }
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{name}: the children of {text}");
            let (a, ga) = keys.solve(p).unwrap();
            let (b, gb) = plain.solve(p).unwrap();
            assert_eq!((a, ga), (b, gb), "{name}: {text}");
            assert_eq!(a, c.solutions[i], "{name}: {text} (census)");
            if let Some(gs) = &c.grundy {
                assert_eq!(ga, Some(gs[i]), "{name}: {text} (census's Grundy value)");
            }
        }
    }
}

/// The value-first search and its depth-bounded remoteness searches on keys
/// (`src/solve/quick.rs` on keys) against the same searches over the game's own positions
/// (`QuickSolver::without_keys`) and the census's retrograde analysis, at every position
/// reachable from the start of small boards: values equal, and the remoteness of every win
/// and loss. Domineering both ways round (the key is turned on a board wider than tall),
/// Cram and misère Cram (whoever cannot move wins), all 5,478 positions of tic-tac-toe, Hex,
/// misère play (Notakto), pieces dropped (Connect-3 on 4×4). A key's move count is its number
/// of children, and pieces placed or dropped come in the order the game lists them (the centre
/// first: the value-first search tries them in that order among equals).
#[test]
fn value_first_search_on_keys_agrees_with_the_search_over_positions() {
    use gamesman::solve::quick::QuickSolver;
    let cases: Vec<(DescriptorGame, &str, Option<usize>)> = vec![
        (descriptor("domineering"), "4x4", None),
        (descriptor("domineering"), "3x5", None),
        (descriptor("domineering"), "5x3", None),
        (descriptor("cram"), "3x4", None),
        (descriptor("tictactoe"), "3x3", Some(5478)),
        (descriptor("hex"), "3x3", None),
        (descriptor("notakto"), "3x3", None),
        (misere_cram(), "3x4", None),
        (descriptor("connect4"), "4x4k3", None),
    ];
    for (g, start, count) in cases {
        let (g, name, space, c) = key_case(g, start, count);
        let pieces = matches!(g.info().name.as_str(), "tictactoe" | "hex" | "notakto" | "connect4");
        let mut keys = QuickSolver::new(g.clone(), 1 << 28, Progress::default());
        let mut plain = QuickSolver::new(g.clone(), 1 << 28, Progress::default()).without_keys();
        let mut kids = Vec::new();
        let (mut wins, mut losses) = (0, 0);
        for (i, p) in c.graph.nodes.iter().enumerate() {
            let p = &*p;
            let text = g.format(p).unwrap();
            let key = space.pack(p).unwrap_or_else(|| panic!("{name}: {text} does not pack"));
            kids.clear();
            space.children(key, &mut kids);
            assert_eq!(space.move_count(key) as usize, kids.len(), "{name}: the move count of {text}");
            if pieces {
                let listed: Vec<_> = kids.iter().map(|&k| space.unpack(k)).collect();
                assert_eq!(listed, g.children(p).unwrap(), "{name}: the order of the children of {text}");
            }
            let want = c.solutions[i];
            let a = keys.value(p).unwrap();
            let b = plain.value(p).unwrap();
            assert_eq!(a, Some(want.value), "{name}: {text} (census)");
            assert_eq!(b, Some(want.value), "{name}: {text} (over positions)");
            let ra = keys.remoteness(p, want.value).unwrap();
            let rb = plain.remoteness(p, want.value).unwrap();
            if matches!(want.value, Value::Win | Value::Lose) {
                assert_eq!(ra, want.remoteness, "{name}: the remoteness of {text} (census)");
                if want.value == Value::Win { wins += 1 } else { losses += 1 }
            } else {
                assert_eq!(ra, None, "{name}: {text}, a {}", want.value);
            }
            assert_eq!(ra, rb, "{name}: the remoteness of {text} (over positions)");
        }
        assert!(wins > 0 && losses > 0, "{name}: wins and losses both checked");
    }
}
