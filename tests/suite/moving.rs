//! Board descriptors whose pieces move (src/descriptor/board.rs: `Step`, `Jump`, `Slide`,
//! `Hanoi`; the ends `Gone`, `Goal`, `Left`): the shipped games against published results and
//! against the plain Python solvers in `bench/python/moving.py` (an independent
//! implementation: strings and tuples, breadth-first search, retrograde analysis for Dodgem),
//! `check` against small scripts of the same games, the position text, and the errors a typo
//! gets.

use crate::common;

use common::*;
use gamesman::descriptor::DescriptorGame;
use gamesman::game::{Game, GameExt, Value};
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
        .map(|i| g.format(&c.graph.nodes.get(i).unwrap()).unwrap())
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
            assert_eq!(
                packed.graph.nodes.get(i).unwrap().into_owned(),
                plain.graph.nodes.get(i).unwrap().into_owned(),
                "{text}: node {i}"
            );
            assert_eq!(packed.graph.children_of(i), plain.graph.children_of(i), "{text}: node {i}");
            assert_eq!(packed.solutions[i], plain.solutions[i], "{text}: node {i}");
            // Positions by index: distinct positions, distinct indices, all below the size.
            let index = space.index(space.pack(&plain.graph.nodes.get(i).unwrap()));
            assert!(index < size.unwrap() && indices.insert(index), "{text}: node {i}");
            assert_eq!(
                space.unpack(space.pack(&plain.graph.nodes.get(i).unwrap())),
                plain.graph.nodes.get(i).unwrap().into_owned()
            );
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
        .map(|i| g.format(&c.graph.nodes.get(i).unwrap()).unwrap())
        .collect();
    let mut far = far;
    far.sort();
    assert_eq!(far, ["647/85./321", "867/254/3.1"]);
}

// --- Symmetry derived from the board and the rules -----------------------------------------

