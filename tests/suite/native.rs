//! The native fast paths: every reference vector through them, their agreement with the
//! scripts, and the assignments' own commands with their exact contracts.

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

fn json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

#[test]
fn nim_command_reproduces_every_vector() {
    for case in cases("nim") {
        let args: Vec<String> = serde_json::from_value(case["args"].clone()).unwrap();
        let mut full = vec!["nim"];
        full.extend(args.iter().map(String::as_str));
        let (code, out, _) = run(&full);
        assert_eq!(out, case["stdout"].as_str().unwrap(), "nim {args:?}");
        assert_eq!(code, 0);
    }
}

#[test]
fn nim_command_usage() {
    for bad in [&[][..], &["x"], &["-3"], &["3", "4.5"], &["-m"]] {
        let mut args = vec!["nim"];
        args.extend_from_slice(bad);
        let (code, out, _) = run(&args);
        assert_eq!(code, 1, "{bad:?}");
        assert!(out.starts_with("usage: nim [-m] n1 [n2 ...]\n\nThis program solves games of Nim."), "{bad:?}: {out}");
        assert!(out.ends_with("followed by a list of available winning moves.\n"));
    }
    // Zero is a valid pile.
    assert_eq!(run(&["nim", "0"]).1, "loss!\n");
}

#[test]
fn nim_solve_native_and_script_agree_on_the_vectors() {
    for case in cases("nim") {
        let args: Vec<String> = serde_json::from_value(case["args"].clone()).unwrap();
        let misere = args[0] == "-m";
        let heaps = args[misere as usize..].join(",");
        let mut a = vec!["solve", "nim", heaps.as_str(), "--json", "--engine", "native"];
        if misere {
            a.push("--misere");
        }
        let native = json(&a);
        let expected_win = case["stdout"].as_str().unwrap().starts_with("win!");
        assert_eq!(native["value"] == "win", expected_win, "{args:?}");
        assert_eq!(native["engine"], "native");
        let size: f64 = args[misere as usize..].iter().map(|h| h.parse::<f64>().unwrap() + 1.0).product();
        if size <= 50_000.0 {
            a[5] = "script";
            let script = json(&a);
            for key in ["value", "remoteness", "grundy", "winning_moves"] {
                assert_eq!(native[key], script[key], "{args:?} {key}");
            }
        }
    }
}

#[test]
fn chomp_command_reproduces_every_vector() {
    for case in cases("chomp") {
        let state = case["state"].as_str().unwrap();
        let (code, out, _) = run(&["chomp", state]);
        assert_eq!((code, out.trim_end()), (0, case["answer"].as_str().unwrap()), "chomp {state}");
        // The same through `solve`, native and script.
        for engine in ["native", "script"] {
            let v = json(&["solve", "chomp", state, "--json", "--engine", engine, "--no-remoteness"]);
            let got = if v["value"] == "lose" {
                "LOSS".to_string()
            } else {
                format!("WIN: {}", v["winning_moves"][0]["position"].as_str().unwrap())
            };
            assert_eq!(got, case["answer"].as_str().unwrap(), "chomp {state} ({engine})");
        }
    }
}

#[test]
fn chomp_command_usage_and_big_boards() {
    for bad in ["", "12a", "3432", "0", "042"] {
        let (code, out, err) = run(&["chomp", bad]);
        assert_eq!((code, out.as_str()), (1, ""), "{bad:?}");
        assert!(err.starts_with("usage: gamesman chomp STATE"), "{bad:?}: {err}");
    }
    let (code, _, err) = run(&["chomp"]);
    assert!(code == 1 && err.starts_with("usage:"));
    // Two-row Chomp (two columns here) loses exactly at (a, a − 1).
    assert_eq!(run(&["chomp", "15,14"]).1, "LOSS\n");
    assert_eq!(run(&["chomp", "15,15"]).1, "WIN: 15,14\n");
    // A square board: take (1,1), leaving two equal arms.
    assert_eq!(run(&["chomp", "999999999"]).1, "WIN: 911111111\n");
}

