//! No input may break a budget (issue #27, items 7–10 and 12): huge numbers in a descriptor,
//! a huge `--count`, an endless line typed to `play`, a script that makes data without end, a
//! huge position file, a whole-game analysis whose positions are large, a time limit of 1e300.
//! Each case gives one clear line (exit 1) or its answer, never an abort, a panic or a hang.
//!
//! Memory: a run given `limit_mib` gets that much address space (`setrlimit(RLIMIT_AS)` in
//! the child), so a run that went past it dies of an allocation failure, which the test sees
//! (`gamesman` itself maps about 50 MiB; the limits below are the budget plus 64 MiB). The
//! parallel analysis is measured instead by its peak resident memory (`wait4`'s `ru_maxrss`),
//! since every thread's malloc arena reserves address space it never uses.

#![cfg(target_os = "linux")]

use crate::common;

use std::path::PathBuf;
use std::process::Stdio;

use common::Outcome;

/// Run `gamesman ARGS` with `stdin`, within `limit_mib` MiB of address space (none for 0).
fn run(args: &[&str], limit_mib: u64, stdin: Stdio) -> Outcome {
    let mut cmd = common::bin();
    cmd.args(args);
    common::run_measured(&cmd, stdin, limit_mib, 600)
}

/// A file in the test's temporary directory.
fn file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("gamesman-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Exit 1 with one line holding `needle`: no signal, no panic, no allocation failure.
fn refused(o: &Outcome, what: &str, needle: &str) {
    assert_eq!(o.signal, 0, "{what}: killed by signal {}: {}", o.signal, o.stderr);
    for bad in ["memory allocation", "panicked", "overflowed its stack"] {
        assert!(!o.stderr.contains(bad), "{what}: {}", o.stderr);
    }
    assert_eq!(o.code, 1, "{what}: exit {}: {}{}", o.code, o.stdout, o.stderr);
    assert_eq!(o.stderr.trim_end().lines().count(), 1, "{what}: not one line: {}", o.stderr);
    assert!(o.stderr.contains(needle), "{what}: expected {needle:?} in {}", o.stderr);
}

// --- 7. Huge numbers in a descriptor ---------------------------------------------------

#[test]
fn a_descriptor_with_a_trillion_heaps_is_refused_where_it_says_so() {
    // Before: SIGABRT, asking 16 TB (an example position of 10^12 heaps, built for a message).
    let ron = file(
        "heaps.ron",
        "// Nim on a fixed number of heaps\n(\n    name: \"big\",\n    rules: Heaps(moves: [TakeAny], heaps: 1000000000000),\n)\n",
    );
    // 16 bytes a heap: a budget of 1024 MiB affords 2^26 heaps.
    for cmd in ["solve", "analyze"] {
        let o = run(&[cmd, &ron, "5", "--max-memory", "1024"], 1024 + 64, Stdio::null());
        refused(&o, cmd, &format!("{ron}:4:43: heaps: 1000000000000 is more than the memory budget allows"));
        assert!(o.stderr.contains("at most 67108864 with --max-memory 1024"), "{}", o.stderr);
    }
    // The server checks its games at start-up within its --max-memory (512 MiB: 2^25 heaps).
    let o = run(&["serve", &ron, "--port", "0"], 512 + 64, Stdio::null());
    refused(&o, "serve", "heaps: 1000000000000 is more than the memory budget allows");
    assert!(o.stderr.contains("at most 33554432 with --max-memory 512"), "{}", o.stderr);
    // Within the budget, the count is kept: a wrong number of heaps is an ordinary error.
    let ok = file("heaps3.ron", "(name: \"three\", rules: Heaps(moves: [TakeAny], heaps: 3))");
    let o = run(&["solve", &ok, "1,2,3"], 1024 + 64, Stdio::null());
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("lose"), "nim 1,2,3 is a loss (1^2^3 = 0): {}", o.stdout);
    // A budget of 16 MiB affords 2^20 heaps: 2^20 + 1 is refused.
    let edge = file("heaps-edge.ron", "(name: \"edge\", rules: Heaps(moves: [TakeAny], heaps: 1048577))");
    let o = run(&["solve", &edge, "1", "--max-memory", "16"], 16 + 64, Stdio::null());
    refused(&o, "2^20 + 1 heaps", "heaps: 1048577 is more than the memory budget allows");
}

#[test]
fn a_subtraction_set_with_a_huge_take_is_refused() {
    // Before: u64::MAX panicked (index out of bounds in src/solve/sequence.rs: top + 1
    // overflowed to an empty table), and 10^12 aborted asking a 1 TB table.
    for k in ["18446744073709551615", "1000000000000"] {
        let ron = file(
            &format!("sub{}.ron", k.len()),
            &format!("(\n  name: \"s\",\n  rules: Heaps(moves: [Subtract([1, {k}])]),\n)\n"),
        );
        for args in [vec!["solve", &ron, "10"], vec!["solve", &ron]] {
            let o = run(&args, 1024 + 64, Stdio::null());
            refused(&o, k, &format!("{ron}:3:37: Subtract: {k} is more than the memory budget allows"));
        }
    }
    // A take the budget affords still plays: S(1, 100000) on a heap of 5 is Nim by ones, a win.
    let ron = file("sub-ok.ron", "(name: \"s\", rules: Heaps(moves: [Subtract([1, 100000])]))");
    let o = run(&["solve", &ron, "5"], 1024 + 64, Stdio::null());
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("win"), "{}", o.stdout);
}

