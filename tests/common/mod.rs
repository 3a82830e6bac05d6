//! Shared helpers for the integration tests.
#![allow(dead_code)]

use gamesman::descriptor::DescriptorGame;
use gamesman::game::{Game, Misere};
use gamesman::script::ScriptGame;
use gamesman::solve::{Analyzer, Options, Report};
use std::path::PathBuf;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The records of `tests/data/NAME.jsonl` (copied from the shared reference vectors).
pub fn cases(name: &str) -> Vec<serde_json::Value> {
    let path = root().join("tests/data").join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("valid JSON line")).collect()
}

/// A shipped game script.
pub fn game(name: &str) -> ScriptGame {
    ScriptGame::load(&root().join("games").join(format!("{name}.rhai"))).unwrap_or_else(|e| panic!("{e}"))
}

/// A shipped RON descriptor.
pub fn descriptor(name: &str) -> DescriptorGame {
    DescriptorGame::load(&root().join("games").join(format!("{name}.ron"))).unwrap_or_else(|e| panic!("{e}"))
}

/// Kayles (octal game 0.77): the nim-sequence published in Winning Ways (Berlekamp, Conway
/// and Guy, ch. 4) and OEIS A002186, rows of 12; from n = 72 on it is periodic with the last
/// row's period 12.
pub const KAYLES: [[u64; 12]; 7] = [
    [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6],
    [4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7],
    [4, 1, 2, 8, 5, 4, 7, 2, 1, 8, 6, 7],
    [4, 1, 2, 3, 1, 4, 7, 2, 1, 8, 2, 7],
    [4, 1, 2, 8, 1, 4, 7, 2, 1, 4, 2, 7],
    [4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 6, 7],
    [4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 2, 7],
];

pub fn kayles(n: usize) -> u64 {
    KAYLES[(n / 12).min(6)][n % 12]
}

/// A test-only game script from `tests/games`.
pub fn test_game(name: &str) -> ScriptGame {
    ScriptGame::load(&root().join("tests/games").join(format!("{name}.rhai"))).unwrap_or_else(|e| panic!("{e}"))
}

pub fn solve<G: Game>(game: &G, position: &str, remoteness: bool) -> Report {
    let pos = game.parse(position).unwrap_or_else(|e| panic!("{position}: {e}"));
    let opts = Options { remoteness, ..Options::default() };
    Analyzer::new(game, opts).solve(&pos).unwrap_or_else(|e| panic!("{position}: {e}"))
}

pub fn solve_misere(game: ScriptGame, position: &str) -> Report {
    solve(&Misere::new(game), position, true)
}

/// The `gamesman` binary.
pub fn bin() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gamesman"));
    c.current_dir(root());
    // Never the user's saved databases: a test that wants one names it with --db.
    c.env("XDG_CACHE_HOME", root().join("target/test-cache-never-written"));
    c
}

/// A fresh empty directory for one test's files.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gamesman-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Run `gamesman ARGS` with `input` on stdin: (exit code, stdout, stderr).
pub fn run_in(args: &[&str], input: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = bin()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("gamesman runs");
    // The game may end before it has read everything: a closed pipe is fine.
    let _ = child.stdin.take().expect("piped").write_all(input.as_bytes());
    let out = child.wait_with_output().expect("gamesman finishes");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The error a descriptor is refused with (loaded as `file`); panics if it is accepted.
pub fn descriptor_error(file: &str, src: &str) -> String {
    match DescriptorGame::from_source(file, src, None) {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(e) => e.to_string(),
    }
}

/// Give the child `cmd` starts at most `mib` MiB of address space (`RLIMIT_AS`): a run that
/// goes past it fails to allocate, which a test of memory budgets sees.
#[cfg(target_os = "linux")]
pub fn limit_address_space(cmd: &mut std::process::Command, mib: u64) {
    use std::os::unix::process::CommandExt;
    let limit = (mib << 20) as libc::rlim_t;
    // SAFETY: setrlimit is async-signal-safe, and the closure touches nothing else.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A position's value and remoteness as an independent solver (tests/oracles/) wrote it.
pub struct Known {
    pub position: String,
    pub value: gamesman::game::Value,
    pub remoteness: Option<u32>,
}

/// The lines of an oracle's JSONL file (`{"position", "value", "remoteness"}` a line).
pub fn known(text: &str) -> Vec<Known> {
    use gamesman::game::Value;
    text.lines()
        .map(|line| {
            let j: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let value = match j["value"].as_str().expect("a value") {
                "win" => Value::Win,
                "lose" => Value::Lose,
                "tie" => Value::Tie,
                "draw" => Value::Draw,
                other => panic!("value {other}"),
            };
            Known {
                position: j["position"].as_str().expect("a position").to_string(),
                value,
                remoteness: j["remoteness"].as_u64().map(|r| r as u32),
            }
        })
        .collect()
}

/// Ask a session with a saved database for each known position: each must be answered from
/// the database; returns the disagreements with the oracle, one line each.
pub fn disagreements_from_database<'a>(
    s: &mut dyn gamesman::catalog::Session,
    known: impl IntoIterator<Item = &'a Known>,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for k in known {
        assert_eq!(s.source(&k.position).unwrap(), "database", "{}", k.position);
        let (sol, _) = s.value(&k.position).expect("a value");
        if (sol.value, sol.remoteness) != (k.value, k.remoteness) {
            wrong.push(format!(
                "{}: {:?} {:?}, oracle {:?} {:?}",
                k.position, sol.value, sol.remoteness, k.value, k.remoteness
            ));
        }
    }
    wrong
}

