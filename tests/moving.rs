//! Board descriptors whose pieces move (src/descriptor/board.rs: `Step`, `Jump`, `Slide`,
//! `Hanoi`; the ends `Gone`, `Goal`, `Left`): the shipped games against published results and
//! against the plain Python solvers in `bench/python/moving.py` (an independent
//! implementation: strings and tuples, breadth-first search, retrograde analysis for Dodgem),
//! `check` against small scripts of the same games, the position text, and the errors a typo
//! gets.

mod common;

use common::*;
use gamesman::descriptor::DescriptorGame;
use gamesman::game::{Game, Value};
use gamesman::progress::Progress;
use gamesman::solve::census::{Census, census};

fn census_of(g: &DescriptorGame, text: &str) -> Census<<DescriptorGame as Game>::Pos> {
    let root = g.parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    census(g, &root, 1 << 30, &Progress::default()).unwrap()
}

/// The positions of a census `r` moves from the goal (a puzzle) or from the end.
fn at_remoteness(g: &DescriptorGame, c: &Census<<DescriptorGame as Game>::Pos>, r: u32) -> Vec<String> {
    let mut out: Vec<String> = (0..c.graph.len())
        .filter(|&i| c.solutions[i].remoteness == Some(r))
        .map(|i| g.format(&c.graph.nodes[i]).unwrap())
        .collect();
    out.sort();
    out
}

#[test]
fn eight_puzzle_reaches_181440_positions_at_most_31_moves_away() {
    let g = descriptor("8-puzzle");
    // Reinefeld, "Complete Solution of the Eight-Puzzle" (1993): 9!/2 = 181,440 positions are
    // reachable from the goal, the farthest 31 moves away, and there are two of them;
    // bench/python/moving.py's BFS finds the same two.
    let c = census_of(&g, "123/456/78.");
    assert_eq!(c.graph.len(), 181_440);
    assert_eq!(c.by_value.get(Value::Win), 181_440, "every reachable position is solvable");
    assert_eq!(at_remoteness(&g, &c, 31), ["647/85./321", "867/254/3.1"]);
    assert!(at_remoteness(&g, &c, 32).is_empty());
    // The puzzle search from one of them finds a 31-move solution, tile by tile.
    let r = solve(&g, "867/254/3.1", true);
    assert_eq!((r.value, r.remoteness, r.winning_moves.len()), (Value::Win, Some(31), 31));
    assert_eq!(r.winning_moves.last().unwrap().position.replace('\n', "/"), "123/456/78.");
    // One slide from the goal: the 8 or the 6 (by hand); the move is named by its tile.
    let p = g.parse("123/456/7.8").unwrap();
    let names: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
    assert_eq!(names, ["5", "7", "8"]);
    assert_eq!(solve(&g, "123/456/7.8", true).remoteness, Some(1));
    // Half of the arrangements cannot be reached (a swap of two tiles changes the parity).
    assert_eq!(solve(&g, "213/456/78.", false).value, Value::Lose);
}

#[test]
fn hanoi_has_3_to_the_n_positions_and_2_to_the_n_minus_1_moves() {
    // Lucas (1883): n discs take 2^n - 1 moves, and every one of the 3^n ways to put them
    // on three pegs (each peg's discs largest at the bottom) is reachable. hanoi.ron has six;
    // the same rules with other goals check n = 1 to 8.
    let g = descriptor("hanoi");
    let c = census_of(&g, "654321//");
    assert_eq!(c.graph.len(), 729);
    assert_eq!(c.solutions[0].remoteness, Some(63));
    let r = solve(&g, "6", true);
    assert_eq!((r.value, r.remoteness, r.winning_moves.len()), (Value::Win, Some(63), 63));
    // The first move of the 63: disc 1 to the middle peg (with an even number of discs the
    // smallest goes first to the spare peg, so that it ends on the goal).
    assert_eq!(r.winning_moves[0].position.replace('\n', "/"), "65432/1/");
    for n in 1..=8u32 {
        let goal: String = (1..=n).rev().map(|d| char::from_digit(d, 10).unwrap()).collect();
        let src = format!("(name: \"h\", rules: Board(moves: Hanoi, ends: [Goal(\"//{goal}\")]))");
        let h = DescriptorGame::from_source("h.ron", &src, None).unwrap();
        let c = census_of(&h, &n.to_string());
        assert_eq!(c.graph.len(), 3usize.pow(n), "n = {n}");
        assert_eq!(c.solutions[0].remoteness, Some(2u32.pow(n) - 1), "n = {n}");
    }
    // Four pegs, three discs: 4^3 = 64 positions, 5 moves (the Frame–Stewart number; by hand:
    // 1 and 2 aside, 3 across, 2 and 1 onto it); moving.py's hanoi(3, 4) agrees.
    let h4 = DescriptorGame::from_source(
        "h4.ron",
        "(name: \"h4\", rules: Board(moves: Hanoi, ends: [Goal(\"///321\")]))",
        None,
    )
    .unwrap();
    let c = census_of(&h4, "321///");
    assert_eq!((c.graph.len(), c.solutions[0].remoteness), (64, Some(5)));
}

