//! The solved-game database: saved values agree with a fresh search, commands read it, a
//! damaged or half-written file is never trusted, and a strategy tree checks out against rules
//! written here independently of the game scripts.

use crate::common;

use common::{bin, game, root, run_in, temp_dir};
use gamesman::game::{Game, Value};
use gamesman::solve::{Analyzer, Options};
use serde_json::Value as Json;
use std::path::Path;

fn run(args: &[&str]) -> (i32, String, String) {
    run_in(args, "")
}

fn json(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `analyze GAME POS --save --db PATH --json`: the report.
fn save(game: &str, pos: &str, db: &Path) -> Json {
    save_args(&[game, pos], db)
}

/// `analyze ARGS... --save --db PATH --json`: the report.
fn save_args(args: &[&str], db: &Path) -> Json {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--save", "--db", db.to_str().unwrap(), "--json"]);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("saved:"), "{err}");
    json(&out)
}

/// Every record of a database, as `export` prints it.
fn export(game: &str, db: &Path) -> Vec<Json> {
    export_args(&[game], db)
}

/// `export ARGS... --db PATH`: every record.
fn export_args(args: &[&str], db: &Path) -> Vec<Json> {
    let mut all = vec!["export"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--db", db.to_str().unwrap()]);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    out.lines().map(json).collect()
}

/// Each `step`-th stored record against a fresh search of the same position.
fn agrees_with_search<G: Game>(g: &G, rows: &[Json], step: usize) {
    let mut a = Analyzer::new(g, Options::default());
    for row in rows.iter().step_by(step) {
        let text = row["position"].as_str().unwrap();
        let pos = g.parse(text).unwrap();
        let (s, grundy) = a.value(&pos).unwrap();
        assert_eq!(row["value"], s.value.as_str(), "{text}");
        assert_eq!(row["remoteness"].as_u64(), s.remoteness.map(u64::from), "{text}");
        if let Some(stored) = row["grundy"].as_u64() {
            assert_eq!(Some(stored), grundy, "{text}");
        }
    }
}

#[test]
fn tic_tac_toe_saved_and_read_back() {
    let dir = temp_dir("db-ttt");
    let db = dir.join("ttt.redb");
    let r = save("tictactoe", ".........", &db);
    // The well-known census: 5,478 positions can arise in a game, 958 of them final (942 won,
    // 16 full-board ties), and the empty board is a tie.
    assert_eq!(r["positions"], 5478);
    assert_eq!(r["primitive"]["lose"], 942);
    assert_eq!(r["primitive"]["tie"], 16);
    assert_eq!(r["value"], "tie");
    let rows = export("tictactoe", &db);
    assert_eq!(rows.len(), 5478);
    agrees_with_search(&game("tictactoe"), &rows, 1);

    // solve, moves and analyze answer from it, and say so.
    let d = db.to_str().unwrap();
    let (code, out, _) = run(&["solve", "tictactoe", "xo.......", "--db", d, "--json"]);
    assert_eq!(code, 0);
    let s = json(&out);
    assert_eq!(s["source"], "database");
    assert_eq!(s["value"], "win");
    let moves: Vec<&str> = s["winning_moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()).collect();
    // X (top left) against O (top middle) wins by the centre, the middle left or the bottom left.
    assert_eq!(moves, ["1:0", "1:1", "2:0"]);
    let (_, out, _) = run(&["analyze", "tictactoe", "--db", d, "--json"]);
    let a = json(&out);
    assert_eq!(a["source"], "database");
    assert_eq!(a["positions"], 5478);
    // Without the database, the same question is searched.
    let (_, out, _) = run(&["solve", "tictactoe", "xo.......", "--no-db", "--json"]);
    assert_eq!(json(&out)["source"], "search");

    // A position the database does not hold is searched.
    let (code, out, _) = run(&["solve", "tictactoe", "x........", "--db", d, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(json(&out)["source"], "database");
    let (_, out, _) = run(&["solve", "tictactoe", "xo.xo.x..", "--db", d, "--json"]);
    assert_eq!(json(&out)["value"], "lose");

    // play reads it too: a perfect X against a perfect O from the start ends level.
    let (code, out, err) = run(&["play", "tictactoe", "--x", "perfect", "--o", "perfect", "--db", d]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("tie"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn connect3_cram_and_tactix_saved_and_checked() {
    let dir = temp_dir("db-games");
    // Connect-3 on 4×4 with gravity: the first player wins in 9 (its known solution).
    let c3 = dir.join("c3.redb");
    // The script (its native module saves by tiers, into arrays: see tests/connect4.rs).
    let r = save_args(&["connect4", "4x4k3", "--engine", "script"], &c3);
    assert_eq!((r["value"].as_str(), r["remoteness"].as_u64()), (Some("win"), Some(9)));
    let rows = export_args(&["connect4", "--engine", "script"], &c3);
    assert_eq!(rows.len() as u64, r["positions"].as_u64().unwrap());
    agrees_with_search(&game("connect4"), &rows, 13);

    // Cram 4×5: Grundy value 2 (known).
    let cram = dir.join("cram.redb");
    let r = save("cram", "#####/#####/#####/#####", &cram);
    assert_eq!(r["grundy"], 2);
    let rows = export("cram", &cram);
    agrees_with_search(&game("cram"), &rows, 17);

    // Full TacTix 4×4: every one of the 2^16 token sets is reachable (tokens go one at a
    // time), and an even × even rectangle has nimsum 0 (the mirror strategy).
    let tx = dir.join("tactix.redb");
    let r = save("tactix", "1111/1111/1111/1111", &tx);
    assert_eq!(r["positions"], 65536);
    assert_eq!(r["grundy"], 0);
    let rows = export("tactix", &tx);
    assert_eq!(rows.len(), 65536);
    agrees_with_search(&game("tactix"), &rows, 31);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_default_database_follows_the_definition() {
    let dir = temp_dir("db-default");
    let cache = dir.join("cache");
    let games = dir.join("games");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::copy(root().join("games/tictactoe.rhai"), games.join("t.rhai")).unwrap();
    let t = games.join("t.rhai");
    let t = t.to_str().unwrap();
    let with_cache = |args: &[&str]| {
        let out = bin().args(args).env("XDG_CACHE_HOME", &cache).output().unwrap();
        (out.status.code().unwrap(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, _) = with_cache(&["solve", t, "--save"]);
    assert_eq!(code, 0);
    let (_, out) = with_cache(&["solve", t, "--json"]);
    assert_eq!(json(&out)["source"], "database");
    let (_, out) = with_cache(&["db", "list"]);
    assert!(out.contains("5478"), "{out}");
    // An edited script never reads the old results.
    let mut src = std::fs::read_to_string(t).unwrap();
    src.push_str("\n// edited\n");
    std::fs::write(t, src).unwrap();
    let (_, out) = with_cache(&["solve", t, "--json"]);
    assert_eq!(json(&out)["source"], "search");
    // Nor does the misère game.
    let (code, out) = with_cache(&["solve", "nim", "3,5", "--save", "--json"]);
    assert_eq!((code, json(&out)["source"].as_str()), (0, Some("database")));
    let (_, out) = with_cache(&["solve", "nim", "3,5", "--misere", "--json"]);
    assert_eq!(json(&out)["source"], "search");
    let (code, out) = with_cache(&["db", "rm", "--all"]);
    assert_eq!(code, 0);
    assert_eq!(out.matches("removed").count(), 2, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Flip every byte of the first place `needle` is stored.
fn corrupt(path: &Path, needle: &[u8]) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = bytes.windows(needle.len()).position(|w| w == needle).expect("the key is stored");
    for b in &mut bytes[at..at + needle.len()] {
        *b ^= 0xff;
    }
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_damaged_or_truncated_database_is_refused() {
    let dir = temp_dir("db-damaged");
    let good = dir.join("good.redb");
    save("tictactoe", ".........", &good);
    let bad = dir.join("bad.redb");
    let refused = |what: &str| {
        let (code, out, err) = run(&["solve", "tictactoe", "xo.......", "--db", bad.to_str().unwrap()]);
        assert_eq!(code, 1, "{what}: {out}{err}");
        assert!(err.contains("the database is damaged") && err.contains("bad.redb"), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
    };
    // A stored position's bytes changed.
    std::fs::copy(&good, &bad).unwrap();
    corrupt(&bad, b"xo.x.....");
    refused("a changed key");
    // Cut in half.
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    refused("truncated");
    // Not a database at all, and an empty file.
    std::fs::write(&bad, "position,value\n").unwrap();
    refused("text");
    std::fs::write(&bad, "").unwrap();
    refused("empty");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_killed_save_leaves_the_database_whole_or_absent() {
    let dir = temp_dir("db-killed");
    let db = dir.join("cram.redb");
    let d = db.to_str().unwrap();
    // How long a whole save takes on this machine now (it may be busy), on another file.
    let started = std::time::Instant::now();
    save("cram.ron", "#####/#####/#####/#####", &dir.join("timed.redb"));
    let full = started.elapsed().as_millis() as u64;
    std::fs::remove_file(dir.join("timed.redb")).unwrap();
    // Kill the save at many moments: during the solve, during the write, after it (the last
    // delay is three times the whole save).
    let (mut whole, mut absent) = (0, 0);
    let delays = (0..=24).map(|i| full * i / 16).chain([3 * full]);
    for delay_ms in delays {
        let mut child = bin()
            .args(["analyze", "cram.ron", "#####/#####/#####/#####", "--save", "--db", d])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        if db.exists() {
            let (code, out, err) = run(&["db", "info", d]);
            assert_eq!(code, 0, "killed after {delay_ms} ms: {err}");
            assert!(out.contains("positions:   58830"), "killed after {delay_ms} ms: {out}");
            whole += 1;
        } else {
            absent += 1;
        }
    }
    // Some kills came before the first save was done, and some saves finished.
    assert!(whole > 0 && absent > 0, "{whole} whole, {absent} absent: the delays miss the save");
    // A save that finishes clears what the killed ones left.
    save("cram.ron", "#####/#####/#####/#####", &db);
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("cram.redb")]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_as_csv_quotes_what_needs_quoting() {
    let (code, out, err) = run(&["export", "nim", "1,2", "--format", "csv", "--no-db"]);
    assert_eq!(code, 0, "{err}");
    let mut r = csv::Reader::from_reader(out.as_bytes());
    assert_eq!(r.headers().unwrap(), vec!["position", "value", "remoteness", "grundy"]);
    let rows: Vec<csv::StringRecord> = r.records().map(|r| r.unwrap()).collect();
    // Heaps 1,2 reach 1,2 / 2 / 1,1 / 1 / 0,2 ... as the script writes them; the root is first.
    assert_eq!(&rows[0][0], "1,2");
    // Nim: the Grundy value is the XOR of the heaps.
    for row in &rows {
        let x = row[0].split(',').filter(|h| !h.is_empty()).map(|h| h.parse::<u64>().unwrap()).fold(0, |a, b| a ^ b);
        assert_eq!(row[3].parse::<u64>().unwrap(), x, "{row:?}");
        assert_eq!(&row[1], if x == 0 { "lose" } else { "win" });
    }
}

// ---- An independent tic-tac-toe: rules written here, not taken from the script. ----

const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

fn won(b: &[u8], p: u8) -> bool {
    LINES.iter().any(|l| l.iter().all(|&i| b[i] == p))
}

fn mover(b: &[u8]) -> u8 {
    let xs = b.iter().filter(|&&c| c == b'x').count();
    let os = b.iter().filter(|&&c| c == b'o').count();
    if xs == os { b'x' } else { b'o' }
}

/// Check a strategy node: the winner's one move is legal and leads where it says, every legal
/// reply of the loser is answered, and every leaf is a line of the winner's. Returns the
/// winner's mark.
fn check(node: &Json, winner: Option<u8>) -> u8 {
    let b = node["position"].as_str().unwrap().as_bytes().to_vec();
    let to_move = mover(&b);
    let winner_turn = node["to_move"] == "winner";
    let winner = winner.unwrap_or(if winner_turn { to_move } else { if to_move == b'x' { b'o' } else { b'x' } });
    assert_eq!(winner_turn, to_move == winner, "{node}");
    let moves = node["moves"].as_array().unwrap();
    // Met again: its strategy is where it is expanded (`check_tree` sees that it is).
    if node["again"] == true {
        assert!(moves.is_empty(), "{node}");
        return winner;
    }
    if moves.is_empty() {
        assert!(won(&b, winner), "a leaf the winner has not won: {}", node["position"]);
        return winner;
    }
    assert!(!won(&b, b'x') && !won(&b, b'o'), "play goes on after a line: {}", node["position"]);
    let legal: Vec<usize> = (0..9).filter(|&i| b[i] == b'.').collect();
    if winner_turn {
        assert_eq!(moves.len(), 1, "the winner plays one move");
    } else {
        assert_eq!(moves.len(), legal.len(), "every reply of the loser at {}", node["position"]);
    }
    let mut seen = Vec::new();
    for m in moves {
        let name = m["move"].as_str().unwrap();
        let (r, c) = name.split_once(':').unwrap();
        let i = r.parse::<usize>().unwrap() * 3 + c.parse::<usize>().unwrap();
        assert!(legal.contains(&i) && !seen.contains(&i), "{name} at {}", node["position"]);
        seen.push(i);
        let mut after = b.clone();
        after[i] = to_move;
        assert_eq!(m["next"]["position"].as_str().unwrap().as_bytes(), after.as_slice());
        check(&m["next"], Some(winner));
    }
    winner
}

#[test]
fn strategy_trees_check_out() {
    // X to move and win; then O to move and lose (every O reply must be answered).
    for pos in ["xo.......", "xo.x....."] {
        let (code, out, err) = run(&["strategy", "tictactoe", pos, "--json"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(check(&json(&out), None), b'x');
        check_tree(&TicTacToe, &json(&out), false);
    }
    // The same tree from a database.
    let dir = temp_dir("db-strategy");
    let db = dir.join("ttt.redb");
    save("tictactoe", ".........", &db);
    let (_, searched, _) = run(&["strategy", "tictactoe", "xo.......", "--json"]);
    let (_, saved, _) = run(&["strategy", "tictactoe", "xo.......", "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(searched, saved);
    // The text form names the players.
    let (_, text, _) = run(&["strategy", "tictactoe", "xo......."]);
    assert!(text.starts_with("X wins from xo....... in at most"), "{text}");
    // A finished game has no tree: X has three in a row (by the rules), Chomp's lone poisoned
    // square is a loss for the player to move (the Chomp assignment).
    let (code, text, _) = run(&["strategy", "tictactoe", "xxxoo...."]);
    assert_eq!((code, text.as_str()), (0, "The game is over at xxxoo....: X has won.\n"));
    let (_, text, _) = run(&["strategy", "chomp", "1"]);
    assert_eq!(text, "The game is over at 1: the player to move has lost.\n");
    // Nobody wins from the empty board.
    let (code, _, err) = run(&["strategy", "tictactoe"]);
    assert_eq!(code, 1);
    assert!(err.contains("no player can force a win") && err.contains("tie"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_strategy_of_a_solved_value_is_consistent_with_it() {
    // The remoteness of the tree's root is the stored one.
    let g = game("tictactoe");
    let pos = g.parse("xo.......").unwrap();
    let (s, _) = Analyzer::new(&g, Options::default()).value(&pos).unwrap();
    assert_eq!(s.value, Value::Win);
    let (_, out, _) = run(&["strategy", "tictactoe", "xo.......", "--json"]);
    assert_eq!(json(&out)["remoteness"].as_u64(), s.remoteness.map(u64::from));
}

// ---- Strategy trees of any game, checked against rules written here. ----

/// How a finished game ended, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    MoverWins,
    MoverLoses,
}

/// A game's rules, written in the test: the legal moves (name, position after) and the end.
trait Rules {
    fn moves(&self, pos: &str) -> Vec<(String, String)>;
    fn end(&self, pos: &str) -> Option<End>;
}

/// Check a strategy tree (`strategy --json`) against `rules`: at each position of the
/// strategy's player (the winner; in a `draw` tree, the player drawing) one legal move, at
/// each of the other's every legal move, each leading where it says; every end the tree
/// reaches a loss for the other player; a position marked `again` expanded elsewhere with the
/// same player to move. A win must come: the positions of a won tree, joined where they meet
/// again, have no cycle (each move brings the end nearer). A draw may go round for ever, but
/// never to a loss of the player drawing.
fn check_tree(rules: &dyn Rules, root: &Json, draw: bool) {
    let (me, other) = if draw { ("player", "opponent") } else { ("winner", "loser") };
    let key = |n: &Json| (n["position"].as_str().unwrap().to_string(), n["to_move"].as_str().unwrap().to_string());
    let mut expanded: std::collections::HashMap<(String, String), Vec<(String, String)>> = Default::default();
    let mut again = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let (pos, role) = key(n);
        assert!(role == me || role == other, "{role} in a {me}'s tree");
        let moves = n["moves"].as_array().unwrap();
        if n["again"] == true {
            assert!(moves.is_empty(), "a position met again is a leaf: {pos}");
            again.push((pos, role));
            continue;
        }
        if let Some(end) = rules.end(&pos) {
            assert!(moves.is_empty(), "play goes on after the end at {pos}");
            let lost_by_other = (end == End::MoverLoses) == (role == other);
            assert!(lost_by_other, "the {me} does not win at the end {pos} ({end:?}, {role} to move)");
            expanded.insert((pos, role), Vec::new());
            continue;
        }
        let legal = rules.moves(&pos);
        assert!(!legal.is_empty() && !moves.is_empty(), "a leaf that is not an end: {pos}");
        if role == me {
            assert_eq!(moves.len(), 1, "the {me} plays one move at {pos}");
        } else {
            assert_eq!(moves.len(), legal.len(), "every reply of the {other} at {pos}");
        }
        let mut next_keys = Vec::new();
        for m in moves {
            let name = m["move"].as_str().unwrap();
            let after = legal.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} is not legal at {pos}"));
            assert!(!next_keys.iter().any(|(p, _): &(String, String)| p == &after.1), "{name} twice at {pos}");
            let next = &m["next"];
            assert_eq!(next["position"].as_str().unwrap(), after.1, "{name} at {pos}");
            assert_ne!(next["to_move"].as_str().unwrap(), role, "{name} at {pos}: the turn passes");
            next_keys.push(key(next));
            stack.push(next);
        }
        assert!(expanded.insert((pos.clone(), role.clone()), next_keys).is_none(), "{pos} expanded twice");
    }
    for k in &again {
        assert!(expanded.contains_key(k), "{k:?} is marked again but expanded nowhere");
    }
    if !draw {
        // No cycle: peel off the positions whose children are all peeled (Kahn's order).
        let mut left: std::collections::HashMap<_, usize> =
            expanded.iter().map(|(k, c)| (k.clone(), c.len())).collect();
        let mut parents: std::collections::HashMap<(String, String), Vec<(String, String)>> = Default::default();
        for (k, children) in &expanded {
            for c in children {
                parents.entry(c.clone()).or_default().push(k.clone());
            }
        }
        let mut ready: Vec<_> = left.iter().filter(|(_, n)| **n == 0).map(|(k, _)| k.clone()).collect();
        let mut peeled = 0;
        while let Some(k) = ready.pop() {
            peeled += 1;
            for p in parents.get(&k).into_iter().flatten() {
                let n = left.get_mut(p).unwrap();
                *n -= 1;
                if *n == 0 {
                    ready.push(p.clone());
                }
            }
        }
        assert_eq!(peeled, expanded.len(), "a won tree goes round a cycle");
    }
}

struct TicTacToe;

impl Rules for TicTacToe {
    fn moves(&self, pos: &str) -> Vec<(String, String)> {
        let b = pos.as_bytes();
        let p = mover(b);
        (0..9)
            .filter(|&i| b[i] == b'.')
            .map(|i| {
                let mut a = b.to_vec();
                a[i] = p;
                (format!("{}:{}", i / 3, i % 3), String::from_utf8(a).unwrap())
            })
            .collect()
    }
    fn end(&self, pos: &str) -> Option<End> {
        let b = pos.as_bytes();
        // The one who made a line moved last.
        (won(b, b'x') || won(b, b'o')).then_some(End::MoverLoses)
    }
}

/// Dodgem on 3×3 as Winning Ways describes it (Berlekamp, Conway and Guy, ch. 22): X's cars
/// move east, north or south, O's north, east or west, to an empty cell, or forward (X east,
/// O north) off the board; a player whose cars have all left has won, and so has a player to
/// move who has no move. Position: rows top to bottom joined by `/`, ` o` when O is to move.
/// Moves: `r:c-r:c`, or `r:c-off`.
struct Dodgem;

impl Dodgem {
    fn parse(pos: &str) -> (Vec<Vec<u8>>, u8) {
        let (board, mover) = match pos.strip_suffix(" o") {
            Some(b) => (b, b'o'),
            None => (pos, b'x'),
        };
        (board.split('/').map(|r| r.as_bytes().to_vec()).collect(), mover)
    }
}

impl Rules for Dodgem {
    fn moves(&self, pos: &str) -> Vec<(String, String)> {
        let (b, p) = Self::parse(pos);
        let dirs: [(i32, i32); 3] = if p == b'x' { [(0, 1), (-1, 0), (1, 0)] } else { [(-1, 0), (0, 1), (0, -1)] };
        let forward = dirs[0];
        let mut out = Vec::new();
        for r in 0..3i32 {
            for c in 0..3i32 {
                if b[r as usize][c as usize] != p {
                    continue;
                }
                for d in dirs {
                    let (nr, nc) = (r + d.0, c + d.1);
                    let inside = (0..3).contains(&nr) && (0..3).contains(&nc);
                    let mut a = b.clone();
                    a[r as usize][c as usize] = b'.';
                    let name = if inside {
                        if b[nr as usize][nc as usize] != b'.' {
                            continue;
                        }
                        a[nr as usize][nc as usize] = p;
                        format!("{r}:{c}-{nr}:{nc}")
                    } else if d == forward {
                        format!("{r}:{c}-off")
                    } else {
                        continue;
                    };
                    let rows: Vec<String> = a.iter().map(|row| String::from_utf8(row.clone()).unwrap()).collect();
                    let after = rows.join("/") + if p == b'x' { " o" } else { "" };
                    out.push((name, after));
                }
            }
        }
        out
    }
    fn end(&self, pos: &str) -> Option<End> {
        let (b, p) = Self::parse(pos);
        let cars = |who: u8| b.iter().flatten().filter(|&&c| c == who).count();
        let q = if p == b'x' { b'o' } else { b'x' };
        if cars(q) == 0 {
            Some(End::MoverLoses)
        } else if cars(p) == 0 || self.moves(pos).is_empty() {
            Some(End::MoverWins)
        } else {
            None
        }
    }
}

/// Three Men's Morris as tests/games/three_mens_morris.rhai states it: 3×3 points, lines the
/// rows, columns and diagonals; a player with fewer than 3 men on the board places one on an
/// empty point (`r:c`), else slides one to an adjacent empty point (`r:c-r:c`: orthogonal, or
/// between the centre and a corner); three in a line has won, no move has lost. Position: the
/// 9 points, a space, the side to move.
struct Morris;

impl Morris {
    const LINES: [[usize; 3]; 8] =
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

    fn adjacent(i: usize, j: usize) -> bool {
        let (r, c, s, t) = ((i / 3) as i32, (i % 3) as i32, (j / 3) as i32, (j % 3) as i32);
        let orthogonal = (r - s).abs() + (c - t).abs() == 1;
        let corner = |k: usize| [0, 2, 6, 8].contains(&k);
        orthogonal || (i == 4 && corner(j)) || (j == 4 && corner(i))
    }

    fn line(b: &[u8], p: u8) -> bool {
        Self::LINES.iter().any(|l| l.iter().all(|&i| b[i] == p))
    }
}

impl Rules for Morris {
    fn moves(&self, pos: &str) -> Vec<(String, String)> {
        let (b, p) = pos.split_once(' ').unwrap();
        let (b, p) = (b.as_bytes(), p.as_bytes()[0]);
        let q = if p == b'x' { "o" } else { "x" };
        let name = |i: usize| format!("{}:{}", i / 3, i % 3);
        let after = |from: Option<usize>, to: usize| {
            let mut a = b.to_vec();
            if let Some(f) = from {
                a[f] = b'.';
            }
            a[to] = p;
            format!("{} {q}", String::from_utf8(a).unwrap())
        };
        let empty: Vec<usize> = (0..9).filter(|&i| b[i] == b'.').collect();
        if b.iter().filter(|&&c| c == p).count() < 3 {
            return empty.iter().map(|&i| (name(i), after(None, i))).collect();
        }
        let mut out = Vec::new();
        for i in (0..9).filter(|&i| b[i] == p) {
            for &j in empty.iter().filter(|&&j| Self::adjacent(i, j)) {
                out.push((format!("{}-{}", name(i), name(j)), after(Some(i), j)));
            }
        }
        out
    }
    fn end(&self, pos: &str) -> Option<End> {
        let (b, p) = pos.split_once(' ').unwrap();
        let q = if p == "x" { b'o' } else { b'x' };
        (Self::line(b.as_bytes(), q) || self.moves(pos).is_empty()).then_some(End::MoverLoses)
    }
}

/// Nim under misère play: a move takes one or more from one heap; whoever takes the last
/// one loses, so the player to move at all heaps empty has won. Moves: `take K from heap H`
/// (H from 1), heaps joined by `,`.
struct MisereNim;

impl Rules for MisereNim {
    fn moves(&self, pos: &str) -> Vec<(String, String)> {
        let heaps: Vec<u64> = pos.split(',').map(|h| h.parse().unwrap()).collect();
        let mut out = Vec::new();
        for (h, &n) in heaps.iter().enumerate() {
            for k in 1..=n {
                let mut a = heaps.clone();
                a[h] -= k;
                let text: Vec<String> = a.iter().map(u64::to_string).collect();
                out.push((format!("take {k} from heap {}", h + 1), text.join(",")));
            }
        }
        out
    }
    fn end(&self, pos: &str) -> Option<End> {
        pos.split(',').all(|h| h == "0").then_some(End::MoverWins)
    }
}

/// The graph of tests/games/loopy_chase.rhai, copied here: 0 is a loss for the player to move.
struct Chase;

const CHASE: [&[u32]; 7] = [&[], &[0, 5], &[0], &[1, 2], &[5, 3], &[6], &[5, 1]];

impl Rules for Chase {
    fn moves(&self, pos: &str) -> Vec<(String, String)> {
        CHASE[pos.parse::<usize>().unwrap()].iter().map(|q| (q.to_string(), q.to_string())).collect()
    }
    fn end(&self, pos: &str) -> Option<End> {
        (pos == "0").then_some(End::MoverLoses)
    }
}

/// Every node of a tree, depth first.
fn nodes(root: &Json) -> Vec<&Json> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        out.push(n);
        stack.extend(n["moves"].as_array().unwrap().iter().map(|m| &m["next"]));
    }
    out
}

#[test]
fn strategies_of_loopy_and_misere_games_check_out() {
    let tree = |args: &[&str]| {
        let mut all = vec!["strategy"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--json", "--no-db"]);
        let (code, out, err) = run(&all);
        assert_eq!(code, 0, "{args:?}: {err}");
        json(&out)
    };
    // Dodgem: the first player wins on 3×3 (Winning Ways, ch. 22). A player with no move has
    // won there, and sideways moves make it loopy.
    let t = tree(&["dodgem"]);
    assert_eq!((t["position"].as_str(), t["to_move"].as_str()), (Some("x../x../.oo"), Some("winner")));
    check_tree(&Dodgem, &t, false);
    // Misère Nim 1,1,1: three single counters, whoever takes the last loses; the player to
    // move takes one, the other one, and the player to move takes the last (by hand): lost.
    let t = tree(&["nim", "1,1,1", "--misere"]);
    assert_eq!((t["to_move"].as_str(), t["remoteness"].as_u64()), (Some("loser"), Some(3)));
    check_tree(&MisereNim, &t, false);
    // The loopy script: from 4 a win in 3 (by hand, see the script), though its first move
    // leads to a draw.
    let t = tree(&["tests/games/loopy_chase.rhai", "4"]);
    assert_eq!((t["to_move"].as_str(), t["remoteness"].as_u64()), (Some("winner"), Some(3)));
    check_tree(&Chase, &t, false);
    // From 5, a draw: the drawing strategy goes round 5 -> 6 -> 5, and where the other
    // leaves the cycle (6 -> 1) it wins (1 -> 0).
    for (pos, leaves_to) in [("5", "1"), ("6", "5")] {
        let t = tree(&["tests/games/loopy_chase.rhai", pos]);
        assert_eq!((t["to_move"].as_str(), t["value"].as_str()), (Some("player"), Some("draw")));
        check_tree(&Chase, &t, true);
        let all = nodes(&t);
        assert!(all.iter().any(|n| n["again"] == true), "the cycle is not closed: {t}");
        assert!(all.iter().any(|n| n["position"] == leaves_to), "{t}");
    }
    // Three Men's Morris (loopy: men slide back and forth): from `xoo..x... x` x wins in 3,
    // as tests/oracles/three_mens_morris.py computes (x places its third man, o its third, and
    // a slide of x's makes a line); a draw from `xox.o.o.x x`, and a loss
    // in 4 from `xxo.o.... x` (the same oracle).
    let morris = "tests/games/three_mens_morris.rhai";
    let t = tree(&[morris, "xoo..x... x"]);
    assert_eq!(
        (t["to_move"].as_str(), t["value"].as_str(), t["remoteness"].as_u64()),
        (Some("winner"), Some("win"), Some(3)),
        "{t}"
    );
    check_tree(&Morris, &t, false);
    let t = tree(&[morris, "xxo.o.... x"]);
    assert_eq!((t["to_move"].as_str(), t["remoteness"].as_u64()), (Some("loser"), Some(4)), "{t}");
    check_tree(&Morris, &t, false);
    // (A drawing strategy's tree nests deeper than the JSON reader follows: the value alone.)
    let (code, out, err) = run(&["solve", morris, "xox.o.o.x x", "--json", "--no-db"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["value"], "draw", "{out}");
    let (code, text, err) = run(&["strategy", "tests/games/loopy_chase.rhai", "5", "--no-db"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.starts_with("Neither player can force a win from 5"), "{text}");
    assert!(text.contains("(again)"), "{text}");
}

/// A game with tiers saves arrays in a `.tiers` directory: `db list`, `db info` and `db rm`
/// see it as they see a redb file, `db rm --all` removes it, and the save counts the
/// positions reachable from the start, not the tiers' index slots (tic-tac-toe: 5,478
/// reachable positions, the published count).
#[test]
fn tier_saves_are_listed_shown_and_removed() {
    let dir = temp_dir("db-tiers");
    let cache = dir.join("cache");
    let with_cache = |args: &[&str]| {
        let out = bin().args(args).env("XDG_CACHE_HOME", &cache).output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let ttt = "games/tictactoe.ron";
    let (code, _, err) = with_cache(&["solve", ttt, "--save"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("saved: 5478 positions reachable from the root"), "{err}");
    let saves = || -> Vec<String> {
        std::fs::read_dir(cache.join("gamesman"))
            .map(|d| d.filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned())).collect())
            .unwrap_or_default()
    };
    assert!(saves().iter().any(|n| n.ends_with(".tiers")), "{:?}", saves());
    let (code, out, _) = with_cache(&["db", "list"]);
    assert_eq!(code, 0);
    let line = out.lines().find(|l| l.contains(".tiers")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("tictactoe") && line.contains(" 5478 positions"), "{out}");
    let (code, out, err) = with_cache(&["db", "info", ttt]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("positions:   5478"), "{out}");
    assert!(out.contains("game:        tictactoe"), "{out}");
    // One redb database beside it; `db rm GAME` removes the tier save alone.
    let (code, _, err) = with_cache(&["solve", "nim", "3,5", "--save"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = with_cache(&["db", "rm", ttt]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("removed").count(), 1, "{out}");
    assert!(!saves().iter().any(|n| n.ends_with(".tiers")), "{:?}", saves());
    let (code, _, _) = with_cache(&["db", "info", ttt]);
    assert_ne!(code, 0);
    // `rm --all` takes both kinds.
    let (code, _, err) = with_cache(&["solve", ttt, "--save"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = with_cache(&["db", "rm", "--all"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("removed").count(), 2, "{out}");
    assert!(saves().is_empty(), "{:?}", saves());
    let _ = std::fs::remove_dir_all(&dir);
}
