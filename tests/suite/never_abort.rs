//! Bad or huge input never aborts `gamesman` (issue #13): every case the bad-input campaign
//! found (an allocation failure, a stack overflow, a search that never ends) now gives an
//! answer or a clear one-line error, with peak memory inside the budget.
//!
//! Memory is held to the budget by the kernel: each run gets an address-space limit of its
//! budget plus 64 MiB (`gamesman` itself maps under 50 MiB), so a run that went past it would
//! die of an allocation failure, which the test catches. (A child's `ru_maxrss` would not do:
//! it counts the test process's memory, shared until the child runs `gamesman`.)

#![cfg(target_os = "linux")]

use crate::common;

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Stdio;

struct Outcome {
    code: i32,
    signal: i32,
    stdout: String,
    stderr: String,
}

/// Run `gamesman ARGS` (stdin empty) within `budget_mib` + 64 MiB of address space; at most
/// `keep` bytes of stdout are read, then the pipe is closed (a command that writes forever
/// then stops on a broken pipe).
fn run_keep(args: &[&str], budget_mib: u64, keep: usize) -> Outcome {
    let mut cmd = common::bin();
    cmd.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    common::limit_address_space(&mut cmd, budget_mib + 64);
    let mut child = cmd.spawn().expect("gamesman runs");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; keep];
        let mut got = 0;
        while got < keep {
            match out.read(&mut buf[got..]) {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
        }
        buf.truncate(got);
        String::from_utf8_lossy(&buf).into_owned()
    });
    let mut stderr = String::new();
    let _ = err.read_to_string(&mut stderr);
    let stdout = reader.join().unwrap();
    let status = child.wait().expect("wait for the child");
    let (code, signal) = (status.code().unwrap_or(-1), status.signal().unwrap_or(0));
    Outcome { code, signal, stdout, stderr }
}

fn run(args: &[&str], budget_mib: u64) -> Outcome {
    run_keep(args, budget_mib, 1 << 24)
}