#[test]
fn peg_solitaire_with_a_corner_hole_is_solvable_to_one_peg() {
    let g = descriptor("peg-solitaire");
    // Bell, "Solving Triangular Peg Solitaire" (Journal of Integer Sequences, 2008): the
    // 15-hole triangle with a corner hole empty can be reduced to one peg. 14 pegs to 1 is
    // 13 jumps, each removing one peg.
    let r = solve(&g, "./xx/xxx/xxxx/xxxxx", true);
    assert_eq!((r.value, r.remoteness, r.winning_moves.len()), (Value::Win, Some(13), 13));
    let last = r.winning_moves.last().unwrap().position.replace('\n', "/");
    assert_eq!(last.matches('x').count(), 1, "{last}");
    // bench/python/moving.py: 3,016 positions reachable from the start, 4 of them with one peg.
    let c = census_of(&g, "./xx/xxx/xxxx/xxxxx");
    assert_eq!(c.graph.len(), 3016);
    assert_eq!(c.ends.get(Value::Win), 4);
    // The jumps from the start (by hand): into the top hole from the two holes two rows down.
    let p = g.parse("./xx/xxx/xxxx/xxxxx").unwrap();
    let names: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
    assert_eq!(names, ["2:0-0:0", "2:2-0:0"]);
    // Two pegs apart cannot jump: a dead end.
    assert_eq!(solve(&g, "x/../.../..../...x.", false).value, Value::Lose);
    // On a rectangle a peg jumps across and down only: x x . in a row is one jump to one peg.
    let row = DescriptorGame::from_source(
        "r.ron",
        "(name: \"r\", rules: Board(moves: Jump, pieces: Shared, ends: [Left(1)]))",
        None,
    )
    .unwrap();
    assert_eq!(solve(&row, "xx./.../...", true).remoteness, Some(1));
    assert_eq!(solve(&row, "x../.x./...", false).value, Value::Lose, "no diagonal jumps on a rectangle");
}

#[test]
fn dodgem_is_a_first_player_win() {
    let g = descriptor("dodgem");
    // Winning Ways (Berlekamp, Conway and Guy), ch. 22: the first player wins 3×3 Dodgem.
    // bench/python/moving.py's retrograde analysis: a win, 1,963 positions reachable.
    let r = solve(&g, "x../x../.oo", false);
    assert_eq!(r.value, Value::Win);
    let c = census_of(&g, "x../x../.oo");
    assert_eq!(c.graph.len(), 1963);
    assert_eq!(c.solutions[0].value, Value::Win);
    // Winning Ways' rule as written: whoever cannot move wins (all cars gone, or blocked
    // in). Without `Gone` the game lasts one move longer at the end, with the same values.
    let src = std::fs::read_to_string(root().join("games/dodgem.ron")).unwrap().replace(", ends: [Gone]", "");
    let plain = DescriptorGame::from_source("dodgem.ron", &src, None).unwrap();
    assert_eq!(solve(&plain, "x../x../.oo", false).value, Value::Win);
    // Positions by hand: X's last car has just left (O to move): X has won.
    assert_eq!(g.primitive(&g.parse(".../.o./..o o").unwrap()).unwrap(), Some(Value::Lose));
    // X to move, a car on the east edge: it may leave (forward) or go north or south.
    let p = g.parse("..x/.../oo.").unwrap();
    let names: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
    assert_eq!(names, ["0:2-off", "0:2-1:2"]);
    // O blocked in, with X to move elsewhere... O to move and blocked: O wins (Winning Ways).
    let blocked = g.parse("xx./ox./... o").unwrap();
    assert!(g.moves(&blocked).unwrap().is_empty());
    assert_eq!(solve(&g, "xx./ox./... o", false).value, Value::Win);
    assert_eq!(g.format(&blocked).unwrap(), "xx./ox./... o");
    // David des Jardins (1996): 4×4 Dodgem never ends with perfect play, a draw;
    // moving.py's retrograde analysis agrees, over the same 393,900 positions.
    let src = std::fs::read_to_string(root().join("games/dodgem.ron"))
        .unwrap()
        .replace("size: \"3x3\"", "size: \"4x4\"")
        .replace("start: \"x../x../.oo\"", "start: \"x.../x.../x.../.ooo\"");
    let four = DescriptorGame::from_source("dodgem4.ron", &src, None).unwrap();
    let c = census_of(&four, "x.../x.../x.../.ooo");
    assert_eq!((c.graph.len(), c.solutions[0].value), (393_900, Value::Draw));
}