#[test]
fn wythoff_vectors_through_the_native_module() {
    for case in cases("wythoff") {
        let (a, b) = (case["a"].as_u64().unwrap().to_string(), case["b"].as_u64().unwrap().to_string());
        let p = case["p"].as_bool().unwrap();
        let (code, out, _) = run(&["nimrod", &a, &b]);
        assert_eq!(code, 0);
        assert_eq!(out.starts_with("lose\n"), p, "nimrod {a} {b}: {out}");
        let v = json(&["solve", "nimrod", &format!("{a},{b}"), "--json", "--engine", "native"]);
        assert_eq!(v["value"] == "lose", p);
        if let Some(g) = case["grundy"].as_u64() {
            assert_eq!(v["grundy"], g, "nimrod {a} {b}");
        }
        // Every winning move must land on a losing pair.
        for m in v["winning_moves"].as_array().unwrap() {
            assert_eq!(m["value"], "lose", "{m}");
        }
    }
}

#[test]
fn nimrod_command_lists_and_refuses() {
    let (_, out, _) = run(&["nimrod", "--lose-positions", "7"]);
    assert_eq!(out, "(0 0)\n(1 2)\n(3 5)\n(4 7)\n(6 10)\n(8 13)\n(9 15)\n");
    // (5,9): only 0 from A and 6 from B reaches a losing pair, (5,3).
    assert_eq!(run(&["nimrod", "5", "9"]).1, "win\ntake 0 from pile A and 6 from pile B\n");
    for bad in [&["nimrod", "5"][..], &["nimrod", "5", "-1"], &["nimrod", "x", "2"]] {
        let (code, _, err) = run(bad);
        assert_eq!(code, 1, "{bad:?}");
        assert!(err.starts_with("gamesman: error: "), "{err}");
    }
}

