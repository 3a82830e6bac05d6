//! The contest binary: the reference boards, malformed input, the memory budget, the time
//! limit, and random input that must never crash it.

use std::io::Write;
use std::process::{Command, Stdio};

fn contest(args: &[&str], input: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_contest"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run contest");
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(input); // the program may stop reading early: fine
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn cases() -> Vec<(String, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/tactix.jsonl");
    let text = std::fs::read_to_string(path).expect("tests/data/tactix.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // {"pbm": "...", "grundy": N}: read without a JSON dependency.
            let pbm_start = l.find("\"pbm\": \"").unwrap() + 8;
            let pbm_end = pbm_start + l[pbm_start..].find('"').unwrap();
            let g_start = l.find("\"grundy\": ").unwrap() + 10;
            let g: u64 = l[g_start..].trim_end_matches('}').trim().parse().unwrap();
            (l[pbm_start..pbm_end].replace("\\n", "\n"), g)
        })
        .collect()
}

/// Peak memory in kB from `--stats`.
fn peak_kb(stderr: &str) -> u64 {
    let at = stderr.find("peak memory ").expect("stats line") + 12;
    stderr[at..].split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn every_reference_board() {
    let cases = cases();
    assert_eq!(cases.len(), 30);
    for (pbm, g) in cases {
        let (code, out, err) = contest(&[], pbm.as_bytes());
        assert_eq!((code, out.trim()), (0, g.to_string().as_str()), "{pbm}\n{err}");
    }
}

#[test]
fn malformed_boards_give_minus_one_and_a_reason() {
    let bad: &[&[u8]] = &[
        b"",
        b"P4\n1 1\n1\n",
        b"P1\n",
        b"P1\n2 2\n1 1 1\n",
        b"P1\n2 2\n1 1 1 2\n",
        b"P1\n1 1\n1 1\n",
        b"P1\n-2 2\n",
        b"P1\n99999999999999999999 1\n",
        b"P1\n100000 100000\n", // 10^10 cells: beyond a 24 MB budget
        b"\xff\xfe\x00garbage",
        b"P1 2 2 1 1 1 1 x",
    ];
    for input in bad {
        let (code, out, err) = contest(&[], input);
        assert_eq!((code, out.as_str()), (0, "-1\n"), "{:?}", String::from_utf8_lossy(input));
        assert!(err.starts_with("contest: ") && !err.contains("panicked"), "{err}");
    }
}

#[test]
fn the_full_p1_format() {
    // Comments anywhere, packed pixels, tabs and CR LF line ends.
    let (_, out, _) = contest(&[], b"# a bar of 3\r\nP1\t# width height\r\n3 1\r\n# pixels\r\n111\r\n# end\r\n");
    assert_eq!(out, "3\n");
}

#[test]
fn peak_memory_stays_inside_the_budget() {
    // A 2000×2000 board of scattered short bars (many components), and the full 5×5 board.
    let mut big = b"P1\n2000 2000\n".to_vec();
    let mut x = 99u64;
    for _ in 0..2000 {
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            big.push(if x >> 61 == 0 { b'1' } else { b'0' });
        }
        big.push(b'\n');
    }
    let full = b"P1 5 5 11111 11111 11111 11111 11111".to_vec();
    // A random 32×32 board whose big components take the 8×16 path (it once went over, when
    // they took the general path).
    let large = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../boards/large-1-32x32.pbm")).unwrap();
    // A random 24×24 board, three cells in four: one component far beyond 8×16 (the general
    // path), which no search finishes.
    let mut giant = b"P1\n24 24\n".to_vec();
    for _ in 0..24 * 24 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        giant.extend_from_slice(if x >> 62 == 0 { b"0 " } else { b"1 " });
    }
    // The full 63×63 board (3,969 tokens, once 24 GB before it was killed), and a 63×63
    // serpentine path (2,047 tokens: the search goes one level deeper per token).
    let full63 = format!("P1 63 63 {}", "1".repeat(63 * 63)).into_bytes();
    let snake = format!(
        "P1 63 63 {}",
        (0..63)
            .map(|r| match r % 4 {
                0 | 2 => "1".repeat(63),
                1 => format!("{}1", "0".repeat(62)),
                _ => format!("1{}", "0".repeat(62)),
            })
            .collect::<Vec<_>>()
            .join(" ")
    )
    .into_bytes();
    // (input, budget, whether it must finish: the others are stopped after 5 s, and their
    // peak memory up to then is what is checked)
    for (input, budget_mib, finishes) in [
        (&full63, 24, false),
        (&snake, 24, false),
        (&snake, 200, false),
        (&big, 24u64, true),
        (&full, 24, true),
        (&large, 24, true),
        (&large, 12, false),
        (&giant, 24, false),
        (&giant, 12, false),
    ] {
        let b = budget_mib.to_string();
        let (code, out, err) = contest(&["--stats", "--max-memory", &b, "--time-limit", "5"], input);
        assert_eq!(code, 0);
        if finishes {
            assert!(out.trim() != "-1", "{err}");
        }
        let kb = peak_kb(&err);
        assert!(kb <= budget_mib * 1024, "peak {kb} kB with a {budget_mib} MiB budget");
    }
}

#[test]
fn the_time_limit_gives_minus_one() {
    let started = std::time::Instant::now();
    let (code, out, err) = contest(
        &["--time-limit", "0.3"],
        b"P1 8 8 11111111 11111111 11111111 11111111 11111111 11111111 11111111 11111110",
    );
    assert_eq!((code, out.as_str()), (0, "-1\n"));
    assert!(err.contains("time limit"), "{err}");
    assert!(started.elapsed().as_secs_f64() < 5.0);
}

#[test]
fn bad_options_are_usage_errors() {
    for args in [&["--max-memory"][..], &["--max-memory", "x"], &["--time-limit", "-1"], &["--bogus"]] {
        let (code, out, err) = contest(args, b"P1 1 1 1");
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.contains("usage: contest"), "{err}");
    }
}

#[test]
fn random_input_never_crashes() {
    // Valid boards, then mutated: bytes flipped, cut short, digits swapped in.
    let mut x = 2026u64;
    let mut rand = move || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        x >> 33
    };
    let alphabet = b"01 \n#P1x9-";
    for i in 0..300 {
        let (w, h) = (rand() % 9 + 1, rand() % 9 + 1);
        let mut text = format!("P1\n{w} {h}\n").into_bytes();
        for _ in 0..w * h {
            text.push(if rand() % 3 == 0 { b'1' } else { b'0' });
            text.push(b' ');
        }
        match i % 4 {
            0 => {}
            1 => {
                let at = (rand() as usize) % text.len();
                text[at] = alphabet[(rand() as usize) % alphabet.len()];
            }
            2 => text.truncate((rand() as usize) % text.len()),
            _ => {
                let at = (rand() as usize) % text.len();
                text.insert(at, alphabet[(rand() as usize) % alphabet.len()]);
            }
        }
        let (code, out, err) = contest(&["--time-limit", "5"], &text);
        assert_eq!(code, 0, "{:?}", String::from_utf8_lossy(&text));
        let line = out.strip_suffix('\n').unwrap_or_else(|| panic!("one line: {out:?}"));
        assert!(line == "-1" || line.parse::<u64>().is_ok(), "{out:?}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