// --- 8. A huge --count, an endless line ------------------------------------------------

#[test]
fn check_refuses_a_count_past_the_budget() {
    // Before: SIGABRT (24 GB asked for the list of positions). 1 KiB a position: 1024 MiB
    // affords 2^20 of them.
    let o = run(&["check", "nim", "--count", "1000000000"], 1024 + 64, Stdio::null());
    refused(&o, "check --count 1e9", "--count 1000000000 is more than the memory budget allows");
    assert!(o.stderr.contains("at most 1048576 with --max-memory 1024"), "{}", o.stderr);
}

#[test]
fn play_refuses_an_endless_line() {
    // Before: a line without end was read whole (3 GB in 6 s from /dev/zero).
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let o = run(&["play", "nim", "3,4,5"], 1024 + 64, Stdio::from(zero));
    refused(&o, "play < /dev/zero", "a line of more than 64 KiB");
    // The quote of the line is cut: 40 characters (as \0, 2 each) and "…".
    assert!(o.stderr.len() < 300, "{} bytes: {}", o.stderr.len(), o.stderr);
    assert!(o.stderr.contains("…"), "{}", o.stderr);
}

// --- 9. A script that makes data without end -------------------------------------------

/// A script whose `parse` fills a map with copies of an array of `n` elements.
fn map_bomb(n: usize) -> String {
    file(
        &format!("bomb{n}.rhai"),
        &format!(
            "const NAME = \"bomb\";\nconst KIND = \"impartial\";\nconst START = \"1\";\n\
             fn parse(text) {{\n    let a = [];\n    a.pad({n}, 0);\n    let m = #{{}};\n    \
             for i in 0..60000 {{ m[`k${{i}}`] = a; }}\n    [m.len()]\n}}\n\
             fn format(p) {{ \"1\" }}\nfn moves(p) {{ [] }}\nfn play(p, m) {{ p }}\n"
        ),
    )
}

#[test]
fn a_script_is_held_to_the_budget() {
    // Before: 11.4 GB, 8.4 GB with --max-memory 16 (Rhai checks `a` in `m[k] = a`, not `m`,
    // so its per-value limits never saw the map grow).
    // 200,000 elements (3.2 MB) pass `pad`'s check at 16 MiB: the allocation meter stops the
    // call at a quarter of the budget as the map grows.
    let o = run(&["solve", &map_bomb(200_000), "--max-memory", "16"], 16 + 64, Stdio::null());
    refused(&o, "map bomb, 16 MiB", "the script made more than 4 MiB of data in one call");
    // 10^6 elements: 16 bytes each, past a quarter of 16 MiB before `pad` allocates them.
    let o = run(&["solve", &map_bomb(1_000_000), "--max-memory", "16"], 16 + 64, Stdio::null());
    refused(&o, "map bomb, 16 MiB, big array", "`pad` of an array to 1000000 would make about 15 MiB, past a quarter");
    // The default budget: the meter at 256 MiB.
    let o = run(&["solve", &map_bomb(1_000_000)], 1024 + 64, Stdio::null());
    refused(&o, "map bomb, 1 GiB", "the script made more than 256 MiB of data in one call");
    // An ordinary script still plays within the smallest budget.
    let o = run(&["solve", "games/kayles.rhai", "10", "--max-memory", "16"], 16 + 64, Stdio::null());
    assert_eq!(o.code, 0, "{}", o.stderr);
}

#[test]
fn pad_and_blob_are_checked_before_they_allocate() {
    // Rhai's own per-value limits are off (they made building an array of arrays quadratic),
    // so `pad` and `blob`, whose size is a number in the script, are checked before they
    // allocate; they must still do what Rhai's documentation says (the expected values below).
    let script = |name: &str, extra: &str| {
        file(
            name,
            &format!(
                "const NAME = \"pad\";\nconst KIND = \"impartial\";\nconst START = \"2\";\n\
                 fn parse(t) {{ parse_heaps(t) }}\nfn format(h) {{ format_heaps(h) }}\n\
                 fn moves(h) {{ {extra}\n  if h[0] > 0 {{ [1] }} else {{ [] }} }}\nfn play(h, m) {{ [h[0] - 1] }}\n"
            ),
        )
    };
    let same = "let a = [1]; a.pad(3, [7, 8]); if a != [1, [7, 8], [7, 8]] { throw `array ${a}`; }\n\
                let s = \"hello\"; s.pad(11, \"(!)\"); if s != \"hello(!)(!)\" { throw `string ${s}`; }\n\
                s.pad(13, '*'); if s != \"hello(!)(!)**\" { throw `char ${s}`; }\n\
                let e = \"x\"; e.pad(5, \"\"); if e != \"x\" { throw `empty ${e}`; }\n\
                let b = blob(2, 0x142); b.pad(3, 9); if b.len() != 3 || b[0] != 0x42 || b[2] != 9 { throw `blob ${b}`; }";
    let o = run(&["solve", &script("same.rhai", same)], 1024 + 64, Stdio::null());
    assert_eq!(o.code, 0, "{}", o.stderr);
    for (name, call, what) in [
        ("arr.rhai", "let z = []; z.pad(10000000, 0);", "`pad` of an array to 10000000 would make about 152 MiB"),
        ("str.rhai", "let z = \"\"; z.pad(100000000, \"ab\");", "`pad` of a string to 100000000"),
        ("blob.rhai", "let z = blob(100000000);", "`blob` to 100000000 would make about 95 MiB"),
    ] {
        let o = run(&["solve", &script(name, call), "--max-memory", "64"], 64 + 64, Stdio::null());
        refused(&o, name, what);
        assert!(o.stderr.contains(&format!("{name}:6:")), "{name}: the line is named: {}", o.stderr);
    }
}