/// A file in the test's temporary directory.
fn file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("gamesman-never-abort-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// No abort, no panic, no stack overflow; exit status 0 or 1 (an answer or one clear line).
fn clean(o: &Outcome, what: &str) {
    // SIGPIPE is how a Unix tool stops when its reader goes away (`| head`): not an abort.
    if o.signal == libc::SIGPIPE {
        assert!(o.stderr.is_empty(), "{what}: {}", o.stderr);
        return;
    }
    assert_eq!(o.signal, 0, "{what}: killed by signal {}: {}", o.signal, o.stderr);
    assert!(o.code == 0 || o.code == 1, "{what}: exit {}: {}", o.code, o.stderr);
    for bad in ["memory allocation", "overflowed its stack", "panicked"] {
        assert!(!o.stderr.contains(bad), "{what}: {}", o.stderr);
    }
    if o.code == 1 {
        assert_eq!(o.stderr.trim_end().lines().count(), 1, "{what}: not one line: {}", o.stderr);
    }
}

fn fails_with(o: &Outcome, what: &str, needle: &str) {
    assert_eq!(o.code, 1, "{what}: {}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains(needle), "{what}: expected {needle:?} in {}", o.stderr);
}

#[test]
fn lights_out_rows_too_wide_to_chase() {
    // A row of lights is solved on its transpose (one light per row); before, the chase
    // asked for 1.25 GB (100,000 lights) and 12.5 TB (10 million).
    for n in [100_000usize, 10_000_000] {
        let board = file(&format!("row{n}.txt"), &"#".repeat(n));
        let o = run_keep(&["lightsout", &board], 1024, 1 << 26);
        assert_eq!(o.signal, 0, "{}", o.stderr);
        clean(&o, "a row of lights");
        assert_eq!(o.code, 0, "{}", o.stderr);
        // All on: a press turns off at most three lights, so it takes at least ⌈n / 3⌉
        // presses; when n ≡ 1 (mod 3), as both n here are, presses at 0, 3, …, n − 1 reach
        // it (the first and the last turn off two lights, the others three).
        assert_eq!(o.stdout.lines().count(), n.div_ceil(3), "row of {n}");
    }
    // A board that would need more than the budget is refused, not attempted.
    let square = file("square.txt", &format!("{}\n", "#".repeat(3000)).repeat(3000));
    let o = run(&["lightsout", &square, "--max-memory", "8"], 8);
    clean(&o, "3000×3000 in 8 MiB");
    fails_with(&o, "3000×3000 in 8 MiB", "memory budget");
}

#[test]
fn chomp_boards_too_tall_or_too_wide() {
    let o = run(&["chomp", "1000000000,1"], 1024);
    clean(&o, "chomp 1000000000,1");
    fails_with(&o, "chomp 1000000000,1", "counting tables");
    // 100,000 columns of 9 (before: the state was echoed whole in the error).
    let nines = "9".repeat(100_000);
    let o = run(&["chomp", &nines], 1024);
    clean(&o, "chomp 9×100000");
    fails_with(&o, "chomp 9×100000", "(100000 columns)");
}

#[test]
fn chomp_runs_of_equal_columns_are_walked_without_recursion() {
    // 20,000 columns of height 1 (a single row): the first player takes all but the poison.
    // Before, marking parents recursed once per column of a run, on the main stack.
    let o = run(&["chomp", &"1".repeat(20_000)], 1024);
    clean(&o, "chomp 1×20000");
    assert_eq!(o.stdout.trim(), format!("WIN: 1{}", "0".repeat(19_999)));
}

#[test]
fn tactix_boards_that_declare_a_billion_cells() {
    let board = file("billion.pbm", "P1 1000000000 1\n");
    let o = run(&["tactix", &board], 256);
    clean(&o, "tactix 1×10^9");
    assert_eq!(o.stdout.trim(), "-1");
}

#[test]
fn nimrod_losing_positions_are_streamed() {
    // Before: a billion pairs were built in memory (4 GB) before the first was printed.
    let o = run_keep(&["nimrod", "--lose-positions", "1000000000"], 64, 64);
    clean(&o, "nimrod --lose-positions 10^9");
    assert!(o.signal == libc::SIGPIPE || o.code == 0, "{}", o.stderr);
    assert!(o.stdout.starts_with("(0 0)\n(1 2)\n(3 5)\n"), "{}", o.stdout);
}

#[test]
fn scripts_and_descriptors_with_100000_character_positions() {
    let lights = file("lights100k.txt", &"#".repeat(100_000));
    let tokens = file("tokens100k.txt", &"1".repeat(100_000));
    for (game, pos) in
        [("lightsout.rhai", &lights), ("lightsout.ron", &lights), ("tactix.rhai", &tokens), ("tactix.ron", &tokens)]
    {
        for command in ["solve", "moves", "analyze", "play"] {
            let what = format!("{command} {game}");
            let o = run(&[command, game, pos, "--max-memory", "256"], 256);
            assert_eq!(o.signal, 0, "{what}: {}", o.stderr);
            // play stops at the end of its (empty) input: exit 2.
            let o = Outcome { code: if command == "play" && o.code == 2 { 0 } else { o.code }, ..o };
            clean(&o, &what);
        }
    }
}

#[test]
fn analyze_and_moves_keep_to_the_budget_on_many_heaps() {
    let many = file("heaps1000.txt", &vec!["3"; 1000].join(","));
    let ones = file("ones60000.txt", &vec!["1"; 60_000].join(","));
    let o = run(&["analyze", "nim.rhai", &many, "--max-memory", "256"], 256);
    clean(&o, "analyze 1000 heaps");
    fails_with(&o, "analyze 1000 heaps", "memory budget");
    let o = run(&["analyze", "nim.rhai", &ones, "--max-memory", "256"], 256);
    clean(&o, "analyze 60000 heaps of 1");
    fails_with(&o, "analyze 60000 heaps of 1", "has 60000 moves");
    // `moves` needs each child's value only: Grundy values from the parts (one heap of 3 each)
    // answer them within the budget, and the remoteness search of the whole position, which
    // cannot fit, is given up with a note instead of failing the command.
    let o = run(&["moves", "nim.rhai", &many, "--engine", "script", "--max-memory", "256", "--json"], 256);
    clean(&o, "moves 1000 heaps (script)");
    assert_eq!(o.code, 0, "{}", o.stderr);
    let moves: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let moves = moves.as_array().expect("a list of moves");
    // 3 moves from each of the 1000 heaps; taking k from one heap leaves 3 - k beside 999
    // heaps of 3 (XOR 3), so the child's Grundy value is (3 - k) ^ 3 and it is a win.
    assert_eq!(moves.len(), 3000);
    for m in moves {
        let name = m["move"].as_str().unwrap();
        let k: u64 = name.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(m["grundy"], (3 - k) ^ 3, "{name}");
        assert_eq!(m["value"], "win", "{name}");
    }
}

#[test]
fn one_big_nim_heap_answers_at_once() {
    // One heap: a win with Grundy value its size. Before, the remoteness search examined its
    // five billion moves.
    for game in ["nim.rhai", "nim.ron"] {
        let o = run(&["solve", game, "100000", "--json"], 1024);
        clean(&o, game);
        let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(v["value"], "win");
        assert_eq!(v["grundy"], 100000);
    }
}

#[test]
fn a_time_limit_stops_a_long_search_cleanly() {
    // Kayles 60 searched whole for remoteness (--full-search) takes about 30 s.
    let started = std::time::Instant::now();
    let o = run(&["solve", "kayles.ron", "60", "--full-search", "--time-limit", "1.5", "--progress"], 1024);
    let took = started.elapsed().as_secs_f64();
    assert_eq!(o.code, 1, "{}", o.stderr);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("progress: ") && l.contains("positions visited")), "{}", o.stderr);
    assert!(
        lines.last().is_some_and(|l| l.starts_with("gamesman: error: the time limit of 1.5 s ran out after ")),
        "{}",
        o.stderr
    );
    assert!(took < 5.0, "took {took:.1} s");
    let o = run(&["analyze", "tictactoe", "--time-limit", "0.001"], 1024);
    fails_with(&o, "analyze with a tiny limit", "the time limit of 0.001 s ran out");
    // Without the flag nothing is printed on a pipe but the answer.
    let o = run(&["solve", "nim", "3,4,5"], 1024);
    assert_eq!((o.code, o.stderr.as_str()), (0, ""));
}

#[test]
fn a_sum_too_large_to_search_whole_gets_its_grundy_value_at_once() {
    // Kayles 100: Grundy value 1 (Winning Ways; the period-12 tail). Before, the default
    // remoteness search walked the whole sum (Kayles 60 took 29 s, 100 never finished).
    let o = run(&["solve", "kayles.ron", "100", "--json", "--time-limit", "20"], 1024);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!((v["value"].as_str(), v["grundy"].as_u64()), (Some("win"), Some(common::kayles(100))));
    assert!(v["remoteness"].is_null());
    assert!(v["remoteness_note"].as_str().is_some_and(|n| n.starts_with("not searched")), "{v}");
    // Every winning move leaves Grundy value 0.
    let moves = v["winning_moves"].as_array().unwrap();
    assert!(!moves.is_empty() && moves.iter().all(|m| m["grundy"] == 0), "{v}");
    // A small sum is still searched whole, and says nothing.
    let o = run(&["solve", "kayles.ron", "10", "--json"], 1024);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["remoteness"].is_u64() && v["remoteness_note"].is_null(), "{v}");
}
