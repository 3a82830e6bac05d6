//! The contest under a hard address-space limit of 32 MB (`prlimit --as`, what a PS2's
//! 32 MB of RAM amounts to): any board up to 10000×10000 gives a nimsum or `-1`, exit 0,
//! and never an allocation abort. Also: peak memory on huge boards stays inside the budget.
//!
//! The answers are independent facts: a bar of n tokens has nimsum n (take any run from a
//! row of n: the octal game whose values are n), an even × even rectangle is 0 (mirror
//! strategy), and boards too large for the budget must be refused.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};

struct Outcome {
    code: i32,
    signal: i32,
    stdout: String,
    stderr: String,
}

/// Run the contest on `input` (written from a thread: it may be 100 MB), under an
/// address-space limit of `as_bytes` when given.
fn contest(args: &[&str], input: Vec<u8>, as_bytes: Option<u64>) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_contest"));
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(limit) = as_bytes {
        // SAFETY: setrlimit is async-signal-safe, and the closure touches nothing else.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit { rlim_cur: limit as libc::rlim_t, rlim_max: limit as libc::rlim_t };
                if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = cmd.spawn().expect("run contest");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input); // the program may stop reading early
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let mut stderr = String::new();
    let _ = err.read_to_string(&mut stderr);
    let stdout = reader.join().unwrap();
    writer.join().unwrap();
    let status = child.wait().expect("wait for the child");
    let (code, signal) = (status.code().unwrap_or(-1), status.signal().unwrap_or(0));
    Outcome { code, signal, stdout, stderr }
}

fn board(width: usize, height: usize, on: impl Fn(usize, usize) -> bool) -> Vec<u8> {
    let mut text = format!("P1\n{width} {height}\n").into_bytes();
    text.reserve((width + 1) * height);
    for r in 0..height {
        text.extend((0..width).map(|c| if on(r, c) { b'1' } else { b'0' }));
        text.push(b'\n');
    }
    text
}

const AS_32MB: u64 = 32 << 20;

/// Never an abort: a nimsum or -1, exit status 0.
fn answers(o: &Outcome, what: &str) -> String {
    assert_eq!(o.signal, 0, "{what}: killed by signal {}\n{}", o.signal, o.stderr);
    assert_eq!(o.code, 0, "{what}: exit {}\n{}", o.code, o.stderr);
    assert!(!o.stderr.contains("memory allocation"), "{what}: {}", o.stderr);
    let line = o.stdout.trim().to_string();
    assert!(line == "-1" || line.parse::<u64>().is_ok(), "{what}: {line:?}");
    line
}

#[test]
fn boards_up_to_10000_square_never_abort_in_32_mb() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut coin = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let random: Vec<bool> = (0..4000 * 4000).map(|_| coin() & 1 == 1).collect();
    let cases: Vec<(&str, Vec<u8>, Option<&str>)> = vec![
        ("full 10000×10000", board(10000, 10000, |_, _| true), Some("-1")),
        ("full 9000×9000", board(9000, 9000, |_, _| true), Some("-1")),
        ("full 4000×4000", board(4000, 4000, |_, _| true), Some("-1")),
        ("a bar of 100000", board(100_000, 1, |_, _| true), Some("100000")),
        ("a column of 50000", board(1, 50_000, |_, _| true), Some("50000")),
        // Bars of 2000 on every other row: 2501 equal bars cancel in pairs, all but one.
        ("2501 bars of 2000", board(2000, 5001, |r, _| r % 2 == 0), Some("2000")),
        ("random 4000×4000 (time limit 3 s)", board(4000, 4000, |r, c| random[r * 4000 + c]), None),
        ("declares 1×10^9", b"P1\n1000000000 1\n".to_vec(), Some("-1")),
    ];
    for (what, input, want) in cases {
        let o = contest(&["--time-limit", "3"], input, Some(AS_32MB));
        let got = answers(&o, what);
        if let Some(w) = want {
            assert_eq!(got, w, "{what}: {}", o.stderr);
        }
    }
}

/// The peak memory `--stats` reports, in kB.
fn peak_kb(o: &Outcome) -> i64 {
    o.stderr
        .split("peak memory ")
        .nth(1)
        .and_then(|s| s.lines().next()?.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak in {}", o.stderr))
}

#[test]
fn a_small_board_takes_a_small_table() {
    // A full 3×3 board has at most 2^9 subsets: its table needs no more than the 2 MiB floor,
    // where it used to zero the whole 24 MiB budget (20 MB peak). Its nimsum, 1, is from
    // tests/data/tactix.jsonl (the reference solver).
    let o = contest(&["--stats"], board(3, 3, |_, _| true), None);
    assert_eq!(answers(&o, "full 3×3"), "1");
    let peak = peak_kb(&o);
    assert!(peak < 8 * 1024, "peak {peak} kB for a 3×3 board");
}

#[test]
fn a_huge_component_is_refused_before_it_costs_memory() {
    // Before: the 9000×9000 board's one component was gathered as 81 million cells (1.9 GB).
    // The peak is the program's own (VmHWM, which `--stats` prints): a child's ru_maxrss would count the
    // test's memory the child shared before it ran the contest.
    let o = contest(&["--stats"], board(9000, 9000, |_, _| true), None);
    assert_eq!(answers(&o, "full 9000×9000"), "-1");
    assert!(o.stderr.contains("more than the 4096"), "{}", o.stderr);
    let peak = peak_kb(&o);
    assert!(peak < 24 * 1024, "peak {peak} kB over the 24 MiB budget");
    // An even × even rectangle is a second-player win (mirror strategy).
    let o = contest(&[], board(4, 4, |_, _| true), Some(AS_32MB));
    assert_eq!(answers(&o, "full 4×4"), "0");
}