#[test]
fn parts_that_never_get_smaller_are_refused() {
    // Before: `parts` returning `[h, h]` reached 7 GB (16.5 GB with --max-memory 64 here):
    // every part was split again, a sum frame on a sum frame without end.
    let script = |name: &str, parts: &str| {
        file(
            name,
            &format!(
                "const NAME = \"twice\";\nconst KIND = \"impartial\";\nconst START = \"10\";\n\
                 fn parse(text) {{ parse_heaps(text) }}\nfn format(h) {{ format_heaps(h) }}\n\
                 fn moves(h) {{ if h.len() > 0 && h[0] > 0 {{ [1] }} else {{ [] }} }}\n\
                 fn play(h, m) {{ h[0] -= 1; h }}\nfn parts(h) {{ {parts} }}\n"
            ),
        )
    };
    // The position itself as a part: a mistake in the script, named as such.
    let o = run(&["solve", &script("self.rhai", "[h, h]"), "--max-memory", "64"], 64 + 64, Stdio::null());
    refused(&o, "parts [h, h]", "`parts` gave the position itself as one of its 2 parts");
    // Parts that grow: held to the budget, then a clear error.
    let grow = script("grow.rhai", "let g = h; g.push(1); [g, g]");
    let o = run(&["solve", &grow, "--max-memory", "64"], 64 + 64, Stdio::null());
    refused(&o, "parts that grow", "more than the memory budget");
    assert!(o.max_rss_kib < (64 + 64) << 10, "{} KiB", o.max_rss_kib);
}

// --- 10. Huge positions, large positions ----------------------------------------------