/// A descriptor from its text.
fn ron(src: &str) -> DescriptorGame {
    DescriptorGame::from_source("t.ron", src, None).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// The derived symmetries of a game's board at position `text`.
fn derived(g: &DescriptorGame, text: &str) -> Vec<gamesman::descriptor::MoveSym> {
    g.moving_symmetries(&g.parse(text).unwrap())
}

/// Dodgem 3×3 written with other directions and exits: the first player's, the second's.
fn stepping(first: &str, second: &str, off: bool) -> DescriptorGame {
    ron(&format!(
        "(name: \"s\", end: Misere, rules: Board(size: \"3x3\", moves: Step(first: [{first}], second: [{second}], \
         off: {off}){}))",
        if off { ", ends: [Gone]" } else { "" }
    ))
}

/// The groups worked out by hand. The square's transforms are numbered as in board.rs (bit 1
/// upside down, bit 2 left-right, bit 4 transposed after them); the triangle's 6 are all of
/// them; Hanoi's are the new places of the pegs.
#[test]
fn derived_symmetry_groups_are_the_ones_worked_out_by_hand() {
    use gamesman::descriptor::MoveSym::{Pegs, Square, Triangle};
    // Triangular peg solitaire: a jump along a row or either slant, one peg left: all 6
    // symmetries of the triangle keep the three directions of a jump and the end.
    let peg = descriptor("peg-solitaire");
    assert_eq!(derived(&peg, "./xx/xxx/xxxx/xxxxx"), (0..6).map(Triangle).collect::<Vec<_>>());
    // The 6 are the triangle's: the images of a peg in the top corner are the three corners,
    // each twice (the mirror through a corner fixes it).
    let corner = peg.parse("x/../.../..../.....").unwrap();
    let mut images: Vec<String> =
        derived(&peg, "5").iter().map(|s| peg.format(&peg.board_image(&corner, s).unwrap()).unwrap()).collect();
    images.sort();
    assert_eq!(
        images,
        [
            "./../.../..../....x",
            "./../.../..../....x",
            "./../.../..../x....",
            "./../.../..../x....",
            "x/../.../..../.....",
            "x/../.../..../....."
        ]
    );
    // Dodgem: X moves E (forward, off the board), N, S; O moves N (forward), E, W. Keeping
    // X's forward E needs no left-right mirror and no transpose; keeping O's N needs no
    // upside-down turn: only the identity keeps the player to move. (The anti-transpose
    // swaps X's directions for O's: a symmetry that swaps the players, not used.)
    let dodgem = descriptor("dodgem");
    assert_eq!(derived(&dodgem, "x../x../.oo"), [Square(0)]);
    // The 8-puzzle: the slides are kept by all 8, but the goal 123/456/78. by none but the
    // identity (its blank is in a corner and its tiles are all different).
    assert_eq!(derived(&descriptor("8-puzzle"), "123/456/78."), [Square(0)]);
    // A sliding puzzle whose goal is symmetric: 8 alike tiles round a central blank: all 8;
    // with the blank in a corner: the identity and the transpose (the corner's diagonal).
    assert_eq!(
        derived(&ron("(name: \"t\", rules: Board(moves: Slide, ends: [Goal(\"111/1.1/111\")]))"), "111/1.1/111"),
        (0..8).map(Square).collect::<Vec<_>>()
    );
    assert_eq!(
        derived(&ron("(name: \"t\", rules: Board(moves: Slide, ends: [Goal(\"111/111/11.\")]))"), "111/111/11."),
        [Square(0), Square(4)]
    );
    // Hanoi, goal on the last peg: any move of a disc is from any peg to any other, so every
    // permutation of the pegs keeps the moves; those that keep the goal leave the last peg
    // where it is: the identity and the swap of the first two.
    assert_eq!(derived(&descriptor("hanoi"), "654321//"), [Pegs(vec![0, 1, 2]), Pegs(vec![1, 0, 2])]);
    // Four pegs, goal on the second: the 3! permutations of the other three.
    let h4 = ron("(name: \"h\", rules: Board(moves: Hanoi, ends: [Goal(\"/321//\")]))");
    assert_eq!(derived(&h4, "321///").len(), 6);
    assert!(derived(&h4, "321///").iter().all(|s| matches!(s, Pegs(p) if p[1] == 1)));
    // Steps in all four directions, no exit: all 8; with an exit north for both, only the
    // left-right mirror keeps north; N for one and S for the other: the same; E and N with
    // exits: none but the identity.
    assert_eq!(
        derived(&stepping("N, S, E, W", "N, S, E, W", false), "x../.../..o"),
        (0..8).map(Square).collect::<Vec<_>>()
    );
    assert_eq!(derived(&stepping("N, S, E, W", "N, S, E, W", true), "x../.../..o"), [Square(0), Square(2)]);
    assert_eq!(derived(&stepping("N, E, W", "S, E, W", true), "x../.../..o"), [Square(0), Square(2)]);
    assert_eq!(derived(&stepping("E, N, S", "N, E, W", false), "x../.../..o"), [Square(0)]);
    // Peg solitaire on rectangles: across and down are kept by all 8 on a square, by the
    // two mirrors and the half turn on a 3×4.
    let rect = ron("(name: \"r\", rules: Board(moves: Jump, pieces: Shared, ends: [Left(1)]))");
    assert_eq!(derived(&rect, "xx./.../..."), (0..8).map(Square).collect::<Vec<_>>());
    assert_eq!(derived(&rect, "xx../..../...."), (0..4).map(Square).collect::<Vec<_>>());
}

/// Every transform of a board's shape checked against the rules themselves, position by
/// position: it is derived as a symmetry exactly when, on every position tried, it maps the
/// position's children onto the children of its image and keeps its end (and a transform
/// not derived is caught by one of those positions).
#[test]
fn derived_symmetries_are_exactly_the_transforms_that_keep_the_rules() {
    use gamesman::descriptor::MoveSym::{Pegs, Square, Triangle};
    use std::collections::BTreeSet;
    fn keeps(g: &DescriptorGame, positions: &[gamesman::descriptor::DPos], s: &gamesman::descriptor::MoveSym) -> bool {
        let fmt = |p: &gamesman::descriptor::DPos| g.format(p).unwrap();
        positions.iter().all(|p| {
            let q = g.board_image(p, s).unwrap();
            let mapped: BTreeSet<String> =
                g.children(p).unwrap().iter().map(|c| fmt(&g.board_image(c, s).unwrap())).collect();
            let theirs: BTreeSet<String> = g.children(&q).unwrap().iter().map(fmt).collect();
            mapped == theirs && g.primitive(p).unwrap() == g.primitive(&q).unwrap()
        })
    }
    let check =
        |g: &DescriptorGame, positions: Vec<gamesman::descriptor::DPos>, all: Vec<gamesman::descriptor::MoveSym>| {
            let got = g.moving_symmetries(&positions[0]);
            for s in all {
                assert_eq!(keeps(g, &positions, &s), got.contains(&s), "{s:?}");
            }
        };
    // Dodgem 3×3 and the variants above: every placing of cars (3^9), either player to move.
    let every_step = |g: &DescriptorGame| -> Vec<gamesman::descriptor::DPos> {
        let mut out = Vec::new();
        for n in 0..3u32.pow(9) {
            let cells: String = (0..9).map(|i| ['.', 'x', 'o'][(n / 3u32.pow(i) % 3) as usize]).collect();
            let rows = format!("{}/{}/{}", &cells[0..3], &cells[3..6], &cells[6..9]);
            for turn in [" x", " o"] {
                // Boards no game reaches (the player to move has no car left) are refused.
                if let Ok(p) = g.parse(&format!("{rows}{turn}")) {
                    out.push(p);
                }
            }
        }
        out
    };
    let square: Vec<_> = (0..8).map(Square).collect();
    for g in [
        descriptor("dodgem"),
        stepping("N, S, E, W", "N, S, E, W", true),
        stepping("N, E, W", "S, E, W", true),
        stepping("N, S, E, W", "N, S, E, W", false),
    ] {
        check(&g, every_step(&g), square.clone());
    }
    // Peg solitaire, side 5: every set of pegs (2^15).
    let peg = descriptor("peg-solitaire");
    let pegs: Vec<_> = (0..1u32 << 15)
        .map(|n| {
            let mut cells = (0..15).map(|i| if n >> i & 1 == 1 { 'x' } else { '.' });
            let rows: Vec<String> = (1..=5).map(|r| cells.by_ref().take(r).collect()).collect();
            peg.parse(&rows.join("/")).unwrap()
        })
        .collect();
    check(&peg, pegs, (0..6).map(Triangle).collect());
    // The 8-puzzle and a symmetric sliding puzzle: the first 3,000 positions reachable.
    let reach = |g: &DescriptorGame, text: &str| -> Vec<gamesman::descriptor::DPos> {
        let c = census_of(g, text);
        c.graph.nodes.into_positions().take(3000).collect()
    };
    let eight = descriptor("8-puzzle");
    check(&eight, reach(&eight, "123/456/78."), square.clone());
    let ring = ron("(name: \"t\", rules: Board(moves: Slide, ends: [Goal(\"111/111/11.\")]))");
    check(&ring, reach(&ring, "111/111/11."), square.clone());
    // Hanoi, 6 discs: all 729 positions, the 6 permutations of the pegs.
    let hanoi = descriptor("hanoi");
    let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    check(&hanoi, reach(&hanoi, "654321//"), perms.iter().map(|p| Pegs(p.to_vec())).collect());
}

/// Counts up to symmetry against `tests/oracles/moving_symmetry.py` (brute force over tuples,
/// the triangle's symmetries listed by hand as two generators): the classes of every set of
/// pegs, the classes `analyze` explores (under the symmetries that fix the start), and the
/// counts of positions, unchanged by exploring classes.
#[test]
fn positions_up_to_symmetry_agree_with_the_brute_force_oracle() {
    use gamesman::solve::census::census_up_to_symmetry;
    let path = root().join("tests/data/moving_symmetry.json");
    let oracle: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in oracle["peg_solitaire"].as_array().unwrap() {
        let n = case["side"].as_u64().unwrap() as usize;
        let g = if n == 5 {
            descriptor("peg-solitaire")
        } else {
            ron("(name: \"p\", rules: Board(shape: Triangle, moves: Jump, ends: [Left(1)]))")
        };
        let start: Vec<String> = (1..=n).map(|r| if r == 1 { ".".to_string() } else { "x".repeat(r) }).collect();
        let start = start.join("/");
        let root_pos = g.parse(&start).unwrap();
        let up_to = census_up_to_symmetry(&g, &root_pos, 1 << 30, &Progress::default(), 1).unwrap();
        let whole = census_of(&g, &start);
        assert_eq!(up_to.graph.len() as u64, case["classes"].as_u64().unwrap(), "side {n}");
        assert_eq!(up_to.positions(), case["reachable"].as_u64().unwrap(), "side {n}");
        assert_eq!(whole.graph.len() as u64, case["reachable"].as_u64().unwrap(), "side {n}");
        assert_eq!(up_to.moves(), whole.graph.edges() as u64, "side {n}");
        assert_eq!(
            (up_to.by_value, up_to.ends, &up_to.by_remoteness),
            (whole.by_value, whole.ends, &whole.by_remoteness)
        );
        assert_eq!(up_to.solutions[0], whole.solutions[0]);
        // The start's stabiliser: the orbit sizes are 1 or 2 (the mirror through the top).
        assert_eq!(case["stabiliser"].as_u64(), Some(2));
        assert!(up_to.weight.as_ref().unwrap().iter().all(|&w| w == 1 || w == 2));
        if n == 5 {
            // Every set of pegs of the side-5 triangle, by its canonical form.
            let mut forms = std::collections::HashSet::new();
            for bits in 0..1u32 << 15 {
                let mut cells = (0..15).map(|i| if bits >> i & 1 == 1 { 'x' } else { '.' });
                let rows: Vec<String> = (1..=5).map(|r| cells.by_ref().take(r).collect()).collect();
                forms.insert(g.canonical(&g.parse(&rows.join("/")).unwrap()).unwrap());
            }
            assert_eq!(forms.len() as u64, case["orbits"].as_u64().unwrap());
            // Still solvable to one peg, and the search meets fewer positions up to symmetry.
            let r = solve(&g, &start, true);
            assert_eq!((r.value, r.remoteness), (Value::Win, Some(13)));
        }
    }
    // Hanoi from its goal (which the swap of the first two pegs fixes): 365 classes of 729.
    let h = &oracle["hanoi"];
    let g = descriptor("hanoi");
    let up_to = census_up_to_symmetry(&g, &g.parse("//654321").unwrap(), 1 << 30, &Progress::default(), 1).unwrap();
    assert_eq!(up_to.graph.len() as u64, h["classes"].as_u64().unwrap());
    assert_eq!(up_to.positions(), h["positions"].as_u64().unwrap());
    // From the start, which the swap moves, nothing is reduced.
    let from_start =
        census_up_to_symmetry(&g, &g.parse("654321//").unwrap(), 1 << 30, &Progress::default(), 1).unwrap();
    assert!(from_start.weight.is_none());
    assert_eq!(from_start.graph.len(), 729);
    // The 8-puzzle has no symmetry (above), and its report's census leaves the positions as
    // keys: the same report as the whole census's, but for time and memory.
    let g = descriptor("8-puzzle");
    let root_pos = g.parse("867/254/3.1").unwrap();
    let strip = |mut r: serde_json::Value| {
        for k in ["seconds", "memory_bytes", "memory"] {
            r.as_object_mut().unwrap().remove(k);
        }
        r
    };
    let lean = census_up_to_symmetry(&g, &root_pos, 1 << 30, &Progress::default(), 1).unwrap();
    assert!(lean.graph.nodes.is_empty() && lean.weight.is_none());
    let whole = census(&g, &root_pos, 1 << 30, &Progress::default()).unwrap();
    assert_eq!(strip(lean.report(&g, "descriptor", 0.0).unwrap()), strip(whole.report(&g, "descriptor", 0.0).unwrap()));
}
