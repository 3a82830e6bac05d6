//! Games on points joined by lines (`rules: Points(...)`, src/descriptor/points/): the shipped
//! Three Men's Morris, Toads and Frogs, Othello 4×4 and Kaooa against Python solvers written
//! apart from gamesman (tests/oracles/), and the errors of a broken descriptor. Pieces of
//! several sizes that stack on the same boards (`rules: Stacks(...)`, src/descriptor/stacks.rs):
//! Gobblet Gobblers and a smaller variant against tests/oracles/gobblet.py.

use crate::common::{descriptor, descriptor_error, known, root, run_in, solve};
use gamesman::descriptor::DPos;
use gamesman::game::{Game, GameExt, Value};

/// `gamesman analyze GAME POSITION --no-db --json`: value, remoteness, positions by value.
fn analyze(game: &str, pos: &str) -> serde_json::Value {
    let path = format!("games/{game}.ron");
    let (code, out, err) = run_in(&["analyze", &path, pos, "--no-db", "--json"], "");
    assert_eq!(code, 0, "{game}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// `(value, remoteness, positions, [win, lose, tie, draw])` of an analysis.
fn summary(r: &serde_json::Value) -> (String, Option<u64>, u64, [u64; 4]) {
    let by = &r["by_value"];
    let n = |k: &str| by[k].as_u64().unwrap_or(0);
    (
        r["value"].as_str().unwrap_or("").to_string(),
        r["remoteness"].as_u64(),
        r["positions"].as_u64().unwrap_or(0),
        [n("win"), n("lose"), n("tie"), n("draw")],
    )
}

/// Every position of a sample the oracle solved: its value and remoteness here.
fn agrees_with_sample(game: &str, data: &str) {
    let text = std::fs::read_to_string(root().join("tests/data").join(data)).unwrap();
    agrees_with(game, data, &text);
}

/// Every position of `text` (JSON lines of position, value, remoteness): its value and
/// remoteness here. `game`: a shipped game's name, or a descriptor's path.
fn agrees_with(game: &str, data: &str, text: &str) {
    let g = if game.ends_with(".ron") {
        gamesman::descriptor::DescriptorGame::load(std::path::Path::new(game)).unwrap_or_else(|e| panic!("{e}"))
    } else {
        descriptor(game)
    };
    let sample = known(text);
    assert!(sample.len() > 100, "{data}");
    let mut wrong = Vec::new();
    for k in &sample {
        let r = solve(&g, &k.position, true);
        if (r.value, r.remoteness) != (k.value, k.remoteness) {
            wrong.push(format!(
                "{}: {:?} {:?}, oracle {:?} {:?}",
                k.position, r.value, r.remoteness, k.value, k.remoteness
            ));
        }
    }
    assert!(wrong.is_empty(), "{game}:\n{}", wrong.join("\n"));
}

/// Three Men's Morris (tests/oracles/three_mens_morris.py, retrograde analysis): from the
/// empty board a win in 9 for x; 5,390 positions reachable, 2,997 wins, 1,185 losses, 1,208
/// draws; and every 50th reachable position's value and remoteness.
#[test]
fn three_mens_morris_agrees_with_its_oracle() {
    let r = analyze("three-mens-morris", "......... x");
    assert_eq!(summary(&r), ("win".into(), Some(9), 5_390, [2_997, 1_185, 0, 1_208]), "{r}");
    agrees_with_sample("three-mens-morris", "points_three_mens_morris.jsonl");
}

/// Teeko on a 4×4 board (tests/games/teeko_4x4.ron; tests/oracles/teeko.py, retrograde
/// analysis): from the empty board a draw; 2,400,087 positions reachable, 506,518 wins,
/// 85,166 losses, 1,808,403 draws (its sample is checked by tiers below).
#[test]
fn teeko_4x4_agrees_with_its_oracle() {
    let path = root().join("tests/games/teeko_4x4.ron");
    let (code, out, err) =
        run_in(&["analyze", path.to_str().unwrap(), "..../..../..../.... b", "--no-db", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary(&r), ("draw".into(), None, 2_400_087, [506_518, 85_166, 0, 1_808_403]), "{r}");
}

/// Toads and Frogs (tests/oracles/toads_and_frogs.py, a memoised search): TTT..FFF is a win
/// in 15 for the toads, 48 positions, 24 wins and 24 losses, and the same for the frogs to
/// move (the mirror image); T.F..... a win in 3; .....TF. a loss in 2, as by hand: the toad's
/// only move is the jump (......FT), the frog steps left and the toad on the last point is
/// stuck.
#[test]
fn toads_and_frogs_agrees_with_its_oracle() {
    let r = analyze("toads-and-frogs", "TTT..FFF T");
    assert_eq!(summary(&r), ("win".into(), Some(15), 48, [24, 24, 0, 0]), "{r}");
    let g = descriptor("toads-and-frogs");
    for (pos, value, rem) in
        [("TTT..FFF F", Value::Win, 15), ("T.F..... T", Value::Win, 3), (".....TF. T", Value::Lose, 2)]
    {
        let r = solve(&g, pos, true);
        assert_eq!((r.value, r.remoteness), (value, Some(rem)), "{pos}");
    }
    let p = g.parse("TF.T.F.. T").unwrap();
    let moves: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
    // The toad on 3 steps to 4; the one on 0 jumps the frog to 2; nothing moves left.
    assert_eq!(moves, ["3-4", "0-2"]);
}

/// Othello 4×4 (tests/oracles/othello.py): a loss in 12 for Black, the first player (the
/// published result: the second player wins); 62,789 positions reachable, 30,156 wins,
/// 27,624 losses and 5,009 ties for the player to move.
#[test]
fn othello_4x4_agrees_with_its_oracle() {
    let r = analyze("othello-4x4", "..../.ox./.xo./.... x");
    assert_eq!(summary(&r), ("lose".into(), Some(12), 62_789, [30_156, 27_624, 5_009, 0]), "{r}");
}

/// Othello 6×6 (not solved here): the opening by hand. Black (x, on 15 and 20) has the four
/// moves of every Othello opening, each turning one disc: 8 and 27 flank 14 and 21 along a
/// column, 13 and 22 along a row.
#[test]
fn othello_6x6_opens_as_othello_does() {
    let g = descriptor("othello-6x6");
    let p = g.parse("....../....../..ox../..xo../....../...... x").unwrap();
    let mut names: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
    names.sort_by_key(|n| n.parse::<u32>().unwrap());
    assert_eq!(names, ["8", "13", "22", "27"]);
    let after = g.play(&p, &g.parse_move(&p, "13").unwrap()).unwrap();
    assert_eq!(g.format(&after).unwrap(), "....../....../.xxx../..xo../....../...... o");
}

/// Othello 6×6 (tests/oracles/othello.py on 6×6): 150 positions met in random games, 8 to 10
/// empty points from the end, each one's value and remoteness (91 wins, 50 losses, 9 ties).
#[test]
fn othello_6x6_endgames_agree_with_the_oracle() {
    agrees_with_sample("othello-6x6", "points_othello_6x6.jsonl");
}

/// Othello 6×6 against the published result: Feinstein's line of perfect play (1993,
/// tests/data/othello_6x6_feinstein.txt). It replays here move for move, with the one pass
/// where x has no move, and ends 16 discs to 20, a win for o. From 20 empty points on, each
/// position on it is a loss for x to move and a win for o to move, o's move on the line one
/// that wins (values alone: the line keeps the score, not the quickest end). The whole game
/// is past this machine (docs/benchmarks.md).
#[test]
fn othello_6x6_keeps_to_feinsteins_line() {
    let g = descriptor("othello-6x6");
    let text = std::fs::read_to_string(root().join("tests/data/othello_6x6_feinstein.txt")).unwrap();
    let names = |p: &DPos| -> Vec<String> { g.moves(p).unwrap().iter().map(|m| g.move_name(p, m).unwrap()).collect() };
    let mut p = g.parse("....../....../..ox../..xo../....../...... x").unwrap();
    let (mut line, mut passes) = (Vec::new(), 0);
    for sq in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        // Columns b..g and rows 2..7 of the 8×8 board; the points are numbered row by row.
        let b = sq.as_bytes();
        let point = (usize::from(b[1] - b'2') * 6 + usize::from(b[0] - b'b')).to_string();
        if !names(&p).contains(&point) {
            assert_eq!(names(&p), ["pass"], "{sq} is not a move of {}", g.format(&p).unwrap());
            p = g.play(&p, &g.parse_move(&p, "pass").unwrap()).unwrap();
            passes += 1;
        }
        line.push((g.format(&p).unwrap(), point.clone()));
        p = g.play(&p, &g.parse_move(&p, &point).unwrap()).unwrap();
    }
    assert_eq!((line.len(), passes), (32, 1));
    let end = g.format(&p).unwrap();
    let discs = |c: char| end.split(' ').next().unwrap().chars().filter(|&d| d == c).count();
    assert_eq!((discs('x'), discs('o')), (16, 20), "{end}");
    // x made the last move: the game is over with o to move, and o has won.
    assert!(end.ends_with(" o"), "{end}");
    let r = solve(&g, &end, true);
    assert_eq!((r.value, r.remoteness), (Value::Win, Some(0)), "{end}");
    for (pos, point) in &line[12..] {
        let r = solve(&g, pos, false);
        let x_to_move = pos.ends_with(" x");
        assert_eq!(r.value, if x_to_move { Value::Lose } else { Value::Win }, "{pos}");
        if !x_to_move {
            assert!(r.winning_moves.iter().any(|m| m.name == *point), "{pos}: {point} does not win");
        }
    }
}

/// The start of Othello 6×6 is lost for the player to move (Feinstein, 1993: the second
/// player wins, 16 discs to 20), by the value-first search alone: 1.6·10^9 positions, about an
/// hour of one core and 6.5 GB here, so run by hand:
/// `cargo test --release --test suite points::othello_6x6_start -- --ignored`.
#[test]
#[ignore]
fn othello_6x6_start_is_a_second_player_win() {
    let (code, out, err) =
        run_in(&["solve", "othello-6x6", "--no-db", "--no-remoteness", "--no-moves", "--max-memory", "14000"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value:       lose\n"), "{out}");
}

/// `order` ranks the points (othello-6x6.ron: the corners 0, the middle 2): x's two moves
/// here, by hand, are 15 (flanking o on 14 from 13) and the corner 35 (flanking o on 34 from
/// 33); the corner is listed first. Without `order`, the points' order.
#[test]
fn order_lists_the_moves_by_the_rank_of_their_points() {
    let pos = "....../....../.xo.../....../....../...xo. x";
    let dir = crate::common::temp_dir("order");
    let unordered = dir.join("unordered.ron");
    std::fs::write(
        &unordered,
        "(name: \"t\", rules: Points(board: Grid(rows: 6, cols: 6, diagonals: true), \
         moves: ([Flank], [Flank]), pass: true, ends: [MostPieces]))",
    )
    .unwrap();
    let unordered = gamesman::descriptor::DescriptorGame::load(&unordered).unwrap();
    for (g, want) in [(descriptor("othello-6x6"), ["35", "15"]), (unordered, ["15", "35"])] {
        let p = g.parse(pos).unwrap();
        let names: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
        assert_eq!(names, want);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Kaooa as GamesmanOne plays it (tests/oracles/kaooa.py, its rules transcribed from
/// GamesmanOne's kaooa.c): the start is a draw; 21,696 positions reachable, 2,195 wins, 1,420
/// losses and 18,081 draws; and every 200th reachable position's value and remoteness.
#[test]
fn kaooa_agrees_with_its_oracle() {
    let r = analyze("kaooa", ".......... C 6 1");
    assert_eq!(summary(&r), ("draw".into(), None, 21_696, [2_195, 1_420, 0, 18_081]), "{r}");
    agrees_with_sample("kaooa", "points_kaooa.jsonl");
    // A capture by hand: the vulture on 0 jumps the crow on 5 to 6 and the crow is gone.
    let g = descriptor("kaooa");
    let p = g.parse("V....C.... V 5 0").unwrap();
    let names: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
    assert_eq!(names, ["0-9", "0-6"]);
    let after = g.play(&p, &g.parse_move(&p, "0-6").unwrap()).unwrap();
    assert_eq!(g.format(&after).unwrap(), "......V... C 5 0");
}

/// Hexapawn (tests/oracles/hexapawn.py): on 3×3 a loss in 6 for x, the first player (Gardner's
/// result: the second player wins), 135 positions reachable, 55 wins and 80 losses; every
/// reachable position of 3×3 and every 100th of 4×4 (tests/games/hexapawn_4x4.ron: a win in 11
/// for x, 20,286 positions). By hand, a
/// capture by replacement: o's pawn on 0 takes x's on 4 diagonally; the pawn on 1 is blocked
/// straight ahead and may not go diagonally to an empty square.
#[test]
fn hexapawn_agrees_with_its_oracle() {
    let r = analyze("hexapawn", "ooo/.../xxx x");
    assert_eq!(summary(&r), ("lose".into(), Some(6), 135, [55, 80, 0, 0]), "{r}");
    agrees_with_sample("hexapawn", "points_hexapawn_3x3.jsonl");
    let text = std::fs::read_to_string(root().join("tests/data/points_hexapawn_4x4.jsonl")).unwrap();
    agrees_with(root().join("tests/games/hexapawn_4x4.ron").to_str().unwrap(), "points_hexapawn_4x4.jsonl", &text);
    let g = descriptor("hexapawn");
    let p = g.parse("ooo/.x./x.x o").unwrap();
    let names: Vec<String> = g.moves(&p).unwrap().iter().map(|m| g.move_name(&p, m).unwrap()).collect();
    // The steps first, then the captures, as the list of kinds says.
    assert_eq!(names, ["0-3", "2-5", "0-4", "2-4"]);
    let after = g.play(&p, &g.parse_move(&p, "0-4").unwrap()).unwrap();
    assert_eq!(g.format(&after).unwrap(), ".oo/.o./x.x x");
    // o on the far row has won: x, to move, has lost.
    assert_eq!(g.primitive(&g.parse("x.o/.x./o.. x").unwrap()).unwrap(), Some(Value::Lose));
}

/// Fox and Geese on `Cross(5)` (tests/games/fox_and_geese_5.ron: five geese, the fox wins on
/// capturing two) against tests/oracles/fox_and_geese.py: a draw, 545,879 positions, and
/// every 4,900th of them (every 700th by tiers, below). By hand, on the shipped 33-point game: the geese's six opening
/// moves (the row above the fox's steps down, but onto the fox), a goose never steps up,
/// and the fox's jump that takes the tenth goose ends the game.
#[test]
fn fox_and_geese_agrees_with_its_oracle() {
    let small = root().join("tests/games/fox_and_geese_5.ron");
    let small = small.to_str().unwrap();
    let (code, out, err) = run_in(&["analyze", small, "--no-db", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary(&r), ("draw".into(), None, 545_879, [42_735, 27_802, 0, 475_342]), "{r}");
    // With the fox's captures in chains, winning on three (tests/oracles/fox_and_geese.py
    // --chain).
    let chain = root().join("tests/games/fox_and_geese_5_chain.ron");
    let (code, out, err) = run_in(&["analyze", chain.to_str().unwrap(), "--no-db", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary(&r), ("draw".into(), None, 575_993, [18_079, 5_450, 0, 552_464]), "{r}");
    // Each position is a search of its own here (every one from the arrays, below): one in 7.
    let text = std::fs::read_to_string(root().join("tests/data/points_fox_and_geese_5.jsonl")).unwrap();
    let tenth: String = text.lines().step_by(7).map(|l| format!("{l}\n")).collect();
    agrees_with(small, "points_fox_and_geese_5.jsonl", &tenth);
    let g = descriptor("fox-and-geese");
    // The players are named by their marks.
    assert_eq!([g.info().player_name(0), g.info().player_name(1)], ["G", "F"]);
    let names = |p: &DPos| -> Vec<String> { g.moves(p).unwrap().iter().map(|m| g.move_name(p, m).unwrap()).collect() };
    let start = g.start().unwrap().unwrap();
    assert_eq!(names(&start), ["6-13", "7-14", "8-15", "10-17", "11-18", "12-19"]);
    let geese = g.parse("GGG/.../...G.../......./...G.../.../..F G 0 0").unwrap();
    let mut got = names(&geese);
    got.sort();
    assert_eq!(got, ["0-3", "1-4", "2-5", "23-22", "23-24", "23-28", "9-10", "9-16", "9-8"]);
    let fox = g.parse("GGG/.../...G.../...F.../......./.../... F 0 0").unwrap();
    assert_eq!(g.primitive(&fox).unwrap(), None);
    let mut got = names(&fox);
    got.sort();
    assert_eq!(got, ["16-15", "16-17", "16-23", "16-4"]);
    let after = g.play(&fox, &g.parse_move(&fox, "16-4").unwrap()).unwrap();
    assert_eq!(g.format(&after).unwrap(), "GGG/.F./......./......./......./.../... G 0 0");
    assert_eq!(g.primitive(&after).unwrap(), Some(Value::Lose));
}

/// The shipped Fox and Geese on its own 33-point board, solved by tiers from an endgame (five
/// geese, symmetric under the board's mirror, the fox winning on the tenth goose, that is,
/// on capturing two of the five) into the array database, against tests/oracles/fox_and_geese.py
/// (`7 ... 2 --chain`): a draw, 5,370,631 positions reachable (415,414 wins, 179,163 losses,
/// 4,776,054 draws), and every 25,000th of them read from the arrays.
#[test]
fn fox_and_geese_on_its_own_board_agrees_with_its_oracle() {
    let start = ".../.G./G.G.G.G/...F.../......./.../... G 0 0";
    let expect = ("draw".into(), None, 5_370_631, [415_414, 179_163, 0, 4_776_054]);
    let text = std::fs::read_to_string(root().join("tests/data/points_fox_and_geese_7.jsonl")).unwrap();
    assert!(known(&text).len() > 200, "the start and every 25,000th position");
    let (dir, _) = saved_by_tiers_agrees("games/fox-and-geese.ron", start, "points_fox_and_geese_7.jsonl", expect, &[]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `solve FILE START --save` by tiers into the array database (with `save` added to its
/// arguments), then every position of the oracle's sample `data` read from the arrays and
/// `analyze`'s summary from them (`expect`), all as the oracle found them. Returns the
/// save's directory and the session's way to open it.
fn saved_by_tiers_agrees(
    file: &str,
    start: &str,
    data: &str,
    expect: (String, Option<u64>, u64, [u64; 4]),
    save: &[&str],
) -> (std::path::PathBuf, gamesman::catalog::How) {
    use gamesman::catalog::{Catalog, Database, How};
    let name = file.rsplit('/').next().unwrap().trim_end_matches(".ron");
    let dir = crate::common::temp_dir(&format!("points-tiers-{name}"));
    let path = root().join(file);
    let path = path.to_str().unwrap();
    let db = dir.to_str().unwrap();
    let (code, _, err) = run_in(&[&["solve", path, start, "--save", "--db", db], save].concat(), "");
    assert_eq!(code, 0, "{name}: {err}");
    assert!(dir.join("identity").exists(), "{name}: an array database, not a redb file");
    let how = How { database: Database::At(dir.clone()), ..How::default() };
    let mut s = Catalog::new().open(path, &how).expect("the descriptor opens");
    let text = std::fs::read_to_string(root().join("tests/data").join(data)).unwrap();
    let sample = known(&text);
    assert!(sample.len() > 100, "{data}");
    let wrong = crate::common::disagreements_from_database(s.as_mut(), &sample);
    assert!(wrong.is_empty(), "{name}: {} disagreements, e.g. {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
    let (code, out, err) = run_in(&["analyze", path, start, "--db", db, "--json"], "");
    assert_eq!(code, 0, "{name}: {err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary(&j), expect, "{name}: {j}");
    (dir, how)
}

/// The fox's chain of captures (`Chain`), by hand on the 21-point cross (rows of 3, 5, 5,
/// 5, 3 points, numbered row by row): the fox on 15 with geese on 10, 4 and 6 steps to 14,
/// 16 or 19, or jumps 10 up to 5, and may stop there or jump on, over 4 to 3 or over 6 to 7;
/// the geese jumped go when the move ends, and two of three lost is no end with `Captured(3)`.
#[test]
fn a_chain_of_captures_is_one_move() {
    let src = "(name: \"c\", rules: Points(board: Cross(5), marks: \"GF\", hand: (3, 1), \
               moves: ([Step], [Step, Chain]), towards: (NotUp, Any), ends: [Captured(3)]))";
    let g = gamesman::descriptor::DescriptorGame::from_source("c.ron", src, None).unwrap();
    let p = g.parse(".../.G.G./..G../..F../... F 0 0").unwrap();
    assert_eq!(sorted_names(&g, &p), ["15-14", "15-16", "15-19", "15-5", "15-5-3", "15-5-7"]);
    let after = |m: &str| g.format(&g.play(&p, &g.parse_move(&p, m).unwrap()).unwrap()).unwrap();
    assert_eq!(after("15-5"), ".../.GFG./...../...../... G 0 0");
    assert_eq!(after("15-5-7"), ".../.G..F/...../...../... G 0 0");
    assert_eq!(after("15-5-3"), ".../F..G./...../...../... G 0 0");
    let end = g.parse(after("15-5-7").as_str()).unwrap();
    assert_eq!(g.primitive(&end).unwrap(), None);
    // A goose is jumped once a move: the fox on 5 jumps 10 down to 15, and cannot jump it
    // again back up to 5 (empty since the fox left); the goose on 19 has no point beyond.
    let q = g.parse(".../..F../..G../...../.G. F 0 0").unwrap();
    assert_eq!(sorted_names(&g, &q), ["5-1", "5-15", "5-4", "5-6"]);
    // The fox on 13 (row 3, first point) jumps 8, 4, 6, 12 in turn, stopping where it likes
    // (worked by hand beside tests/oracles/fox_and_geese.py --chain); the chain that takes
    // the third goose wins at once.
    let chain =
        gamesman::descriptor::DescriptorGame::load(&root().join("tests/games/fox_and_geese_5_chain.ron")).unwrap();
    let a = chain.parse("..G/.G.G./G...G/F..../... F 0 0").unwrap();
    assert_eq!(sorted_names(&chain, &a), ["13-14", "13-3", "13-3-5", "13-3-5-7", "13-3-5-7-17"]);
    let won = chain.play(&a, &chain.parse_move(&a, "13-3-5-7").unwrap()).unwrap();
    assert_eq!(chain.format(&won).unwrap(), "..G/....F/....G/...../... G 0 0");
    assert_eq!(chain.primitive(&won).unwrap(), Some(Value::Lose));
}

/// Chains kept to rows and columns beside single captures on every line, on a 4×4 grid with
/// diagonals, over random games: no move is listed twice (a chain's one jump is also a
/// `Capture`), each move's name reads back as that move, and every child lies in the tier
/// or in one of its child tiers, however many pieces a chain takes.
#[test]
fn chains_beside_captures_list_each_move_once_and_keep_to_their_tiers() {
    let src = "(name: \"s\", rules: Points(board: Grid(rows: 4, cols: 4, diagonals: true), hand: (6, 1), \
               moves: ([Step], [Step, Capture, Straight(Chain)]), ends: [Captured(4)]))";
    let g = gamesman::descriptor::DescriptorGame::from_source("s.ron", src, None).unwrap();
    let tiers = g.tiers().unwrap();
    let (mut chains, mut n) = (0, 0);
    for seed in 1..=60u64 {
        for p in random_walk(&g, "xxxx/xx../..o./.... o 0 0", seed, 40) {
            let moves = g.moves(&p).unwrap();
            let names: Vec<String> = moves.iter().map(|m| g.move_name(&p, m).unwrap()).collect();
            for (m, name) in moves.iter().zip(&names) {
                assert_eq!(names.iter().filter(|x| *x == name).count(), 1, "{name} at {}", g.format(&p).unwrap());
                assert_eq!(&g.parse_move(&p, name).unwrap(), m, "{name}");
                chains += usize::from(name.matches('-').count() > 1);
            }
            let (t, _) = tiers.locate(&p);
            let kids = tiers.child_tiers(t);
            for c in g.children(&p).unwrap() {
                let (ct, _) = tiers.locate(&c);
                assert!(ct == t && tiers.moves_within(t) || kids.contains(&ct), "{}", g.format(&c).unwrap());
            }
            n += 1;
        }
    }
    assert!(n > 500 && chains > 0, "{n} positions, {chains} chains");
}

/// The names of the moves at `p`, sorted.
fn sorted_names(g: &gamesman::descriptor::DescriptorGame, p: &DPos) -> Vec<String> {
    let mut names: Vec<String> = g.moves(p).unwrap().iter().map(|m| g.move_name(p, m).unwrap()).collect();
    names.sort();
    names
}

/// A descriptor around `rules`, as a file named t.ron.
fn points_error(rules: &str) -> String {
    descriptor_error("t.ron", &format!("(\n    name: \"t\",\n    rules: Points(\n{rules}\n    ),\n)"))
}

#[test]
fn errors_name_the_file_line_and_column() {
    for (rules, needle) in [
        (
            "        board: Lines(points: 4, lines: [[0, 1, 2], [2, 3, 4]]),\n        moves: ([Step], [Step]),",
            "t.ron:4:9: line 1 ([2, 3, 4]) goes through point 4, but the board's points are 0 to 3",
        ),
        (
            "        board: Morris(3),\n        moves: ([Step], [Step]),\n        hand: (5, 5),",
            "t.ron:6:9: 5 and 5 pieces in hand cannot all be placed on a board of 9 points",
        ),
        ("        board: Morris(5),\n        moves: ([Step], [Step]),", "t.ron:4:9: there is no Morris(5) board"),
        (
            "        board: Hexagon(3),\n        moves: ([Step], [Step]),",
            "t.ron:4:16: Unexpected variant named `Hexagon`",
        ),
        (
            "        board: Row(4),\n        moves: ([Step], [Step]),\n        ends: [Line(5)],",
            "t.ron:6:9: Line(5): the board's longest line has 4 points",
        ),
        (
            "        board: Star,\n        moves: ([Step], [Step]),\n        towards: (Right, Left),",
            "needs a board of rows",
        ),
        (
            "        board: Morris(6),\n        moves: ([Step], [Step]),\n        ends: [Square],",
            "t.ron:6:9: Square needs a board of at least 2 rows and 2 columns (Grid)",
        ),
        (
            "        board: Grid(rows: 3, cols: 3),\n        moves: ([Step], [Step]),\n        ends: [Reach],",
            "t.ron:6:9: Reach wins on the far edge a side goes towards: give both sides' `towards`",
        ),
        (
            "        board: Star,\n        moves: ([Diagonal(Take)], [Step]),",
            "t.ron:5:9: `Straight(...)` and `Diagonal(...)` need a board of rows and columns",
        ),
        ("        board: Row(3),\n        moves: ([Diagonal(Fly(3))], [Step]),", "Unexpected variant named `Fly`"),
        (
            "        board: Row(3),\n        moves: ([Step], [Step]),\n        order: [0, 1],",
            "t.ron:6:9: `order` gives a rank to 2 points; the board has 3",
        ),
    ] {
        let e = points_error(rules);
        assert!(e.contains(needle), "{rules}\n{e}");
    }
    // Positions that do not fit: a clear error each, never a panic.
    let g = descriptor("kaooa");
    for (text, needle) in [
        ("C.... C 6 1", "the board has 10 points"),
        (".......... X 6 1", "the side to move is C or V"),
        (".......... C", "write the pieces in hand"),
        ("CCCC...... C 5 1", "more than its 6 pieces"),
        (".......... C six 1", "not a number"),
    ] {
        let e = g.parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
}

/// Kaooa against GamesmanOne itself: the start and 200 positions of random games, valued by
/// GamesmanOne's own solve (`tests/oracles/gamesmanone_boards.py` →
/// `tests/data/kaooa-gamesmanone.jsonl`: its points in its order, the side to move, the crows
/// in hand), each written as gamesman's position text (the vulture is in hand until it is on
/// the board).
#[test]
fn kaooa_agrees_with_gamesmanone() {
    let raw = std::fs::read_to_string(root().join("tests/data/kaooa-gamesmanone.jsonl")).unwrap();
    let mut text = String::new();
    for line in raw.lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let points = j["points"].as_str().unwrap().to_uppercase();
        let side = if j["to_move"] == "crow" { "C" } else { "V" };
        let vulture_in_hand = if points.contains('V') { 0 } else { 1 };
        let position = format!("{points} {side} {} {vulture_in_hand}", j["crows_in_hand"]);
        let row = serde_json::json!({ "position": position, "value": j["value"], "remoteness": j["remoteness"] });
        text.push_str(&format!("{row}\n"));
    }
    agrees_with("kaooa", "kaooa-gamesmanone.jsonl", &text);
}

/// A little random walk: from `start`, `steps` moves chosen by a linear congruential
/// generator, every position met (the start included).
fn random_walk(g: &gamesman::descriptor::DescriptorGame, start: &str, seed: u64, steps: usize) -> Vec<DPos> {
    let mut x = seed;
    let mut p = g.parse(start).unwrap();
    let mut out = vec![p.clone()];
    for _ in 0..steps {
        let kids = g.children(&p).unwrap();
        if kids.is_empty() || g.primitive(&p).unwrap().is_some() {
            break;
        }
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        p = kids[(x >> 33) as usize % kids.len()].clone();
        out.push(p.clone());
    }
    out
}

/// Keys and tiers on random reachable positions of every shipped points game: key →
/// position → key and position → (tier, index) → position come back (to the class'
/// representative in a tier numbered by classes), and the children
/// listed on keys are the keys of the game's own children, in order.
#[test]
fn keys_and_tiers_round_trip_on_random_positions() {
    let games = [
        ("three-mens-morris", "......... x"),
        ("kaooa", ".......... C 6 1"),
        ("toads-and-frogs", "TTT..FFF T"),
        ("othello-4x4", "..../.ox./.xo./.... x"),
        ("six-mens-morris", "................ x 6 6"),
        ("teeko", "...../...../...../...../..... b"),
        ("nine-mens-morris", "........................ x 9 9"),
    ];
    for (name, start) in games {
        let g = descriptor(name);
        let root = g.parse(start).unwrap();
        let keys = g.packed_play(&root).unwrap_or_else(|| panic!("{name} has keys"));
        let tiers = g.tiers().unwrap_or_else(|| panic!("{name} has tiers"));
        let mut n = 0;
        for seed in 1..=40u64 {
            for p in random_walk(&g, start, seed, 60) {
                let k = keys.pack(&p).unwrap();
                assert_eq!(keys.unpack(k), p, "{name}: {}", g.format(&p).unwrap());
                let mut on_keys = Vec::new();
                keys.children(k, &mut on_keys);
                let own: Vec<u128> = g.children(&p).unwrap().iter().map(|c| keys.pack(c).unwrap()).collect();
                assert_eq!(on_keys, own, "{name}: {}", g.format(&p).unwrap());
                assert_eq!(keys.primitive(k), g.primitive(&p).unwrap(), "{name}");
                let (t, i) = tiers.locate(&p);
                assert!(i < tiers.tier_size(t), "{name}");
                // The position itself, or in a tier numbered by classes (Teeko's largest), its
                // class' representative.
                let back = tiers.position(t, i);
                assert!(back == p || back == g.canonical(&p).unwrap(), "{name}: {}", g.format(&p).unwrap());
                // Every child lies in this tier (only where a move may stay) or a child tier.
                let kids = tiers.child_tiers(t);
                for c in g.children(&p).unwrap() {
                    let (ct, _) = tiers.locate(&c);
                    assert!(
                        ct == t && tiers.moves_within(t) || kids.contains(&ct),
                        "{name}: {}",
                        g.format(&c).unwrap()
                    );
                }
                n += 1;
            }
        }
        assert!(n > 100, "{name}");
    }
}

/// Three Men's Morris, Kaooa, Teeko on a 4×4 board (tests/games/teeko_4x4.ron), Hexapawn,
/// Gobblet Gobblers `[3, 1]` (pieces that stack) and Fox and Geese on `Cross(5)` (one
/// capture a turn, and chains of them) solved by tiers into the array database (`solve --save`): the
/// start, every position of the oracle's samples read from the arrays, and `analyze`'s counts of the reachable positions by value
/// from the arrays, all as the Python solvers found them (the same counts as the plain
/// search's in the tests above); and all of it again once the small tiers are packed
/// (`db pack`).
#[test]
fn games_on_points_by_tiers_agree_with_their_oracles() {
    use gamesman::catalog::Catalog;
    let cases = [
        (
            "games/three-mens-morris.ron",
            "......... x",
            "points_three_mens_morris.jsonl",
            ("win", Some(9)),
            5_390,
            [2_997, 1_185, 0, 1_208],
        ),
        (
            "games/kaooa.ron",
            ".......... C 6 1",
            "points_kaooa.jsonl",
            ("draw", None),
            21_696,
            [2_195, 1_420, 0, 18_081],
        ),
        (
            "tests/games/teeko_4x4.ron",
            "..../..../..../.... b",
            "points_teeko_4x4.jsonl",
            ("draw", None),
            2_400_087,
            [506_518, 85_166, 0, 1_808_403],
        ),
        ("games/hexapawn.ron", "ooo/.../xxx x", "points_hexapawn_3x3.jsonl", ("lose", Some(6)), 135, [55, 80, 0, 0]),
        (
            "tests/games/fox_and_geese_5.ron",
            "GGG/G...G/...../..F../... G 0 0",
            "points_fox_and_geese_5.jsonl",
            ("draw", None),
            545_879,
            [42_735, 27_802, 0, 475_342],
        ),
        (
            GOBBLET_3_1,
            ".,.,./.,.,./.,.,. x",
            "gobblet_3_1.jsonl",
            ("win", Some(7)),
            1_203_965,
            [878_603, 308_474, 0, 16_888],
        ),
        (
            "tests/games/fox_and_geese_5_chain.ron",
            "GGG/G...G/...../..F../... G 0 0",
            "points_fox_and_geese_5_chain.jsonl",
            ("draw", None),
            575_993,
            [18_079, 5_450, 0, 552_464],
        ),
    ];
    for (file, start, data, (value, remoteness), positions, by_value) in cases {
        let name = file.rsplit('/').next().unwrap().trim_end_matches(".ron");
        let expect = (value.to_string(), remoteness, positions, by_value);
        let (dir, how) = saved_by_tiers_agrees(file, start, data, expect, &["--no-pack"]);
        let path = root().join(file);
        let path = path.to_str().unwrap();
        let db = dir.to_str().unwrap();
        let text = std::fs::read_to_string(root().join("tests/data").join(data)).unwrap();
        let sample = known(&text);
        // Packed (`db pack`), the small tiers answer the same from one file.
        let (code, out, err) = run_in(&["db", "pack", db], "");
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.starts_with("packed "), "{name}: {out}");
        let mut s = Catalog::new().open(path, &how).expect("the descriptor opens");
        let wrong = crate::common::disagreements_from_database(s.as_mut(), &sample);
        assert!(
            wrong.is_empty(),
            "{name}, packed: {} disagreements, e.g. {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(5)]
        );
        let (code, out, err) = run_in(&["analyze", path, start, "--db", db, "--json"], "");
        assert_eq!(code, 0, "{name}: {err}");
        let j: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(summary(&j), (value.to_string(), remoteness, positions, by_value), "{name}, packed: {j}");
        // A save without `--no-pack` packs its small tiers itself: the same pack, byte for byte.
        let again = crate::common::temp_dir(&format!("points-tiers-{name}-packed"));
        let (code, _, err) = run_in(&["solve", path, start, "--save", "--db", again.to_str().unwrap()], "");
        assert_eq!(code, 0, "{name}: {err}");
        assert!(err.contains("in tiers.pack"), "{name}: {err}");
        let pack = |d: &std::path::Path| std::fs::read(d.join("tiers.pack")).expect("a pack");
        assert_eq!(pack(&again), pack(&dir), "{name}");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&again);
    }
}

/// Teeko on a 4×4 board under `--max-memory 10`: its three tiers that a step stays in and
/// that pass the budget whole (1,801,800 indices, and 800,800 twice, at 32 bytes) are solved lean, 3
/// bytes an index (the game gives parents), and the save is the one solved whole, file for
/// file and byte for byte (that save agrees with the oracle, above).
#[test]
fn tiers_past_the_budget_are_solved_lean_to_the_same_files() {
    let save = |name: &str, budget: &str| {
        let dir = crate::common::temp_dir(&format!("points-lean-{name}"));
        let out = crate::common::bin()
            .args(["solve", "tests/games/teeko_4x4.ron", "--save", "--no-pack", "--db", dir.to_str().unwrap()])
            .args(["--max-memory", budget, "--threads", "2"])
            .env("GAMESMAN_TIER_PHASES", "1")
            .env_remove("GAMESMAN_TIER_SLICE")
            .output()
            .expect("gamesman runs");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{name}: {err}");
        let files = crate::common::files(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        (files, err.lines().filter(|l| l.contains("3 bytes each")).count())
    };
    let (whole, lean_tiers) = save("whole", "1024");
    assert_eq!(lean_tiers, 0);
    let (lean, lean_tiers) = save("lean", "10");
    assert_eq!(lean_tiers, 3);
    assert_eq!(lean, whole);
}

/// Gobblet Gobblers' rules with `sizes` pieces of each size a side, as a descriptor.
fn gobblet(sizes: &str) -> gamesman::descriptor::DescriptorGame {
    let src = format!(
        "(name: \"g\", rules: Stacks(board: Grid(rows: 3, cols: 3, diagonals: true), sizes: [{sizes}], line: 3))"
    );
    gamesman::descriptor::DescriptorGame::from_source("g.ron", &src, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Gobblet Gobblers with three small pieces and one large a side, as a file.
const GOBBLET_3_1: &str = "tests/games/gobblet_3_1.ron";

/// Gobblet Gobblers with three small pieces and one large a side, against
/// tests/oracles/gobblet.py (its own rules code and a plain retrograde analysis,
/// `tests/data/gobblet_3_1.jsonl`): from the empty board x wins in 7; 1,203,965 positions
/// reachable, 878,603 wins, 308,474 losses, 16,888 draws; and every 1000th reachable
/// position's value and remoteness, read from one solve of the whole game.
#[test]
fn gobblet_variant_agrees_with_its_oracle() {
    use gamesman::solve::{Analyzer, Options};
    let g = gobblet("3, 1");
    let mut a = Analyzer::new(g, Options { remoteness: true, ..Options::default() });
    let start = a.game().parse(".,.,./.,.,./.,.,. x").unwrap();
    let r = a.solve(&start).unwrap();
    assert_eq!((r.value, r.remoteness), (Value::Win, Some(7)));
    let text = std::fs::read_to_string(root().join("tests/data/gobblet_3_1.jsonl")).unwrap();
    let sample = known(&text);
    assert!(sample.len() > 1000);
    let mut wrong = Vec::new();
    for k in &sample {
        let p = a.game().parse(&k.position).unwrap();
        let r = a.solve(&p).unwrap();
        if (r.value, r.remoteness) != (k.value, k.remoteness) {
            wrong.push(format!(
                "{}: {:?} {:?}, oracle {:?} {:?}",
                k.position, r.value, r.remoteness, k.value, k.remoteness
            ));
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong[..wrong.len().min(20)].join("\n"));
    // The counts by value, from `analyze` (the descriptor written to a file).
    let (code, out, err) = run_in(&["analyze", GOBBLET_3_1, "--no-db", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(summary(&j), ("win".into(), Some(7), 1_203_965, [878_603, 308_474, 0, 16_888]), "{j}");
}

/// Wins and losses proved by depth-bounded searches alone, which `solve` falls back on where
/// a loopy game's reachable positions outgrow the memory budget: every won or lost position
/// of the Gobblet Gobblers `[3, 1]` and Fox and Geese `Cross(5)` samples, against the
/// retrograde analyses of tests/oracles/gobblet.py and fox_and_geese.py; then `solve` of the start under a budget too small for the full solver: x
/// wins in 7, and the moves listed are those to positions lost in 6 (among the winning
/// moves the full solver lists with an ample budget); `moves` of the full game names `--save`.
#[test]
fn depth_bounded_proofs_agree_with_the_oracle() {
    use gamesman::solve::quick::QuickSolver;
    let fox = gamesman::descriptor::DescriptorGame::load(&root().join("tests/games/fox_and_geese_5.ron")).unwrap();
    for (g, data, at_least) in [(gobblet("3, 1"), "gobblet_3_1.jsonl", 1000), (fox, "points_fox_and_geese_5.jsonl", 90)]
    {
        let g = std::rc::Rc::new(g);
        let text = std::fs::read_to_string(root().join("tests/data").join(data)).unwrap();
        let decided: Vec<_> =
            known(&text).into_iter().filter(|k| matches!(k.value, Value::Win | Value::Lose)).collect();
        assert!(decided.len() >= at_least, "{data}");
        let mut q = QuickSolver::new(g.clone(), 256 << 20, gamesman::progress::Progress::default());
        let mut wrong = Vec::new();
        for k in &decided {
            let p = g.parse(&k.position).unwrap();
            let got = q.prove(&p).unwrap();
            if got != Some((k.value, k.remoteness.unwrap())) {
                wrong.push(format!("{}: {got:?}, oracle {:?} {:?}", k.position, k.value, k.remoteness));
            }
        }
        assert!(wrong.is_empty(), "{data}: {} wrong:\n{}", wrong.len(), wrong[..wrong.len().min(20)].join("\n"));
    }

    // `scratch`: the most indices of tiers solved for one command (GAMESMAN_SCRATCH_INDICES).
    let solve = |budget: &str, scratch: &str| -> serde_json::Value {
        let out = crate::common::bin()
            .args(["solve", GOBBLET_3_1, "--no-db", "--json", "--max-memory", budget])
            .env("GAMESMAN_SCRATCH_INDICES", scratch)
            .output()
            .expect("gamesman runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap()
    };
    let moves = |j: &serde_json::Value, remoteness: Option<u64>| -> Vec<String> {
        let all = j["winning_moves"].as_array().unwrap().iter();
        let mut m: Vec<String> = all
            .filter(|m| remoteness.is_none_or(|r| m["remoteness"].as_u64() == Some(r)))
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect();
        m.sort();
        m
    };
    let tight = solve("16", "0");
    assert_eq!(
        (tight["source"].as_str(), tight["value"].as_str(), tight["remoteness"].as_u64()),
        (Some("bounded"), Some("win"), Some(7)),
        "{tight}"
    );
    let full = solve("1024", "0");
    assert_eq!(
        (full["source"].as_str(), full["value"].as_str(), full["remoteness"].as_u64()),
        (Some("search"), Some("win"), Some(7)),
        "{full}"
    );
    assert!(!moves(&tight, None).is_empty());
    assert_eq!(moves(&tight, None), moves(&full, Some(6)), "{tight}\n{full}");
    // With its tiers few enough to solve for one command (241,920 indices at most a tier),
    // the same budget solves them instead: every winning move.
    let by_tiers = solve("16", "1000000000");
    assert_eq!(
        (by_tiers["source"].as_str(), by_tiers["value"].as_str(), by_tiers["remoteness"].as_u64()),
        (Some("tiers"), Some("win"), Some(7)),
        "{by_tiers}"
    );
    assert_eq!(moves(&by_tiers, None), moves(&full, None), "{by_tiers}\n{full}");
    // `moves` of the full game answers every move, which the proofs (wins and losses only)
    // cannot: past the budget, with tiers too many for one command, it says how to save them.
    let out = crate::common::bin().args(["moves", "gobblet-gobblers", "--no-db"]).output().expect("gamesman runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("memory budget") && err.contains("`solve --save` of it"), "{err}");
}

/// The shipped Gobblet Gobblers: the start has 27 placements (3 sizes × 9 points) and is no
/// end; on random games, keys come back to their positions and list the game's own children,
/// and the ends are the game's.
#[test]
fn gobblet_gobblers_keys_agree_with_the_rules() {
    let g = descriptor("gobblet-gobblers");
    let start = ".,.,./.,.,./.,.,. x";
    let root = g.parse(start).unwrap();
    assert_eq!(g.moves(&root).unwrap().len(), 27);
    assert_eq!(g.primitive(&root).unwrap(), None);
    let keys = g.packed_play(&root).expect("keys");
    let mut n = 0;
    for seed in 1..=40u64 {
        for p in random_walk(&g, start, seed, 60) {
            let k = keys.pack(&p).unwrap();
            assert_eq!(keys.unpack(k), p);
            let mut on_keys = Vec::new();
            keys.children(k, &mut on_keys);
            let own: Vec<u128> = g.children(&p).unwrap().iter().map(|c| keys.pack(c).unwrap()).collect();
            assert_eq!(on_keys, own, "{}", g.format(&p).unwrap());
            assert_eq!(keys.primitive(k), g.primitive(&p).unwrap());
            assert_eq!(g.parse(&g.format(&p).unwrap()).unwrap(), p);
            n += 1;
        }
    }
    assert!(n > 100);
}

/// A broken stacking descriptor, and bad position text, each refused in words.
#[test]
fn gobblet_errors_are_clear() {
    let rules = |r: &str| format!("(name: \"t\", rules: Stacks({r}))");
    for (r, needle) in [
        ("board: Grid(rows: 3, cols: 3), sizes: [], line: 3", "`sizes` lists the pieces of each size"),
        ("board: Grid(rows: 3, cols: 3), sizes: [2, 0], line: 3", "0 pieces of a size"),
        ("board: Grid(rows: 3, cols: 3), sizes: [2, 2, 2, 2, 2], line: 3", "1 to 4 sizes"),
        ("board: Grid(rows: 3, cols: 3), sizes: [2], line: 4", "longest line has 3 points"),
        ("board: Grid(rows: 8, cols: 8), sizes: [1, 1], line: 3", "128 bits"),
        ("board: Grid(rows: 3, cols: 3), sizes: [2], line: 3, marks: \"xx\"", "two different letters"),
    ] {
        let e = descriptor_error("t.ron", &rules(r));
        assert!(e.contains(needle), "{r}: {e}");
    }
    let g = descriptor("gobblet-gobblers");
    for (text, needle) in [
        (".,.,. x", "the board has 9 points"),
        (".,.,./.,x3o1,./.,.,. x", "covers only smaller"),
        ("x3,x3,x3/.,.,./.,.,. o", "more than its 2"),
        (".,.,./.,.,./.,.,. x o", "a space and the side to move"),
    ] {
        let e = g.parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
}