/// Every file of a directory (a save's) but its `meta`, by name, with its bytes: two saves compared.
pub fn files(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // Not a save's `meta`, which holds the time it was made.
        .filter(|p| p.file_name().is_some_and(|n| n != "meta"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// How a child run ended, what it wrote, and its own peak resident memory.
pub struct Outcome {
    pub code: i32,
    pub signal: i32,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident memory of the child alone, in KiB.
    pub max_rss_kib: i64,
}

/// The runner [`run_measured`] starts the child through: a small Python process forks and
/// execs the program (with the default actions of SIGPIPE and SIGXFSZ, which Python
/// ignores), sets its address-space limit first where one is given, and writes the
/// child's exit status and `ru_maxrss` to a file. A child started straight from this test
/// process would count this process's memory (it shares it until exec) into its own peak.
const MEASURE: &str = r#"
import os, resource, signal, sys
limit, out = int(sys.argv[1]), sys.argv[2]
pid = os.fork()
if pid == 0:
    try:
        for s in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(s, signal.SIG_DFL)
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.execvp(sys.argv[3], sys.argv[3:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(f"{status} {usage.ru_maxrss}")
"#;

/// Run `cmd` (its program, arguments, environment and folder) with `stdin`, within
/// `limit_mib` MiB of address space (none for 0), to its end or killed after `secs` seconds
/// (a hang fails the test, reported, never waited out).
#[cfg(target_os = "linux")]
pub fn run_measured(cmd: &std::process::Command, stdin: std::process::Stdio, limit_mib: u64, secs: u64) -> Outcome {
    use std::io::Read;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::process::Stdio;
    use std::sync::atomic::{AtomicU64, Ordering};
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let report = std::env::temp_dir().join(format!(
        "gamesman-measure-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let mut py = std::process::Command::new("python3");
    py.arg("-c").arg(MEASURE).arg((limit_mib << 20).to_string()).arg(&report).arg(cmd.get_program());
    py.args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => py.env(k, v),
            None => py.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        py.current_dir(dir);
    }
    py.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let mut child = py.spawn().expect("python3 runs");
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let (o, e) = (reader(Box::new(child.stdout.take().unwrap())), reader(Box::new(child.stderr.take().unwrap())));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            // SAFETY: kills the process group this runner leads (it and the program).
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.wait();
            panic!("{cmd:?} hung: killed after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    let (stdout, stderr) = (o.join().unwrap(), e.join().unwrap());
    let mut fields = text.split_whitespace().map(|f| f.parse::<i64>().expect("a number"));
    let (Some(status), Some(rss)) = (fields.next(), fields.next()) else {
        panic!("the runner did not report on {cmd:?}: {stderr}");
    };
    let st = std::process::ExitStatus::from_raw(status as i32);
    Outcome { code: st.code().unwrap_or(-1), signal: st.signal().unwrap_or(0), stdout, stderr, max_rss_kib: rss }
}