#[test]
fn check_agrees_with_the_scripts() {
    // Each descriptor beside a script of the same game written independently (tests/games),
    // under the same name so that `check` finds the pair.
    let dir = temp_dir("moving-check");
    for (ron, rhai) in
        [("8-puzzle", "eight_puzzle"), ("hanoi", "hanoi"), ("peg-solitaire", "peg_solitaire"), ("dodgem", "dodgem")]
    {
        std::fs::copy(root().join(format!("games/{ron}.ron")), dir.join(format!("{ron}.ron"))).unwrap();
        std::fs::copy(root().join(format!("tests/games/{rhai}.rhai")), dir.join(format!("{ron}.rhai"))).unwrap();
        let out = bin()
            .args(["check", &format!("{ron}.ron"), "--count", "20", "--seed", "11"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{ron}: {text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("0 disagreements between the descriptor"), "{ron}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn position_text() {
    let t = descriptor("8-puzzle");
    assert_eq!(t.parse("3x3").unwrap(), t.parse("123/456/78.").unwrap());
    assert_eq!(t.parse("12345678.").unwrap(), t.parse("123/456/78.").unwrap());
    let h = descriptor("hanoi");
    assert_eq!(h.parse("6").unwrap(), h.parse("654321//").unwrap());
    assert_eq!(h.format(&h.parse("65/4/321").unwrap()).unwrap(), "65/4/321");
    let p = descriptor("peg-solitaire");
    assert_eq!(p.parse(" . / x x / x x x / x x x x / x x x x x").unwrap(), p.parse("./xx/xxx/xxxx/xxxxx").unwrap());
    for (g, text, needle) in [
        (&t, "123/456/78", "row 3 has 2 cells"),
        (&t, "123/456/789", "'9' is not a tile"),
        (&t, "123/456/7..", "one blank"),
        (&t, "1234/5678/9abc/def.", "this puzzle's board is 3x3, as its goal (not 4x4)"),
        (&t, "123/456/77.", "the tiles must be the goal's (12345678)"),
        (&t, "12/34", "this puzzle's board is 3x3"),
        (&h, "645321//", "disc 5 lies on disc 4"),
        (&h, "6543/21/1", "disc 1 is there 2 times"),
        (&h, "654!21//", "'!' is not a disc"),
        (&h, "54321//", "6 discs on 3 pegs"),
        (&h, "seven", "write the pegs"),
        (&p, "./xx/xxx/xxxx", "triangle of side 5, not 4"),
        (&p, "./xxx/xxx/xxxx/xxxxx", "row 2 has 2 cells, not 3"),
        (&p, "./xo/xxx/xxxx/xxxxx", "'o' is not a cell"),
    ] {
        let e = g.parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    let d = descriptor("dodgem");
    // Cars keep their number, so the turn is written when it is O's.
    assert_eq!(d.to_move(&d.parse("x../x../.oo").unwrap()).unwrap(), Some(0));
    assert_eq!(d.to_move(&d.parse("x../x../.oo o").unwrap()).unwrap(), Some(1));
}

/// A descriptor around `rules` (a Board(...)), as a file named t.ron.
fn board_error(rules: &str) -> String {
    descriptor_error("t.ron", &format!("(\n    name: \"t\",\n    rules: {rules},\n)"))
}

#[test]
fn errors_name_the_file_line_and_column() {
    for (rules, needle) in [
        ("Board(moves: Step(first: [E, Nrth], second: [N]))", "t.ron:3:41: Unexpected variant named `Nrth`"),
        ("Board(moves: Step(first: [E], second: [N], of: true))", "t.ron:3:"),
        ("Board(moves: Slid, ends: [Goal(\"1.\")])", "Unexpected variant named `Slid`"),
        (
            "Board(moves: Step(first: [], second: [N]))",
            "t.ron:3:5: Step: the first player needs at least one direction",
        ),
        ("Board(moves: Step(first: [E, E], second: [N]))", "directions list E twice"),
        ("Board(moves: Step(first: [E], second: [N]), ends: [Gone])", "`Step(..., off: true)`"),
        ("Board(moves: Step(first: [E], second: [N]), pieces: Shared)", "`pieces: Own`"),
        ("Board(moves: Place, ends: [Gone])", "`Gone` is for pieces that step off the board"),
        ("Board(moves: Slide)", "needs its goal"),
        ("Board(moves: Jump)", "needs an end: `ends: [Left(1)]`"),
        ("Board(moves: Jump, ends: [Left(0)])", "Left(0)"),
        ("Board(moves: Slide, ends: [Goal(\"12/3.\"), Left(1)])", "`Left(n)` counts pegs"),
        ("Board(moves: Slide, ends: [Goal(\"12/34\")])", "Goal(\"12/34\"): a sliding puzzle has one blank"),
        ("Board(moves: Hanoi, ends: [Goal(\"//2\")])", "there is no disc 2"),
        ("Board(size: \"3x3\", moves: Slide, ends: [Goal(\"12/3.\")])", "leave `size` out"),
        ("Board(moves: Slide, pieces: Shared, ends: [Goal(\"12/3.\")])", "`pieces` and `cells` do not apply"),
        ("Board(moves: Place, ends: [Goal(\"x..\")])", "`Goal` and `Left` end puzzles"),
        ("Board(moves: Jump, ends: [InRow(3), Left(1)])", "a puzzle ends at its goal"),
        ("Board(shape: Triangle, moves: Place)", "a triangular board takes `moves: Jump`"),
        ("Board(size: \"11\", shape: Triangle, moves: Jump, ends: [Left(1)])", "the side is 1 to 10"),
        ("Board(size: \"3\", shape: Triangle, moves: Jump, ends: [Left(7)])", "has only 6 cells"),
        ("Board(shape: Hex, moves: Jump, ends: [Left(1)])", "a Hex board takes `moves: Place`"),
    ] {
        let e = board_error(rules);
        assert!(e.contains(needle), "{rules}: {e}");
        assert!(e.starts_with("t.ron:"), "{rules}: {e}");
    }
}

/// A game seen without its packed positions ([`Game::packed`] left at its fallback): the
/// census and the puzzle search then run over the game's own positions, as before the
/// packed path existed.
struct Plain<'a>(&'a DescriptorGame);

impl Game for Plain<'_> {
    type Pos = gamesman::descriptor::DPos;
    type Move = gamesman::descriptor::DMove;
    fn info(&self) -> &gamesman::game::GameInfo {
        self.0.info()
    }
    fn parse(&self, text: &str) -> gamesman::game::GameResult<Self::Pos> {
        self.0.parse(text)
    }
    fn format(&self, pos: &Self::Pos) -> gamesman::game::GameResult<String> {
        self.0.format(pos)
    }
    fn moves(&self, pos: &Self::Pos) -> gamesman::game::GameResult<Vec<Self::Move>> {
        self.0.moves(pos)
    }
    fn play(&self, pos: &Self::Pos, mv: &Self::Move) -> gamesman::game::GameResult<Self::Pos> {
        self.0.play(pos, mv)
    }
    fn move_name(&self, pos: &Self::Pos, mv: &Self::Move) -> gamesman::game::GameResult<String> {
        self.0.move_name(pos, mv)
    }
    fn primitive(&self, pos: &Self::Pos) -> gamesman::game::GameResult<Option<Value>> {
        self.0.primitive(pos)
    }
    fn stalemate(&self) -> Value {
        self.0.stalemate()
    }
}

/// The packed search (positions as 128-bit keys, numbered into a flat array: a permutation's
/// rank, a set of holes, each disc's peg) against the search over the game's own positions:
/// the same graph, node for node, with the same value and remoteness at every node.
#[test]
fn packed_positions_agree_with_the_plain_search() {
    use std::collections::HashSet;
    let side6 = std::fs::read_to_string(root().join("games/peg-solitaire.ron"))
        .unwrap()
        .replace("size: \"5\"", "size: \"6\"")
        .replace("start: \"./xx/xxx/xxxx/xxxxx\"", "start: \"./xx/xxx/xxxx/xxxxx/xxxxxx\"");
    let rect = "(name: \"r\", rules: Board(moves: Jump, pieces: Shared, ends: [Left(1)]))";
    let cases: Vec<(DescriptorGame, &str, Option<u64>)> = vec![
        // 9! permutations of the tiles and the blank; 3^6 ways to put six discs on three pegs;
        // 2^15 and 2^21 sets of holes of the triangles of side 5 and 6; 2^12 of a 3×4 board.
        (descriptor("8-puzzle"), "123/456/78.", Some(362_880)),
        (descriptor("8-puzzle"), "867/254/3.1", Some(362_880)),
        (descriptor("hanoi"), "654321//", Some(729)),
        (descriptor("peg-solitaire"), "./xx/xxx/xxxx/xxxxx", Some(1 << 15)),
        (DescriptorGame::from_source("peg6.ron", &side6, None).unwrap(), "./xx/xxx/xxxx/xxxxx/xxxxxx", Some(1 << 21)),
        (DescriptorGame::from_source("r.ron", rect, None).unwrap(), "xx.x/x.xx/.xxx", Some(1 << 12)),
    ];
    for (g, text, size) in &cases {
        let root = g.parse(text).unwrap();
        let space = g.packed(&root).expect("a board puzzle packs its positions");
        assert_eq!(space.size(), *size, "{text}");
        let packed = census(g, &root, 1 << 30, &Progress::default()).unwrap();
        let plain = census(&Plain(g), &root, 1 << 30, &Progress::default()).unwrap();
        assert_eq!((packed.graph.len(), packed.graph.edges()), (plain.graph.len(), plain.graph.edges()), "{text}");
        let mut indices = HashSet::new();
        for i in 0..plain.graph.len() {
            assert_eq!(packed.graph.nodes[i], plain.graph.nodes[i], "{text}: node {i}");
            assert_eq!(packed.graph.children_of(i), plain.graph.children_of(i), "{text}: node {i}");
            assert_eq!(packed.solutions[i], plain.solutions[i], "{text}: node {i}");
            // Positions by index: distinct positions, distinct indices, all below the size.
            let index = space.index(space.pack(&plain.graph.nodes[i]));
            assert!(index < size.unwrap() && indices.insert(index), "{text}: node {i}");
            assert_eq!(space.unpack(space.pack(&plain.graph.nodes[i])), plain.graph.nodes[i]);
        }
        assert_eq!(packed.by_remoteness, plain.by_remoteness, "{text}");
        // The puzzle search of `solve` (its own packed search) finds a solution as short.
        let fast = solve(g, text, true);
        let slow = solve(&Plain(g), text, true);
        assert_eq!((fast.value, fast.remoteness), (slow.value, slow.remoteness), "{text}");
        assert_eq!(fast.winning_moves.len(), slow.winning_moves.len(), "{text}");
    }
    // Dodgem's pieces move too, but it is a two-player game: not packed (the census's own
    // path, and its threads).
    let d = descriptor("dodgem");
    assert!(d.packed(&d.parse("x../x../.oo").unwrap()).is_none());
}

#[test]
fn eight_puzzle_positions_by_distance() {
    // The count of positions at each distance from the goal, 0 to 31: Reinefeld (1993), and
    // bench/python/moving.py's BFS prints the same ("by distance").
    let want: [u64; 32] = [
        1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878, 16993, 17110,
        23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
    ];
    let g = descriptor("8-puzzle");
    let c = census_of(&g, "123/456/78.");
    let got: Vec<u64> = c.by_remoteness.values().map(|b| b.get(Value::Win)).collect();
    assert_eq!(got, want);
    assert_eq!(c.by_remoteness.keys().copied().collect::<Vec<u32>>(), (0..32).collect::<Vec<u32>>());
}

#[test]
fn eight_puzzle_script_with_goal_and_children_counts_as_reinefeld() {
    // tests/games/eight_puzzle.rhai is written for speed: a string board, its solved position
    // as `const GOAL` (no `primitive`), `children` by the native `swaps`. The counts at each
    // distance are Reinefeld's (1993), as in the test above.
    let want: [u64; 32] = [
        1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878, 16993, 17110,
        23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
    ];
    let g = gamesman::script::ScriptGame::load(std::path::Path::new("tests/games/eight_puzzle.rhai")).unwrap();
    let root = g.parse("123/456/78.").unwrap();
    let c = census(&g, &root, 1 << 30, &Progress::default()).unwrap();
    assert_eq!(c.graph.len(), 181_440);
    let got: Vec<u64> = c.by_remoteness.values().map(|b| b.get(Value::Win)).collect();
    assert_eq!(got, want);
    // Only the goal is solved: one slide from it is not (`GOAL` is the only end).
    assert_eq!(c.ends.get(Value::Win), 1);
    let far: Vec<String> = (0..c.graph.len())
        .filter(|&i| c.solutions[i].remoteness == Some(31))
        .map(|i| g.format(&c.graph.nodes[i]).unwrap())
        .collect();
    let mut far = far;
    far.sort();
    assert_eq!(far, ["647/85./321", "867/254/3.1"]);
}
