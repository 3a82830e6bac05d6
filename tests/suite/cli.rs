//! The command line: output formats and errors.

use crate::common;
use common::*;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().expect("run gamesman");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn solve_by_name_and_by_path_agree() {
    let (code, a, _) = run(&["solve", "chomp", "4432", "--json"]);
    assert_eq!(code, 0);
    let (_, b, _) = run(&["solve", "games/chomp.rhai", "4432", "--json"]);
    let (a, b): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&a).unwrap(), serde_json::from_str(&b).unwrap());
    assert_eq!(a["value"], "win");
    assert_eq!(a["winning_moves"][0]["position"], "4111"); // the Chomp assignment's example
    assert_eq!(a["engine"], "native"); // chomp.rhai names the native module
    for key in ["game", "position", "value", "remoteness", "grundy", "winning_moves"] {
        assert_eq!(a[key], b[key], "{key}");
    }
}

#[test]
fn json_has_the_documented_fields() {
    let (code, out, _) = run(&["solve", "nim", "1,1", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["game"], "nim");
    assert_eq!(v["position"], "1,1");
    assert_eq!(v["value"], "lose");
    assert_eq!(v["remoteness"], 2);
    assert_eq!(v["grundy"], 0);
    assert_eq!(v["winning_moves"], serde_json::json!([]));
    // Misère: no Grundy value.
    let (_, out, _) = run(&["solve", "nim", "1,1", "--json", "--misere"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"], "win");
    assert!(v["grundy"].is_null());
}

#[test]
fn position_from_a_file_and_from_stdin() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("gamesman-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let board = dir.join("board.pbm");
    std::fs::write(&board, "P1\n# a 2×2 square: the second player mirrors\n2 2\n1 1\n1 1\n").unwrap();
    let (code, out, _) = run(&["solve", "tactix", board.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["grundy"], 0);

    let mut child = bin()
        .args(["solve", "nimrod", "-", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"3,5\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], "lose"); // (3,5) is a losing Wythoff pair
}

#[test]
fn moves_lists_every_move() {
    let (code, out, _) = run(&["moves", "nim", "1,2", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let moves = v.as_array().unwrap();
    assert_eq!(moves.len(), 3); // 1 from the first heap, 1 or 2 from the second
    // Taking 1 from the 2-heap leaves 1,1: a loss for the opponent.
    let good: Vec<_> = moves.iter().filter(|m| m["value"] == "lose").map(|m| m["position"].as_str().unwrap()).collect();
    assert_eq!(good, ["1,1"]);
}

#[test]
fn games_lists_the_shipped_games() {
    let (code, out, _) = run(&["games"]);
    assert_eq!(code, 0);
    for g in ["nim", "nimrod", "chomp", "tactix", "lightsout", "tictactoe", "kayles"] {
        assert!(out.contains(g), "{g} missing from\n{out}");
    }
}

/// An error is one clear line on stderr, exit status 1, and never a panic.
fn fails_with(args: &[&str], needle: &str) {
    let (code, out, err) = run(args);
    assert_eq!(code, 1, "{args:?}: stdout {out}\nstderr {err}");
    assert!(err.contains(needle), "{args:?}: expected {needle:?} in\n{err}");
    assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line:\n{err}");
}

#[test]
fn bad_input_gives_one_clear_line() {
    fails_with(&["solve", "no-such-game"], "no game named \"no-such-game\"");
    fails_with(&["solve", "missing/dir/x.rhai"], "missing/dir/x.rhai: no such file");
    fails_with(&["solve", "nim", "3,x"], "invalid position: \"x\" is not a heap size");
    fails_with(&["solve", "nim", "-3"], "invalid position");
    fails_with(&["solve", "chomp", "3432"], "must not increase");
    fails_with(&["solve", "nimrod", "1,2,3"], "Nimrod has two piles");
    fails_with(&["solve", "tictactoe", "xxx......"], "X moves first");
    fails_with(&["solve", "tactix", "P1 2 2 1 1 1"], "ends after 3 of its 4 pixels");
    fails_with(&["solve", "lightsout", "--misere", "#0"], "puzzle");
}

#[test]
fn script_errors_name_file_line_and_column() {
    fails_with(&["solve", "tests/games/broken_syntax.rhai", "3"], "tests/games/broken_syntax.rhai:4:");
    fails_with(
        &["solve", "tests/games/broken_runtime.rhai", "3"],
        "tests/games/broken_runtime.rhai:5:14: Function not found: no_such_helper",
    );
    // The sandbox's limits strike without a position from Rhai; gamesman finds the line.
    fails_with(&["solve", "tests/games/forever.rhai", "3"], "tests/games/forever.rhai:3:15: the script used more than");
    fails_with(
        &["solve", "tests/games/hog.rhai", "3"],
        "tests/games/hog.rhai:4:37: the script made more than 256 MiB of data in one call",
    );
    fails_with(&["solve", "tests/games/no_moves_fn.rhai", "3"], "missing the required function `fn moves(pos)`");
    fails_with(
        &["solve", "tests/games/float_position.rhai", "3"],
        "returned a value of type `f64`, but a position must be built from",
    );
    fails_with(&["solve", "tests/games/countdown.rhai"], "has no start position");
}

/// A build without the feature `mpi` says so for `--mpi`, and fails (docs/mpi.md).
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_without_the_feature_is_a_clear_error() {
    let (code, out, err) = run(&["solve", "quixo", "3x3", "--save", "--mpi"]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("this gamesman was built without MPI") && err.contains("--features mpi"), "{err}");
}

/// `solve --no-moves` gives the same value, remoteness and Grundy value as `solve`, each
/// known independently, and no moves (JSON `winning_moves` null, with a note; the text says
/// so too).
#[test]
fn no_moves_gives_the_value_alone() {
    // (arguments, value, remoteness, Grundy value), each known without gamesman:
    let cases: [(&[&str], &str, serde_json::Value, serde_json::Value); 6] = [
        // Cram 4×5: nimber 2 (the published table: Glop; Schneider 2009).
        (&["solve", "games/cram.ron", "4x5", "--no-remoteness", "--no-db"], "win", serde_json::Value::Null, 2.into()),
        // Cram 5×6: nimber 2 (published).
        (&["solve", "games/cram.ron", "5x6", "--no-remoteness", "--no-db"], "win", serde_json::Value::Null, 2.into()),
        // Kayles 11: 6 (OEIS A002186).
        (&["solve", "kayles", "11", "--no-remoteness", "--no-db"], "win", serde_json::Value::Null, 6.into()),
        // Nim 3,5: 3 xor 5 = 6; the winner takes 2 from the 5, then the loser lasts 6 moves
        // at most (one token at a time, each copied on the other heap): 7.
        (&["solve", "nim", "3,5", "--no-db"], "win", 7.into(), 6.into()),
        // Tic-tac-toe: a tie in 9 moves.
        (&["solve", "tictactoe", "--no-db"], "tie", 9.into(), serde_json::Value::Null),
        // Hanoi, 6 discs: 2^6 - 1 = 63 moves.
        (&["solve", "hanoi", "--no-db"], "win", 63.into(), serde_json::Value::Null),
    ];
    for (args, value, remoteness, grundy) in cases {
        let json = |extra: &[&str]| {
            let all: Vec<&str> = args.iter().chain(extra).copied().collect();
            let (code, out, err) = run(&all);
            assert_eq!(code, 0, "{all:?}: {err}");
            serde_json::from_str::<serde_json::Value>(&out).unwrap()
        };
        let (with, without) = (json(&["--json"]), json(&["--json", "--no-moves"]));
        for v in [&with, &without] {
            assert_eq!(v["value"], value, "{args:?}");
            assert_eq!(v["remoteness"], remoteness, "{args:?}");
            assert_eq!(v["grundy"], grundy, "{args:?}");
        }
        assert!(with["winning_moves"].is_array(), "{args:?}");
        assert!(without["winning_moves"].is_null(), "{args:?}");
        assert_eq!(without["winning_moves_note"], "not asked for (--no-moves)");
    }
    // A sum: 3 xor 5 xor 6 (Kayles 11) = 0, a loss.
    let (code, out, _) = run(&["solve", "nim:3,5 + kayles:11", "--no-moves", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["value"].as_str(), v["grundy"].as_u64()), (Some("lose"), Some(0)));
    assert!(v["winning_moves"].is_null());
    // The text says why there are no moves.
    let (code, out, _) = run(&["solve", "games/cram.ron", "4x5", "--no-remoteness", "--no-moves", "--no-db"]);
    assert_eq!(code, 0);
    assert!(out.contains("grundy:      2"), "{out}");
    assert!(out.contains("winning moves: - (not asked for (--no-moves))"), "{out}");
    // `moves` lists every move: the flag is refused there, with a reason.
    let (code, _, err) = run(&["moves", "nim", "3", "--no-moves"]);
    assert_eq!(code, 1);
    assert!(err.contains("--no-moves is for `gamesman solve`"), "{err}");
}

/// `solve --endgame BOX`: the table of part nimbers built once (said on stderr), saved in the
/// cache, loaded by later runs (with the flag or without), and the published nimbers found
/// with it (Cram 4×5: 2, 4×7: 3, 5×6: 2; tests/boards.rs asserts them without a table).
/// Games without parts on keys, bounds the board cannot hold, and `--no-db` are refused
/// clearly; a damaged table is noted and built anew.
#[test]
fn endgame_database_of_parts() {
    let cache = std::env::temp_dir().join(format!("gamesman-endgame-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let with_cache = |args: &[&str]| {
        let out = bin().args(args).env("XDG_CACHE_HOME", &cache).output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code().unwrap(), text(&out.stdout), text(&out.stderr))
    };
    let (code, out, err) = with_cache(&["solve", "games/cram.ron", "4x7", "--no-remoteness", "--endgame", "4x5"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("grundy:      3"), "{out}");
    assert!(err.contains("building the endgame database of the parts within 4x5") && err.contains("saved"), "{err}");
    let files: Vec<_> = std::fs::read_dir(cache.join("gamesman")).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    // Loaded, not built: with the flag, and without it.
    for args in [
        &["solve", "games/cram.ron", "4x7", "--no-remoteness", "--endgame", "5x4"][..],
        &["solve", "games/cram.ron", "4x7", "--no-remoteness"],
    ] {
        let (code, out, err) = with_cache(args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("grundy:      3"), "{out}");
        assert!(!err.contains("building") && err.contains("is used"), "{err}");
    }
    let (code, out, _) =
        with_cache(&["solve", "games/cram.ron", "5x6", "--no-remoteness", "--no-moves", "--endgame", "5x4"]);
    assert_eq!(code, 0);
    assert!(out.contains("grundy:      2"), "{out}");
    // A damaged table: noted, built anew, the same answer.
    let path = files[0].path();
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let (code, out, err) = with_cache(&["solve", "games/cram.ron", "4x7", "--no-remoteness", "--endgame", "4x5"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("grundy:      3"), "{out}");
    assert!(err.contains("checksum") && err.contains("building"), "{err}");
    // Refusals.
    for (args, why) in [
        (&["solve", "nim", "3,4", "--no-remoteness", "--endgame", "2x2"][..], "no endgame database of parts"),
        (&["solve", "games/cram.ron", "4x7", "--no-remoteness", "--endgame", "3x5"], "shorter side"),
        (&["solve", "games/cram.ron", "6x7", "--no-remoteness", "--endgame", "6x7"], "at most 32 cells"),
        (&["solve", "games/cram.ron", "4x7", "--no-db", "--endgame", "4x5"], "--no-db"),
    ] {
        let (code, _, err) = with_cache(args);
        // An error line of ours (1), or clap's refusal of the two flags together (2).
        assert!(code == 1 || code == 2, "{args:?}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    // No cache directory to keep a table in: an error, not a search without it.
    let out = bin()
        .args(["solve", "games/cram.ron", "4x5", "--no-remoteness", "--endgame", "4x3"])
        .env_remove("XDG_CACHE_HOME")
        .env_remove("HOME")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("needs the cache directory"), "{err}");
    let _ = std::fs::remove_dir_all(&cache);
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `cram` is both cram.rhai (which reads boards of `#` and `.` only) and cram.ron (which
/// reads `5x6` too): the bare name takes the definition that reads the position. Cram 5×6's
/// Grundy value is 2 (the value tests/boards.rs asserts from independent sources).
#[test]
fn a_bare_name_takes_the_definition_that_reads_the_position() {
    let (code, out, err) = run(&["solve", "cram", "5x6", "--json", "--no-remoteness", "--no-db"]);
    assert_eq!(code, 0, "{err}");
    let j = json(&out);
    assert_eq!(
        (j["grundy"].clone(), j["value"].clone(), j["engine"].clone()),
        (2.into(), "win".into(), "descriptor".into())
    );
    // A position neither reads: the error names what each definition said.
    let (code, _, err) = run(&["solve", "cram", "5y6", "--no-db"]);
    assert_eq!(code, 1);
    assert!(err.contains("cram.rhai") && err.contains("cram.ron") && err.lines().count() == 1, "{err}");
    // `games` says how to reach the others.
    let (_, out, _) = run(&["games"]);
    assert!(out.contains("name the file (cram.ron)"), "{out}");
}

/// A folder named like a shipped game in the current directory does not hide the game.
#[test]
fn a_folder_named_like_a_game_does_not_hide_it() {
    let dir = temp_dir("folder-nim");
    std::fs::create_dir_all(dir.join("nim")).unwrap();
    let out = bin()
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .args(["solve", "nim", "3,4,5", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // 3 XOR 4 XOR 5 = 2: a win, Grundy value 2.
    let j = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!((j["value"].clone(), j["grundy"].clone()), ("win".into(), 2.into()));
    // A folder that is no game of the catalogue: the error says both.
    std::fs::create_dir_all(dir.join("nosuchgame")).unwrap();
    let out = bin()
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .args(["solve", "nosuchgame"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("folder") && err.contains("catalogue"), "{err}");
}

/// The binary copied alone to an empty folder, run from another empty folder with no
/// $GAMESMAN_GAMES, still has the shipped games: tic-tac-toe is a tie in 9 (a full board).
/// The definition that answered is the copy the binary carries, not the source tree's.
/// Nothing the binary does at run time looks in the source tree: `CARGO_MANIFEST_DIR` is read
/// only by build.rs (which embeds games/ with `include_str!`) and by unit tests, and a game is
/// looked for in $GAMESMAN_GAMES, then ./games, then among the embedded copies (written out
/// to a cache folder, `XDG_CACHE_HOME` here). So the source tree, still on this machine,
/// cannot have answered.
#[test]
fn the_binary_carries_its_games() {
    let dir = temp_dir("alone");
    let (bin_dir, work) = (dir.join("bin"), dir.join("work"));
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let copy = bin_dir.join("gamesman");
    std::fs::copy(env!("CARGO_BIN_EXE_gamesman"), &copy).unwrap();
    let run_alone = |args: &[&str]| {
        let out = std::process::Command::new(&copy)
            .current_dir(&work)
            .env_remove("GAMESMAN_GAMES")
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        json(&String::from_utf8_lossy(&out.stdout))
    };
    let j = run_alone(&["solve", "tictactoe", "--json"]);
    assert_eq!((j["value"].clone(), j["remoteness"].clone()), ("tie".into(), 9.into()), "{j}");
    let info = run_alone(&["info", "tictactoe", "--json"]);
    let file = info["file"].as_str().unwrap();
    assert!(std::path::Path::new(file).starts_with(dir.join("cache")), "{file}");
    assert!(!std::path::Path::new(file).starts_with(root()), "{file}");
    assert_eq!(std::fs::read(file).unwrap(), std::fs::read(root().join("games/tictactoe.rhai")).unwrap());
}

/// `info`: a script, a descriptor and a native module, checked against facts known by hand.
#[test]
fn info_tells_what_a_game_is() {
    let info = |args: &[&str]| {
        let (code, out, err) = run(&[&["info"][..], args, &["--json", "--no-db"]].concat());
        assert_eq!(code, 0, "{args:?}: {err}");
        json(&out)
    };
    // Tic-tac-toe: the empty 3×3 board, X first, 9 moves; up to the board's symmetries they
    // are 3 (a corner, an edge, the centre).
    for (file, engine) in [("tictactoe.rhai", "script"), ("tictactoe.ron", "descriptor")] {
        let j = info(&[file]);
        assert_eq!(j["engine"], engine, "{j}");
        assert_eq!(j["kind"], "partisan");
        assert_eq!(j["players"], serde_json::json!(["X", "O"]));
        assert_eq!(j["to_move"], "X");
        assert_eq!(j["position"].as_str().unwrap().replace('/', ""), ".........", "{j}");
        assert_eq!(j["moves"], 9, "{j}");
        assert_eq!(j["positions_up_to_symmetry"], 3, "{j}");
        assert!(j["about"].as_str().unwrap().contains("three in a row"), "{j}");
    }
    // Nim by its native module (nim.rhai names it): impartial; from 3,4,5 a move takes 1 to
    // h tokens from a heap of h: 3 + 4 + 5 = 12 moves.
    let j = info(&["nim", "3,4,5"]);
    assert_eq!(
        (j["engine"].clone(), j["kind"].clone(), j["moves"].clone()),
        ("native".into(), "impartial".into(), 12.into()),
        "{j}"
    );
    assert_eq!(j["native_module"], "nim");
    // Solve's text lists each winning move with its remoteness: from Nim 1,2 the one winning
    // move leaves 1,1, lost in 2 (the loser takes a heap, the winner the other).
    let (code, out, _) = run(&["solve", "nim", "1,2", "--no-db"]);
    assert_eq!(code, 0);
    let moves: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("winning moves"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(moves.len(), 1, "{out}");
    assert!(moves[0].contains("(remoteness 2)"), "{out}");
}