#[test]
fn a_huge_position_file_is_refused_before_it_is_read() {
    // Before: a 1 GiB file of NUL bytes grew to 6.4 GB with --max-memory 16. A sparse file
    // of 256 MiB of NULs (no disk written) against 16 MiB: at most 1 MiB is read.
    let path = file("zeros.txt", "");
    std::fs::File::options().write(true).open(&path).unwrap().set_len(256 << 20).unwrap();
    let o = run(&["solve", "nim", &path, "--max-memory", "16"], 16 + 64, Stdio::null());
    refused(&o, "a 256 MiB position file", "is more than 1 MiB, past the memory budget");
    let stdin = std::fs::File::open(&path).unwrap();
    let o = run(&["solve", "nim", "-", "--max-memory", "16"], 16 + 64, Stdio::from(stdin));
    refused(&o, "256 MiB on stdin", "the position on stdin is more than 1 MiB");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn a_long_bad_position_is_quoted_short() {
    // Before: an error quoting the whole position (128 MiB for a 64 MiB position). Here 4 MiB
    // of `x`, and of NULs (each quoted as 2 characters), to several games.
    let xs = file("xs.txt", &"x".repeat(4 << 20));
    let zs = file("zs.txt", &"\0".repeat(4 << 20));
    for game in ["nim", "kayles", "nimrod", "chomp", "games/nim.ron", "games/kayles.ron", "games/chomp.ron", "connect4"]
    {
        for f in [&xs, &zs] {
            let o = run(&["solve", game, f], 1024 + 64, Stdio::null());
            refused(&o, game, "");
            // The message itself, its 40 quoted characters (or the 2000 a message keeps).
            assert!(o.stderr.len() < 2200, "{game}: {} bytes of error", o.stderr.len());
        }
    }
    // The quote is the helper's: 40 characters, "…", and the length.
    let o = run(&["solve", "nim", &xs], 1024 + 64, Stdio::null());
    assert!(o.stderr.contains(&format!("\"{}\"… ({} bytes)", "x".repeat(40), 4 << 20)), "{}", o.stderr);
}

#[test]
fn a_parallel_analysis_of_large_positions_keeps_to_its_budget() {
    // Chomp on 1000 columns of 9: each position holds 8000 bytes and has 8999 children. The
    // workers used to expand a whole level at once, chunks of 64 such positions each (4.6 GB
    // with --max-memory 256, 6.4 GB with the default 1 GiB). Now the budget is refused, and
    // the peak stays within the budget plus 160 MiB (one position's children, up to half the
    // budget, and the allocator's slack; one thread peaks at the budget plus 50 MiB).
    let start = "9".repeat(1000);
    let ron =
        file("chomp1000.ron", &format!("(name: \"c\", start: \"{start}\", rules: Grid(moves: Chomp, text: Heights))"));
    let o = run(&["analyze", &ron, "--max-memory", "256", "--threads", "2"], 0, Stdio::null());
    refused(&o, "analyze chomp 1000×9", "more than the memory budget");
    let peak_mib = o.max_rss_kib >> 10;
    assert!(peak_mib <= 256 + 160, "peak {peak_mib} MiB with --max-memory 256");
}

// --- 12. A time limit of 1e300 ---------------------------------------------------------

#[test]
fn a_huge_time_limit_is_no_limit() {
    // Before: both panicked (exit 101), converting 1e300 s to a Duration. The contest's
    // contract is a number or -1, exit 0: a limit past a billion seconds is no limit.
    let board = file("bar.pbm", "P1\n3 1\n1 1 1\n");
    for limit in ["1e300", "1e19", "1e9"] {
        let o = run(&["tactix", "--time-limit", limit, &board], 0, Stdio::null());
        assert_eq!((o.code, o.signal), (0, 0), "{limit}: {}", o.stderr);
        // A bar of 3 tokens (runs taken from a row; a column holds one token): its options
        // are a bar of 2 (value mex{1, 0} = 2), 1 + 1 (0), 1 (1) and nothing (0): value 3.
        assert_eq!(o.stdout.trim(), "3", "{limit}: {}", o.stderr);
    }
    // The contest binary reads its arguments with the same function.
    let args = |v: &str| vec!["--time-limit".to_string(), v.to_string()];
    assert_eq!(tactix::parse_args(&args("1e300"), 24).unwrap().1, None);
    assert_eq!(tactix::parse_args(&args("2.5"), 24).unwrap().1, Some(std::time::Duration::from_millis(2500)));
    assert!(tactix::parse_args(&args("inf"), 24).is_err());
}

// --- Saved files that lie or never end -------------------------------------------------
//
// Tic-tac-toe (games/tictactoe.ron) saves by tiers: one folder, an `identity` file and a
// `.tier` file a tier. The truth it must give back: the empty board is a tie in 9 (every
// square played), whatever is done to its files.

/// Run `cmd` to its end, or kill it after `secs` seconds (a hang is a failure, reported,
/// never waited out); its peak resident memory too.
fn run_cmd(cmd: std::process::Command, secs: u64) -> Outcome {
    common::run_measured(&cmd, Stdio::null(), 0, secs)
}

/// `gamesman ARGS` with `env`, killed after 60 s.
fn gm(args: &[&str], env: &[(&str, &std::path::Path)]) -> Outcome {
    let mut cmd = common::bin();
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_cmd(cmd, 60)
}

/// A fresh tier save of tic-tac-toe in `dir` (its path as text).
fn ttt_save(name: &str) -> (PathBuf, String) {
    let dir = common::temp_dir(name).join("ttt.tiers");
    let db = dir.display().to_string();
    let o = gm(&["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db], &[]);
    assert_eq!((o.code, o.signal), (0, 0), "{}", o.stderr);
    assert!(dir.join("identity").is_file() && dir.join(ROOT_TIER).is_file(), "a tier save in {db}");
    (dir, db)
}

/// The tier of tic-tac-toe's empty board (no piece placed), in tictactoe.ron and notakto.ron.
const ROOT_TIER: &str = "0000000030318000.tier";

/// The answer is tic-tac-toe's truth: a tie in 9.
fn ttt_is_a_tie_in_9(o: &Outcome, what: &str) {
    assert_eq!((o.code, o.signal), (0, 0), "{what}: {}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("value:       tie") && o.stdout.contains("remoteness:  9"), "{what}: {}", o.stdout);
}

/// The `gamesman …` command an error suggests (between backticks), run as written: it works.
fn run_suggested(err: &str) {
    let cmd = err.split('`').nth(1).unwrap_or_else(|| panic!("no command suggested: {err}"));
    let words: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(words[0], "gamesman", "{cmd}");
    let o = gm(&words[1..], &[]);
    assert_eq!((o.code, o.signal), (0, 0), "`{cmd}` as suggested: {}{}", o.stdout, o.stderr);
}

/// A hostile file: what it is, how the test makes it, what the refusal says.
type Case<'a> = (&'a str, &'a dyn Fn(&std::path::Path), &'a str);

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

#[test]
fn an_identity_file_that_never_ends_is_refused() {
    // Before: a FIFO hung every command; a sparse 3 GiB file took 3 GB of memory, a link to
    // /dev/zero grew until memory ran out.
    let (dir, db) = ttt_save("identity-fifo");
    let id = dir.join("identity");
    let sparse = |p: &std::path::Path| std::fs::File::create(p).unwrap().set_len(3 << 30).unwrap();
    let fifo = |p: &std::path::Path| mkfifo(p);
    let zero = |p: &std::path::Path| std::os::unix::fs::symlink("/dev/zero", p).unwrap();
    let cases: [Case; 3] = [
        ("a FIFO", &fifo, "not a regular file"),
        ("a sparse 3 GiB file", &sparse, "3221225472 bytes, more than the 4096"),
        ("a link to /dev/zero", &zero, "not a regular file"),
    ];
    for (what, make, needle) in cases {
        std::fs::remove_file(&id).unwrap();
        make(&id);
        for args in [
            vec!["solve", "tictactoe.ron", "--db", &db],
            vec!["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db],
        ] {
            let o = gm(&args, &[]);
            refused(&o, what, needle);
            assert!(o.max_rss_kib < 100 << 10, "{what}: {} KiB resident", o.max_rss_kib);
            // The advice works as written: the identity file goes, and a save makes it anew.
            run_suggested(&o.stderr);
            ttt_is_a_tie_in_9(&gm(&["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db], &[]), what);
            std::fs::remove_file(&id).unwrap();
            make(&id);
        }
    }
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

/// The header of a tier file (format GMTIER04): the record count at 16, the block count at
/// 28, the block table from 68 (16 bytes a block), then the header's CRC-32.
fn lie_about_records(file: &[u8], records: u64) -> Vec<u8> {
    assert_eq!(&file[..8], b"GMTIER04");
    let blocks = u32::from_le_bytes(file[28..32].try_into().unwrap()) as usize;
    assert_eq!(blocks, 1, "tic-tac-toe's tiers are one block each");
    let entry = &file[68..84];
    let n = records.div_ceil(1 << 17);
    let mut head = file[..68].to_vec();
    head[16..24].copy_from_slice(&records.to_le_bytes());
    head[28..32].copy_from_slice(&(n as u32).to_le_bytes());
    let body = &file[68 + 16 + 4..];
    let at = 68 + n as usize * 16 + 4;
    // Every block the same one (at its new offset), its checksum valid.
    for _ in 0..n {
        head.extend_from_slice(&(at as u64).to_le_bytes());
        head.extend_from_slice(&entry[8..]);
    }
    let crc = crc32fast::hash(&head);
    head.extend_from_slice(&crc.to_le_bytes());
    head.extend_from_slice(body);
    head
}

#[test]
fn a_tier_header_that_lies_about_its_size_is_refused_before_it_allocates() {
    // Before: 2^32 records aborted analyze and export (an allocation of 8 GiB failed); 2^30
    // took 2.1 GB under --max-memory 64 before the refusal; then the lookup of the root read
    // the header without the tier's size and called the file only "damaged".
    let (dir, db) = ttt_save("tier-lies");
    let path = dir.join(ROOT_TIER);
    let good = std::fs::read(&path).unwrap();
    for records in [1u64 << 32, 1 << 30] {
        let bad = lie_about_records(&good, records);
        assert!(bad.len() < 600_000, "a file of {} bytes", bad.len());
        std::fs::write(&path, &bad).unwrap();
        for cmd in ["analyze", "export"] {
            let o = gm(&[cmd, "tictactoe.ron", "--db", &db, "--max-memory", "64"], &[]);
            // Refused, one line naming the file and the mismatch: the tier of the empty board
            // holds that one board (C(9, 0) = 1), whatever the header says.
            refused(&o, cmd, &format!("{ROOT_TIER}: the database is damaged"));
            refused(&o, cmd, &format!("it holds {records} records, the game says 1)"));
            assert!(o.max_rss_kib < (64 << 10) * 11 / 10, "{cmd}: {} KiB resident", o.max_rss_kib);
        }
    }
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn a_tier_of_another_game_is_refused_and_a_save_repairs_it() {
    // Before: notakto's tier of the empty board in tic-tac-toe's save (the same tier, the
    // same size) answered "value: win, remoteness: 6, winning moves: none".
    let (dir, db) = ttt_save("tier-foreign");
    let nt = common::temp_dir("tier-foreign-notakto").join("nt.tiers");
    let o = gm(&["solve", "notakto.ron", "--save", "--no-pack", "--db", nt.to_str().unwrap()], &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    std::fs::copy(nt.join(ROOT_TIER), dir.join(ROOT_TIER)).unwrap();
    let o = gm(&["solve", "tictactoe.ron", "--db", &db], &[]);
    refused(&o, "notakto's tier", "the file of another game");
    assert!(!o.stdout.contains("win"), "{}", o.stdout);
    // A save checks the tiers it finds and solves a bad one again.
    let o = gm(&["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db], &[]);
    ttt_is_a_tie_in_9(&o, "the save over it");
    assert!(o.stderr.contains("solving the tier again"), "{}", o.stderr);
    ttt_is_a_tie_in_9(&gm(&["solve", "tictactoe.ron", "--db", &db], &[]), "after the save");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    let _ = std::fs::remove_dir_all(nt.parent().unwrap());
}

#[test]
fn an_answer_that_contradicts_its_children_is_refused() {
    use gamesman::db::array::{decode_tier, encode_tier, rec, unrec};
    use gamesman::game::Value;
    // A tier file that is ours in every check (identity, size, checksums) but says the empty
    // board is a win in 6, while every child it lists is saved as a tie.
    let (dir, db) = ttt_save("tier-contradiction");
    let path = dir.join(ROOT_TIER);
    let identity = std::fs::read_to_string(dir.join("identity")).unwrap();
    let tier = u64::from_str_radix(ROOT_TIER.trim_end_matches(".tier"), 16).unwrap();
    let mut records = decode_tier(&std::fs::read(&path).unwrap(), tier, identity.trim()).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(unrec(records[0]), Some((Value::Tie, Some(9))), "the saved truth");
    records[0] = rec(Value::Win, 6);
    std::fs::write(&path, encode_tier(tier, identity.trim(), &records).unwrap()).unwrap();
    let o = gm(&["solve", "tictactoe.ron", "--db", &db], &[]);
    refused(&o, "a win with no winning move", "no move to a lost position");
    assert!(o.stderr.contains("damaged") && !o.stdout.contains("win"), "{}{}", o.stdout, o.stderr);
    // As suggested: remove the save, and save again.
    run_suggested(&o.stderr);
    assert!(!dir.exists());
    ttt_is_a_tie_in_9(&gm(&["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db], &[]), "saved again");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn a_damaged_tier_is_removed_as_advised_or_repaired_by_a_save() {
    // Before: the advice `gamesman db rm …/X.tier` answered "a game is a .rhai script or a
    // .ron descriptor", and `--save` printed "saved" with the damage still there.
    let (dir, db) = ttt_save("tier-advice");
    let path = dir.join(ROOT_TIER);
    let good = std::fs::read(&path).unwrap();
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x40;
    for repair in ["db rm", "save"] {
        std::fs::write(&path, &bad).unwrap();
        let o = gm(&["solve", "tictactoe.ron", "--db", &db], &[]);
        refused(&o, "a damaged block", "block 0 fails its checksum");
        if repair == "db rm" {
            run_suggested(&o.stderr);
            assert!(!path.exists(), "the tier's file is removed");
        }
        ttt_is_a_tie_in_9(&gm(&["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db], &[]), repair);
        assert_eq!(std::fs::read(&path).unwrap(), good, "{repair}: the tier solved again");
        ttt_is_a_tie_in_9(&gm(&["solve", "tictactoe.ron", "--db", &db], &[]), repair);
    }
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn a_file_size_limit_is_a_clear_error_and_leaves_no_partial_file() {
    // Before: `ulimit -f` killed a tier save by SIGXFSZ, with no message, and its
    // `.tier.PID.tmp` stayed, even after a later complete save.
    let dir = common::temp_dir("tier-ulimit").join("ttt.tiers");
    let db = dir.display().to_string();
    // The save's folder and identity made first (stopped before its first tier), so that the
    // limit of no bytes at all stops the first tier's file.
    let o = gm(&["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db], &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "tier") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let mut cmd = std::process::Command::new("sh");
    cmd.current_dir(common::root()).args([
        "-c",
        "ulimit -f 0; exec \"$0\" solve tictactoe.ron --save --no-pack --db \"$1\"",
        env!("CARGO_BIN_EXE_gamesman"),
        &db,
    ]);
    let o = run_cmd(cmd, 60);
    refused(&o, "ulimit -f 0", "File too large");
    let tmp = |d: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    };
    assert_eq!(tmp(&dir), Vec::<String>::new(), "no partial file left");
    // A partial file left by a process that no longer runs (a kill, a power cut): swept.
    let stale = dir.join(format!("{ROOT_TIER}.999999999.tmp"));
    std::fs::write(&stale, b"half a tier").unwrap();
    ttt_is_a_tie_in_9(&gm(&["solve", "tictactoe.ron", "--save", "--no-pack", "--db", &db], &[]), "the save after");
    assert_eq!(tmp(&dir), Vec::<String>::new(), "the stale file is swept");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn an_endgame_table_that_never_ends_is_not_read() {
    // Before: a FIFO where Cram's endgame table is found by name hung `solve cram.ron 4x5`
    // (no flag needed); a sparse 2 GiB table took 2.1 GB under --max-memory 64.
    let cache = common::temp_dir("cram-table");
    let env = [("XDG_CACHE_HOME", cache.as_path())];
    let args = ["solve", "cram.ron", "4x5", "--no-remoteness", "--max-memory", "64"];
    // The answer without any table (an empty cache): what every run below must give.
    // The answer: the value, the Grundy value and the winning moves (not the count of
    // positions visited, which a table changes, nor the time).
    let answer = |o: &Outcome| -> String {
        o.stdout
            .lines()
            .filter(|l| !l.starts_with("visited:") && !l.starts_with("time:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let plain = gm(&args, &env);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert!(plain.stdout.contains("grundy:"), "{}", plain.stdout);
    let o = gm(&[&args[..], &["--endgame", "4x3"]].concat(), &env);
    assert_eq!((o.code, answer(&o)), (0, answer(&plain)), "{}", o.stderr);
    let dir = cache.join("gamesman");
    let table = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "parts"))
        .expect("the table saved");
    // The saved table is used by name, with no flag.
    let o = gm(&args, &env);
    assert!(o.stderr.contains("is used"), "{}", o.stderr);
    let sparse = |p: &std::path::Path| std::fs::File::create(p).unwrap().set_len(2 << 30).unwrap();
    let fifo = |p: &std::path::Path| mkfifo(p);
    let cases: [Case; 2] =
        [("a FIFO", &fifo, "not a regular file"), ("a sparse 2 GiB file", &sparse, "2147483648 bytes, more than")];
    for (what, make, needle) in cases {
        std::fs::remove_file(&table).unwrap();
        make(&table);
        let o = gm(&args, &env);
        assert_eq!((o.code, o.signal), (0, 0), "{what}: {}", o.stderr);
        assert_eq!(answer(&o), answer(&plain), "{what}: the answer without the table");
        assert!(o.stderr.contains(needle) && o.stderr.contains("not used"), "{what}: {}", o.stderr);
        assert!(o.max_rss_kib < (64 << 10) * 11 / 10, "{what}: {} KiB resident", o.max_rss_kib);
    }
    let _ = std::fs::remove_dir_all(&cache);
}

// --- Budgets that hold for every command -------------------------------------------------

/// Peak resident KiB of a run that does almost nothing: the process's own baseline.
fn baseline_kib() -> i64 {
    let o = run(&["solve", "hanoi", "--no-db"], 0, Stdio::null());
    assert_eq!(o.code, 0, "{}", o.stderr);
    o.max_rss_kib
}

/// The run held `budget_mib` within 10% above the process's baseline.
fn held(o: &Outcome, what: &str, budget_mib: i64, base_kib: i64) {
    let most = budget_mib * 1024 * 11 / 10 + base_kib;
    assert!(o.max_rss_kib <= most, "{what}: peak {} KiB, more than {most} KiB", o.max_rss_kib);
}

#[test]
fn the_puzzle_search_keeps_to_its_budget() {
    // Before: the search counted 40 bytes a position in its hash table, which holds 33 bytes
    // a bucket, 8/7 buckets an entry, and twice that while it grows (its old and new tables
    // at once): peg solitaire on 7×15 peaked at 510 MB with --max-memory 256. A board of
    // 104 pegs has far more positions than 64 MiB holds, and its search reaches them fast.
    let rows: Vec<String> =
        (0..7).map(|r| (0..15).map(|c| if (r, c) == (3, 7) { '.' } else { 'x' }).collect()).collect();
    let ron = file(
        "jump7x15.ron",
        &format!(
            "(name: \"jump\", start: \"{}\", rules: Board(size: \"7x15\", moves: Jump, ends: [Left(1)]))",
            rows.join("/")
        ),
    );
    let base = baseline_kib();
    let o = run(&["solve", &ron, "--no-db", "--max-memory", "64"], 0, Stdio::null());
    refused(&o, "jump 7×15 in 64 MiB", "memory budget");
    held(&o, "jump 7×15 in 64 MiB", 64, base);
}

#[test]
fn sequence_keeps_to_a_memory_budget_and_a_time_limit() {
    // Before: `sequence` took neither flag, and 0.16 (no period known) grew 5.6 MB/s until
    // an allocation failed (SIGABRT). Its values are 4 bytes a heap.
    let base = baseline_kib();
    let t = std::time::Instant::now();
    let o = run(&["sequence", "0.16", "--to", "1000000000000", "--quiet", "--max-memory", "16"], 0, Stdio::null());
    refused(&o, "sequence 0.16 in 16 MiB", "memory budget");
    held(&o, "sequence 0.16 in 16 MiB", 16, base);
    assert!(t.elapsed() < std::time::Duration::from_secs(30), "{:?}", t.elapsed());
    let t = std::time::Instant::now();
    let o = run(&["sequence", "0.16", "--to", "1000000000000", "--quiet", "--time-limit", "1"], 0, Stdio::null());
    refused(&o, "sequence 0.16 for 1 s", "time limit");
    // The limit and a tenth, and the start and the end of the process.
    assert!(t.elapsed() < std::time::Duration::from_millis(2500), "{:?}", t.elapsed());
    // A script's values: refused before any work when they alone pass the budget (4 bytes a
    // heap, twice: 10^8 heaps are 763 MiB).
    let o = run(&["sequence", "games/kayles.rhai", "--to", "100000000", "--max-memory", "16"], 0, Stdio::null());
    refused(&o, "kayles.rhai to 10^8 in 16 MiB", "memory budget");
}

#[test]
fn a_tier_board_too_big_for_the_budget_is_refused_at_once() {
    // Before: the whole tier graph was walked before any tier was checked against the
    // budget: 64 cells and 6 kinds are C(70, 6) = 131 million tiers (past 570 MB under
    // --max-memory 256, no answer in 45 s). The walk meets a tier of more than 2^32
    // positions within 40 steps (33 pieces of one kind on 64 cells: C(64, 33) > 2^60).
    let script = file(
        "board64.rhai",
        r#"const NAME = "board64";
const KIND = "partisan";
const START = "................................................................";
fn parse(text) { text }
fn format(b) { b }
fn primitive(b) { if !b.contains('.') { return "tie"; } () }
fn moves(b) { let out = []; for i in 0..64 { if b[i] == '.' { out.push(i); } } out }
fn play(b, i) { b[i] = "abcdef"[(64 - b.count('.')) % 6]; b }
const TIER_BOARD = #{ cells: 64, kinds: ["a", "b", "c", "d", "e", "f"], text: true };
"#,
    );
    let cache = common::temp_dir("hostile-board64");
    let t = std::time::Instant::now();
    let mut cmd = common::bin();
    let out = cmd
        .args(["solve", &script, "--save", "--no-pack", "--max-memory", "256", "--time-limit", "20"])
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("tier") && err.contains("positions"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(t.elapsed() < std::time::Duration::from_secs(3), "refused after {:?}: {err}", t.elapsed());
    let _ = std::fs::remove_dir_all(&cache);
}

// --- Definitions that lie ------------------------------------------------------------------

#[test]
fn a_false_symmetry_of_a_tier_board_is_reported_naming_it() {
    // Before: a permutation that is no symmetry of tic-tac-toe (cells 0 and 1 swapped) made
    // the empty board a win in 7, saved. Swapping cells 0 and 1 maps a column of three
    // (cells 0, 3, 6: the game over) onto cells 1, 3, 6 (no line): the spot-check of a
    // position against its images sees it.
    let text = std::fs::read_to_string(common::root().join("tests/games/tictactoe_text.rhai")).unwrap();
    let from = text.find("const SYMMETRIES = [").unwrap();
    let to = from + text[from..].find("];").unwrap() + 2;
    let save = |name: &str, symmetries: &str| {
        let script = file(name, &format!("{}const SYMMETRIES = [{symmetries}];{}", &text[..from], &text[to..]));
        let cache = common::temp_dir(&format!("hostile-{name}"));
        let out = common::bin()
            .args(["solve", &script, "--save", "--no-pack"])
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&cache);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{name}: {}{err}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        err
    };
    let err = save("false_symmetry.rhai", "[0,1,2,3,4,5,6,7,8], [1,0,2,3,4,5,6,7,8]");
    assert!(err.contains("TIER_BOARD's symmetries[1] is not a symmetry of the game's rules"), "{err}");
    // A list that is not a group (the square's 8 and that swap) has no one least image:
    // refused as it is declared.
    let square = "[0,1,2,3,4,5,6,7,8], [2,5,8,1,4,7,0,3,6], [8,7,6,5,4,3,2,1,0], [6,3,0,7,4,1,8,5,2], \
                  [2,1,0,5,4,3,8,7,6], [6,7,8,3,4,5,0,1,2], [0,3,6,1,4,7,2,5,8], [8,5,2,7,4,1,6,3,0]";
    let err = save("not_a_group.rhai", &format!("{square}, [1,0,2,3,4,5,6,7,8]"));
    assert!(err.contains("`symmetries` must list every symmetry"), "{err}");
    // The square's own 8 still solve (the empty board: a tie in 9).
    let script = file("square.rhai", &format!("{}const SYMMETRIES = [{square}];{}", &text[..from], &text[to..]));
    let cache = common::temp_dir("hostile-square");
    let out =
        common::bin().args(["solve", &script, "--save", "--no-pack"]).env("XDG_CACHE_HOME", &cache).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = common::bin().args(["solve", &script]).env("XDG_CACHE_HOME", &cache).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("tie") && said.contains("9"), "{said}");
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn heap_options_that_lie_past_the_first_heaps_are_reported() {
    // Before: only heaps 0 to 23 were checked, so a `heap_options` that forgets the splits
    // past heap 30 printed its own values (g(50) = 5 where the moves give 0, by hand: a
    // row of 50 pins is a P-position of Kayles, period 12 from n = 71 and the listed
    // exceptions below it).
    let text = std::fs::read_to_string(common::root().join("games/kayles.rhai")).unwrap();
    let lie = text.replacen("out.push(splits(n - take));", "if n <= 30 { out.push(splits(n - take)); }", 1);
    assert_ne!(lie, text, "heap_options is where the test expects it");
    let script = file("lying_kayles.rhai", &lie);
    let o = run(&["sequence", &script, "--to", "50"], 0, Stdio::null());
    refused(&o, "kayles lying past 30", "heap_options disagrees with moves + play at heap");
    // The truthful script still gives Kayles' values (the octal engine's, 0.77).
    let o = run(&["sequence", "games/kayles.rhai", "--to", "50"], 0, Stdio::null());
    let by_code = run(&["sequence", "0.77", "--to", "50"], 0, Stdio::null());
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows = |s: &str| {
        s.lines()
            .filter(|l| l.contains(':') && l.trim_start().starts_with(char::is_numeric))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&o.stdout), rows(&by_code.stdout));
}

/// A tier save's `meta` file (what `db info` prints) that never ends: `db info` still answers
/// (from the save's own files), and does not wait on it.
#[test]
fn a_meta_file_that_never_ends_is_not_read() {
    let (dir, db) = ttt_save("meta-fifo");
    let meta = dir.join("meta");
    std::fs::remove_file(&meta).unwrap();
    mkfifo(&meta);
    let o = gm(&["db", "info", &db], &[]);
    assert_eq!((o.code, o.signal), (0, 0), "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("a tier save"), "{}", o.stdout);
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

// --- analyze's memory estimate -----------------------------------------------------------

/// `analyze` reports its peak memory: the program's resident memory as the count began
/// (measured) and the largest set of arrays it held at once (counted from their sizes). It
/// is within a quarter of the peak measured from outside (the kernel's high-water mark) on a
/// descriptor game (Connect-4 on 4×4), a puzzle explored on keys (the 8-puzzle: 181,440
/// positions) and a script (4×4 Othello: 62,789 positions).
#[test]
fn analyze_estimates_its_peak_memory_within_a_quarter() {
    let cases: [&[&str]; 3] =
        [&["connect4.ron", "4x4"], &["8-puzzle.ron"], &["tests/games/othello4.rhai", "--threads", "1"]];
    for args in cases {
        let o = gm(&[&["analyze"], args, &["--no-db", "--json"]].concat(), &[]);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
        let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        let estimate = j["memory_bytes"].as_u64().unwrap() / 1024;
        let peak = o.max_rss_kib as u64;
        assert!(
            estimate.abs_diff(peak) * 4 <= peak,
            "{args:?}: estimated {estimate} KiB ({}), measured {peak} KiB",
            j["memory"]
        );
    }
}