#[test]
fn lightsout_vectors_through_the_command() {
    let dir = std::env::temp_dir().join(format!("gamesman-lo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, case) in cases("lightsout").into_iter().enumerate() {
        let board = case["board"].as_str().unwrap();
        let file = dir.join(format!("b{i}.txt"));
        std::fs::write(&file, board).unwrap();
        let (code, out, err) = run(&["lightsout", file.to_str().unwrap()]);
        if case["solvable"].as_bool().unwrap() {
            assert_eq!(code, 0, "{board}: {err}");
            let presses: Vec<&str> = out.lines().collect();
            assert_eq!(presses.len() as u64, case["min_presses"].as_u64().unwrap(), "{board}");
            // Press them by hand.
            let mut cells: Vec<Vec<bool>> = board.lines().map(|l| l.chars().map(|c| c == '#').collect()).collect();
            let (h, w) = (cells.len() as i64, cells[0].len() as i64);
            for p in presses {
                let (r, c) = p.split_once(':').unwrap();
                let (r0, c0): (i64, i64) = (r.parse().unwrap(), c.parse().unwrap());
                for (dr, dc) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let (r, c) = (r0 + dr, c0 + dc);
                    if (0..h).contains(&r) && (0..w).contains(&c) {
                        cells[r as usize][c as usize] ^= true;
                    }
                }
            }
            assert!(cells.iter().flatten().all(|&on| !on), "{board}");
        } else {
            assert_eq!((code, out.as_str(), err.as_str()), (1, "", "No solution\n"), "{board}");
        }
        let v = json(&["solve", "lightsout", &board.replace('\n', "/"), "--json", "--engine", "native"]);
        assert_eq!(v["value"] == "win", case["solvable"].as_bool().unwrap());
        assert_eq!(v["remoteness"].as_u64(), case["min_presses"].as_u64());
    }
    let (code, _, err) = run(&["lightsout", "no/such/board.txt"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read the board file no/such/board.txt"), "{err}");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "#0\n#\n").unwrap();
    let (code, _, err) = run(&["lightsout", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("every row must be as long"), "{err}");
}

#[test]
fn check_finds_no_disagreement_on_the_four_games() {
    for (game, misere) in
        [("nim", false), ("nim", true), ("nimrod", false), ("chomp", false), ("lightsout", false), ("chomp", true)]
    {
        let mut args = vec!["check", game, "--count", "200", "--seed", "2026"];
        if misere {
            args.push("--misere");
        }
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{args:?}\n{out}\n{err}");
        assert!(out.contains("200 random positions") && out.contains(" 0 disagreements"), "{out}");
    }
}

#[test]
fn check_catches_a_script_that_is_not_nim() {
    let (code, out, _) = run(&["check", "tests/games/nim_wrong.rhai", "--count", "100", "--seed", "1"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("disagreement at"), "{out}");
}

#[test]
fn engine_choice() {
    let (code, _, err) = run(&["solve", "tictactoe", "--engine", "native"]);
    assert_eq!(code, 1);
    assert!(err.contains("names no native module"), "{err}");
    let v = json(&["solve", "tictactoe", "--json"]);
    assert_eq!(v["engine"], "script"); // auto: no native module
    let v = json(&["solve", "nim", "3,4,5", "--json"]);
    assert_eq!(v["engine"], "native"); // auto: the script names one
}

#[test]
fn tactix_vectors_through_gamesman_tactix_and_solve() {
    use std::io::Write;
    for case in cases("tactix") {
        let pbm = case["pbm"].as_str().unwrap();
        let g = case["grundy"].as_u64().unwrap();
        let mut child = bin()
            .args(["tactix"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(pbm.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), g.to_string(), "gamesman tactix\n{pbm}");
        let v = json(&["solve", "tactix", pbm, "--json", "--no-remoteness"]);
        assert_eq!((v["engine"].as_str(), v["grundy"].as_u64()), (Some("native"), Some(g)), "{pbm}");
        // Every winning move leaves nimsum 0.
        for m in v["winning_moves"].as_array().unwrap() {
            assert_eq!(m["grundy"], 0, "{m}");
        }
    }
    // Options are checked and explained like every other command's.
    let (code, out, _) = run(&["tactix", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--threads") && out.contains("--time-limit"), "{out}");
    let (code, _, err) = run(&["tactix", "--threads", "0"]);
    assert_eq!(code, 2, "{err}");
    // Malformed: -1 on stdout, the reason on stderr, exit 0 (the contest's contract).
    let (code, out, err) = run(&["tactix", "no/such/board.pbm"]);
    assert_eq!((code, out.as_str()), (0, "-1\n"));
    assert!(err.contains("cannot read no/such/board.pbm"), "{err}");
}

#[test]
fn tactix_check_against_the_script() {
    let (code, out, err) = run(&["check", "tactix", "--count", "150", "--seed", "7"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains(" 0 disagreements"), "{out}");
}

/// Every state below 6×6 (and a wide 3×9 one): the native table of nimbers against the
/// script's own Grundy search (a different program: `chomp.rhai` through the generic
/// solver), and against facts known by hand: a single row of n squares is a Nim heap of
/// n − 1, a single column likewise, and an L (a column of a and a row of b) is the Nim sum of
/// heaps a − 1 and b − 1.
#[test]
fn chomp_nimbers_native_against_the_script() {
    use gamesman::game::Game;
    use gamesman::native::chomp::Chomp;
    use gamesman::solve::{Analyzer, Options};
    let script = game("chomp");
    let native = Chomp::new(script.info().clone());
    let opts = Options { remoteness: false, ..Options::default() };
    let mut by_script = Analyzer::new(&script, opts);
    for bound in [vec![6u32; 6], vec![3; 9]] {
        // Every non-increasing x ≤ bound with x_0 ≥ 1.
        let mut x = vec![0u32; bound.len()];
        let mut checked = 0;
        loop {
            // Next state in lexicographic order.
            let mut i = x.len();
            loop {
                if i == 0 {
                    break;
                }
                i -= 1;
                let cap = if i == 0 { bound[0] } else { x[i - 1].min(bound[i]) };
                if x[i] < cap {
                    x[i] += 1;
                    x[i + 1..].iter_mut().for_each(|v| *v = 0);
                    break;
                }
                if i == 0 {
                    x.clear();
                }
            }
            if x.is_empty() {
                break;
            }
            let text = x.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
            let pos = script.parse(&text).unwrap();
            let want = by_script.value(&pos).unwrap().1.expect("a Grundy value");
            assert_eq!(native.nimber(&x).unwrap(), Some(want), "{text}");
            checked += 1;
        }
        assert!(checked > 200, "{checked}");
    }
    for n in 1..=12u32 {
        let row = vec![1u32; n as usize];
        assert_eq!(native.nimber(&row).unwrap(), Some(n as u64 - 1), "a row of {n}");
        assert_eq!(native.nimber(&[n]).unwrap(), Some(n as u64 - 1), "a column of {n}");
        for b in 1..=12u32 {
            let mut l = vec![1u32; b as usize];
            l[0] = n;
            assert_eq!(native.nimber(&l).unwrap(), Some(((n - 1) ^ (b - 1)) as u64), "an L {n} by {b}");
        }
    }
}

/// Chomp by plain memoized search, written here: (is the player to move winning, remoteness)
/// of column heights `x`, a win's remoteness one more than its fastest losing child's, a
/// loss's one more than its slowest child's; the poisoned square is never taken.
fn chomp_by_hand(x: &[u32], memo: &mut std::collections::HashMap<Vec<u32>, (bool, u32)>) -> (bool, u32) {
    if let Some(&v) = memo.get(x) {
        return v;
    }
    let (mut fastest_loss, mut slowest) = (None::<u32>, 0u32);
    for c in 0..x.len() {
        for r in 0..x[c] {
            if (c, r) == (0, 0) {
                continue;
            }
            let child: Vec<u32> = x.iter().enumerate().map(|(j, &h)| if j >= c { h.min(r) } else { h }).collect();
            let (wins, rem) = chomp_by_hand(&child, memo);
            if !wins {
                fastest_loss = Some(fastest_loss.map_or(rem + 1, |f| f.min(rem + 1)));
            }
            slowest = slowest.max(rem + 1);
        }
    }
    let v = match fastest_loss {
        Some(r) => (true, r),
        None => (false, slowest),
    };
    memo.insert(x.to_vec(), v);
    v
}

/// Chomp's default `solve` gives the remoteness with the value, at once: a 10×10 bar (a
/// first-player win, as every rectangle but the poison alone, by strategy stealing) within a
/// 2-second limit where a full search used to take seconds; and the remoteness of smaller
/// boards agrees with a search written here.
#[test]
fn chomp_answers_value_and_remoteness_at_once() {
    let ten = ["10"; 10].join(",");
    let r = json(&["solve", "chomp", &ten, "--time-limit", "2", "--json"]);
    assert_eq!(r["value"], "win", "{r}");
    assert!(r["remoteness"].is_u64(), "{r}");
    let mut memo = std::collections::HashMap::new();
    for board in ["8,8,8,8,8,8,8,8", "7,7,5,5,3", "6,6,6,6,6,6,6", "4,3,2,1", "5,1,1", "2", "1,1"] {
        let x: Vec<u32> = board.split(',').map(|v| v.parse().unwrap()).collect();
        let (wins, rem) = chomp_by_hand(&x, &mut memo);
        let r = json(&["solve", "chomp", board, "--json"]);
        assert_eq!(r["value"], if wins { "win" } else { "lose" }, "{board}: {r}");
        assert_eq!(r["remoteness"], rem, "{board}: {r}");
        assert!(r["grundy"].is_u64(), "{board}: {r}");
    }
}
