#!/usr/bin/env python3
"""The benchmark table: each workload measured ours beside its peer, in one sitting.

    python3 scripts/benchmarks.py [--gamesman PATH] [--runs N] [--only NAME[,NAME...]]
                                  [--write docs/benchmarks.md] [--list]

Our binary: --gamesman PATH (default target/release/gamesman); the TacTix battery's contest
binary: --contest PATH (default target/release/contest). Peers, from the environment (a row
whose peer is missing or fails prints "—" for it with the reason; the script goes on):

    GAMESMAN_ONE  GamesmanOne's binary, run in its own folder (its --data-path must be
                  relative), e.g. /tmp/bench/peers/GamesmanOne/bin/gamesman
    IGSOLVE       beling/impartial-games' igsolve, e.g. .../target/release/igsolve
    TACTIX_PEER   the plain C TacTix solver (gcc -O2 -std=c99 tactix_peer.c)
    PYTHON        the interpreter for bench/python/*.py (default: python3)

Each row runs ours, peer, ours, peer... N times (--runs, default 3; some rows fewer, as the
row says), each a whole process: CPU-seconds user + system from os.wait4, peak RSS from
/usr/bin/time (wait4's own starts at this Python's), wall. The figure is the best (least) CPU of the runs; the ratio is ours / peer (under 1: ours
takes less). Where both save a database, its size (the sum of its files) is given too. The
answers (value, remoteness, nimber, positions) of ours and the peer are compared and a
mismatch is printed loudly. The table is Markdown, on stdout or into the --write file, whose
text above the table's marker line is kept.
"""
import argparse
import datetime
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "<!-- table: written by scripts/benchmarks.py -->"
DASH = "—"
TIME = "/usr/bin/time"


def loads():
    """`uptime`'s load averages (1, 5, 15 minutes)."""
    try:
        with open("/proc/loadavg") as f:
            return ", ".join(f.read().split()[:3])
    except OSError:
        return "?"


def load():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return float("nan")


class Run:
    def __init__(self, cpu, rss_kb, wall, out, rc, timed_out):
        self.cpu, self.rss_kb, self.wall, self.out = cpu, rss_kb, wall, out
        self.rc, self.timed_out = rc, timed_out


def measure(cmd, cwd=ROOT, env=None, timeout=None, stdin=None):
    """Run cmd (a list) as one process; its CPU (user + sys), peak RSS and output."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    # Peak RSS from /usr/bin/time: wait4's ru_maxrss of a child forked from this Python
    # starts at Python's own RSS (kept across exec), /usr/bin/time's at a megabyte or two.
    peak_file = tempfile.NamedTemporaryFile(prefix="bench-peak-", delete=False)
    peak_file.close()
    if timeout is not None and shutil.which("timeout"):
        # coreutils' timeout waits for what it kills (so its CPU is counted); --foreground:
        # it signals the command alone, not its process group (/usr/bin/time and itself).
        cmd = ["timeout", "--foreground", "-s", "KILL", str(timeout)] + cmd
    if os.access(TIME, os.X_OK):
        cmd = [TIME, "-f", "%M", "-o", peak_file.name] + cmd
    with tempfile.TemporaryFile() as out, open(stdin or os.devnull, "rb") as inp:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdin=inp, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if timeout is not None and time.monotonic() - start > timeout + 10:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(0.002)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        timed_out = timed_out or (timeout is not None and proc.returncode in (124, 137))
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    peak = ru.ru_maxrss
    try:
        with open(peak_file.name) as f:
            lines = f.read().split()
        if lines and lines[-1].isdigit():
            peak = int(lines[-1])
    finally:
        os.unlink(peak_file.name)
    return Run(ru.ru_utime + ru.ru_stime, peak, wall, text, proc.returncode, timed_out)


def dir_bytes(path):
    total = 0
    for base, _, files in os.walk(path):
        for f in files:
            p = os.path.join(base, f)
            if os.path.isfile(p) and not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def grab(pattern, text, default=None):
    m = re.search(pattern, text, re.M)
    return m.group(1) if m else default


def fmt_cpu(s):
    return f"{s:.2f}" if s >= 0.1 else f"{s:.3f}"


def fmt_ratio(x):
    return f"{x:.2f}" if x >= 0.1 else f"{x:.2g}"


def fmt_mb(kb):
    return f"{kb / 1024:.0f} MB" if kb >= 10240 else f"{kb / 1024:.1f} MB"


class Side:
    """What one side of a row measured: its runs, and its answer (a string) or why not."""

    def __init__(self):
        self.runs, self.answer, self.missing, self.db = [], None, None, None

    def best(self):
        return min(r.cpu for r in self.runs)

    def cell(self):
        if self.missing:
            return f"{DASH} ({self.missing})"
        peak = max(r.rss_kb for r in self.runs)
        db = f", db {self.db:,} B" if self.db is not None else ""
        return f"{fmt_cpu(self.best())} CPU-s, {fmt_mb(peak)}{db}; {self.answer}"


# --- the workloads ---------------------------------------------------------------------
# Each returns a function run(side) -> Run that measures once and sets side.answer (and
# side.db); a missing peer raises Missing with the reason.

class Missing(Exception):
    pass


def need(var, what):
    path = os.environ.get(var)
    if not path:
        raise Missing(f"{var} not set: {what}")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise Missing(f"{var}={path} is not an executable")
    return path


def python():
    return os.environ.get("PYTHON", "python3")


def ours(args, answer, **kw):
    def run(opts, side):
        r = measure([opts.gamesman] + args, **kw)
        if r.rc != 0:
            raise RuntimeError(f"gamesman {' '.join(args)}: exit {r.rc}: {r.out[-300:]}")
        side.answer = answer(r.out)
        return r
    return run


def value_of(out):
    v, rem, g = grab(r"^value:\s+(\S+)", out), grab(r"^remoteness:\s+(\d+)", out), grab(r"^grundy:\s+(\d+)", out)
    return v + (f" in {rem}" if rem else "") + (f", nimber {g}" if g else "")


def nimber_of(out):
    return "nimber " + grab(r"^grundy:\s+(\d+)", out, "?")


def quixo_ours(opts, side):
    d = tempfile.mkdtemp(prefix="bench-quixo-", dir=opts.tmp)
    try:
        r = measure([opts.gamesman, "solve", "quixo", "4x4", "--save", "--db", d])
        if r.rc != 0:
            raise RuntimeError(f"gamesman solve quixo: exit {r.rc}: {r.out[-300:]}")
        side.db = dir_bytes(d)
        side.answer = grab(r"^value:\s+(\S+)", r.out, "?") + " in " + grab(r"^remoteness:\s+(\d+)", r.out, "?")
        return r
    finally:
        shutil.rmtree(d, ignore_errors=True)


def quixo_peer(opts, side):
    exe = need("GAMESMAN_ONE", "GamesmanOne's binary")
    build = os.path.dirname(exe)
    d = tempfile.mkdtemp(prefix="bench-data-", dir=build)
    try:
        r = measure([exe, "solve", "quixo", "1", "--data-path=" + os.path.basename(d)], cwd=build,
                    env={"OMP_WAIT_POLICY": "passive"})
        if r.rc != 0:
            raise RuntimeError(f"GamesmanOne solve quixo 1: exit {r.rc}: {r.out[-300:]}")
        side.db = dir_bytes(d)
        side.answer = g1_answer(exe, build, os.path.basename(d))
        return r
    finally:
        shutil.rmtree(d, ignore_errors=True)


def g1_answer(exe, build, data):
    """The start position's value and remoteness as GamesmanOne's `query` gives them."""
    # The 4x4 start position as GamesmanOne writes it (`getstart quixo 1`); options first.
    r = measure([exe, "--data-path=" + data, "query", "quixo", "1", "1_----------------"], cwd=build)
    v = grab(r'"positionValue"\s*:\s*"(\w+)"', r.out)
    rem = grab(r'"remoteness"\s*:\s*(\d+)', r.out)
    if not v:
        return f"? (query: {r.out.strip()[-120:]})"
    return f"{v} in {rem}"


def c4_ours(opts, side):
    d = tempfile.mkdtemp(prefix="bench-c4-", dir=opts.tmp)
    try:
        r = measure([opts.gamesman, "solve", "connect4", "5x5", "--save", "--db", d])
        if r.rc != 0:
            raise RuntimeError(f"gamesman solve connect4 5x5: exit {r.rc}: {r.out[-300:]}")
        side.db = dir_bytes(d)
        side.answer = value_of(r.out)
        return r
    finally:
        shutil.rmtree(d, ignore_errors=True)


def igsolve(args):
    def run(opts, side):
        exe = need("IGSOLVE", "beling/impartial-games' igsolve")
        d = tempfile.mkdtemp(prefix="bench-igsolve-", dir=opts.tmp)
        try:
            r = measure([exe] + args, cwd=d)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        n = grab(r"^Nimber of initial position:\s*(\d+)", r.out)
        if r.rc != 0 or n is None:
            raise RuntimeError(f"igsolve {' '.join(args)}: exit {r.rc}: {r.out[-300:]}")
        side.answer = f"nimber {n}"
        return r
    return run


def py(script, args, answer):
    def run(opts, side):
        path = os.path.join(ROOT, "bench", "python", script)
        if not os.path.isfile(path):
            raise Missing(f"no bench/python/{script}")
        if not shutil.which(python()):
            raise Missing(f"no {python()}")
        r = measure([python(), path] + args)
        if r.rc != 0:
            raise RuntimeError(f"{script} {' '.join(args)}: exit {r.rc}: {r.out[-300:]}")
        side.answer = answer(r.out)
        return r
    return run


def boards_value(out):
    return grab(r"^[^:]*:\s+(\w+)", out, "?")


def moving_positions(out):
    return grab(r"(\d+) positions", out, "?") + " positions"


def analyze_positions(out):
    return grab(r"^visited:\s+(\d+)", out, "?") + " positions"


def no_peer(why):
    def run(opts, side):
        raise Missing(why)
    return run


# The TacTix battery: every board of boards/, ours and the peer one board after the other.
TACTIX_LIMIT = 30


def battery(binary):
    """Every board of boards/ once; per board its CPU and answer, in side.battery. A board
    is unsolved when the solver prints -1 (over its time, or refused) or is stopped."""
    def run(opts, side):
        exe = binary(opts)
        boards = sorted(f for f in os.listdir(os.path.join(ROOT, "boards")) if f.endswith(".pbm"))
        total, wall, peak, answers, over = 0.0, 0.0, 0, {}, []
        for b in boards:
            path = os.path.join(ROOT, "boards", b)
            if exe == "contest":
                cmd = [opts.contest, "--time-limit", str(TACTIX_LIMIT), "--max-memory", "24"]
            else:
                cmd = [exe]
            r = measure(cmd, stdin=path, timeout=TACTIX_LIMIT + 5)
            total, wall, peak = total + r.cpu, wall + r.wall, max(peak, r.rss_kb)
            lines = r.out.strip().splitlines()
            ans = lines[-1].strip() if lines and not r.timed_out else "-1"
            name = b[:-4]
            prev = getattr(side, "battery", {}).get(name)
            # keep each board's least CPU over the runs
            if prev is None or r.cpu < prev[0]:
                answers[name] = (r.cpu, ans)
            else:
                answers[name] = prev
            if ans == "-1":
                over.append(name.replace("full-", "") + (": stopped" if r.timed_out else ": -1"))
        side.battery = answers
        side.answer = f"{len(boards) - len(over)}/{len(boards)} solved" + (
            f" (not {', '.join(over)})" if over else "")
        return Run(total, peak, wall, "", 0, False)
    return run


def tactix_peer(opts):
    return need("TACTIX_PEER", "the plain C solver tactix_peer.c, built with gcc -O2")


def contest(opts):
    if not os.access(opts.contest, os.X_OK):
        raise RuntimeError(f"no contest binary at {opts.contest} "
                           "(cargo build --release -p tactix --bin contest)")
    return "contest"


CHOMP13 = ",".join(["13"] * 13)

# name, workload, ours, peer, ours' command (`gamesman` left out), peer's command, runs
# (None: --runs)
ROWS = [
    ("quixo", "Quixo 4×4 by tiers, saved (2 threads)", quixo_ours, quixo_peer,
     "`solve quixo 4x4 --save --db D`",
     "GamesmanOne `solve quixo 1 --data-path=D`, `OMP_WAIT_POLICY=passive`", 2),
    ("connect4", "Connect-Four 5×5 by tiers, saved (2 threads)", c4_ours,
     no_peer("no peer measured"), "`solve connect4 5x5 --save --db D`", "", 1),
    ("cram4x9", "Cram 4×9 nimber, no endgame table",
     ours(["solve", "games/cram.ron", "4x9", "--no-remoteness", "--no-moves", "--no-db"], nimber_of),
     igsolve(["cram", "4", "9"]),
     "`solve games/cram.ron 4x9 --no-remoteness --no-moves --no-db`",
     "`igsolve cram 4 9` (default `-m br-asp-set`)", None),
    ("cram5x7", "Cram 5×7 nimber, no endgame table",
     ours(["solve", "games/cram.ron", "5x7", "--no-remoteness", "--no-moves", "--no-db"], nimber_of),
     igsolve(["cram", "5", "7"]),
     "the same, `5x7`", "`igsolve cram 5 7`", None),
    ("chomp13", "Chomp 13×13 nimber",
     ours(["solve", "chomp", CHOMP13, "--no-remoteness", "--no-db"], nimber_of),
     igsolve(["chomp", "--rows", "13", "--cols", "13"]),
     "`solve chomp 13,…,13 --no-remoteness --no-db` (13 × `13`)",
     "`igsolve chomp --rows 13 --cols 13` (default `-m def`)", 2),
    ("hex", "Hex 4×4, value",
     ours(["solve", "games/hex.ron", "4x4", "--no-remoteness", "--threads", "1", "--no-db"], value_of),
     py("boards.py", ["hex", "4"], boards_value),
     "`solve games/hex.ron 4x4 --no-remoteness --threads 1 --no-db`",
     "`bench/python/boards.py hex 4`", None),
    ("domineering", "Domineering 5×5, value",
     ours(["solve", "games/domineering.ron", "5x5", "--no-remoteness", "--threads", "1", "--no-db"], value_of),
     py("boards.py", ["domineering", "5", "5"], boards_value),
     "the same, `games/domineering.ron 5x5`", "`boards.py domineering 5 5`", None),
    ("tictactoe", "tic-tac-toe, value",
     ours(["solve", "games/tictactoe.ron", "--no-remoteness", "--threads", "1", "--no-db"], value_of),
     py("boards.py", ["tictactoe"], boards_value),
     "the same, `games/tictactoe.ron`", "`boards.py tictactoe`", None),
    ("8-puzzle", "8-puzzle, all reachable",
     ours(["analyze", "games/8-puzzle.ron", "--threads", "1", "--no-db"], analyze_positions),
     py("moving.py", ["8-puzzle"], moving_positions),
     "`analyze games/8-puzzle.ron --threads 1 --no-db`",
     "`bench/python/moving.py 8-puzzle`", None),
    ("tactix", "TacTix battery (`boards/`, 19 boards)",
     battery(contest), battery(tactix_peer),
     f"`contest --time-limit {TACTIX_LIMIT} --max-memory 24 < B` a board",
     f"`tactix_peer < B`, stopped at {TACTIX_LIMIT + 5} s", 2),
    ("chomp-script", "script: `games/chomp.rhai 88888888`",
     ours(["solve", "games/chomp.rhai", "88888888", "--engine", "script", "--no-db"], value_of),
     no_peer("bench/python has no Chomp"),
     "`solve games/chomp.rhai 88888888 --engine script --no-db`", "", None),
]

def same_answer(name, a, b):
    """Both sides' answers, as the rows write them ("win in 21", "nimber 33", "lose")."""
    return a == b


def run_row(opts, row):
    name, workload, our_fn, peer_fn, our_cmd, peer_cmd, runs = row
    n = runs if runs is not None else opts.runs
    if opts.runs_cap:
        n = min(n, opts.runs_cap)
    us, them = Side(), Side()
    load0 = load()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    for i in range(n):
        for fn, side in ((our_fn, us), (peer_fn, them)):
            if side.missing:
                continue
            try:
                r = fn(opts, side)
                side.runs.append(r)
                log(f"  {name} {'ours' if side is us else 'peer'} run {i + 1}: {r.cpu:.3f} CPU-s, "
                    f"{r.rss_kb} KB, {r.wall:.2f} s wall, {side.answer}")
            except Missing as e:
                side.missing = str(e)
            except Exception as e:  # a failed run: reported in the row, never fatal
                side.missing = " ".join(f"failed: {e}".split())[:200]
                log(f"  {name}: {side.missing}")
    load1 = load()
    mismatch = ""
    if not us.missing and not them.missing:
        if name == "tactix":
            both = [b for b in us.battery if us.battery[b][1] != "-1"
                    and them.battery.get(b, (0, "-1"))[1] != "-1"]
            diff = [b for b in both if us.battery[b][1] != them.battery[b][1]]
            ours_cpu = sum(us.battery[b][0] for b in both)
            peer_cpu = sum(them.battery[b][0] for b in both)
            us.answer += f"; nimsums agree on {len(both) - len(diff)} of {len(both)} solved by both"
            if diff:
                mismatch = "nimsums differ on " + ", ".join(diff)
        elif not same_answer(name, us.answer, them.answer):
            mismatch = f"ours {us.answer!r}, peer {them.answer!r}"
    if mismatch:
        log(f"!!!!!! MISMATCH in {name}: {mismatch} !!!!!!")
    ratio = DASH
    if name == "tactix" and not us.missing and not them.missing and peer_cpu > 0:
        ratio = (f"**{fmt_ratio(ours_cpu / peer_cpu)}** on the {len(both)} boards both solve "
                 f"({fmt_cpu(ours_cpu)} / {fmt_cpu(peer_cpu)} CPU-s, each board's best run)")
    elif not us.missing and not them.missing and them.best() > 0:
        ratio = f"**{fmt_ratio(us.best() / them.best())}**"
        if us.db is not None and them.db:
            ratio += f" (db {us.db / them.db:.3g})"
    if mismatch:
        ratio += f" **MISMATCH: {mismatch}**"
    cmds = our_cmd + (f"; {peer_cmd}" if peer_cmd else "")
    date = f"{when}, load {load0:.1f}–{load1:.1f}, {len(us.runs)}+{len(them.runs)} runs"
    cells = [workload, us.cell(), them.cell(), ratio, cmds, date]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |", bool(mismatch)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gamesman", default=os.path.join(ROOT, "target", "release", "gamesman"))
    ap.add_argument("--contest", default=os.path.join(ROOT, "target", "release", "contest"))
    ap.add_argument("--runs", type=int, default=3, help="runs of each side (default 3)")
    ap.add_argument("--runs-cap", type=int, default=0, help="at most this many runs of any row")
    ap.add_argument("--only", action="append", default=[], help="row names, comma-separated")
    ap.add_argument("--write", metavar="FILE", help="write the table into FILE (after its marker line)")
    ap.add_argument("--list", action="store_true", help="list the rows' names")
    opts = ap.parse_args()
    if opts.list:
        for r in ROWS:
            print(f"{r[0]:14} {r[1]}")
        return 0
    opts.gamesman = os.path.abspath(opts.gamesman)
    opts.contest = os.path.abspath(opts.contest)
    if not os.access(opts.gamesman, os.X_OK):
        sys.exit(f"no gamesman binary at {opts.gamesman} (cargo build --release, or --gamesman PATH)")
    only = {n for o in opts.only for n in o.split(",") if n}
    unknown = only - {r[0] for r in ROWS}
    if unknown:
        sys.exit(f"unknown row(s) {', '.join(sorted(unknown))}; --list lists them")
    opts.tmp = tempfile.mkdtemp(prefix="benchmarks-")
    try:
        lines, bad = [], 0
        started = loads()
        for row in ROWS:
            if only and row[0] not in only:
                continue
            log(f"{row[0]}: {row[1]}")
            line, mismatch = run_row(opts, row)
            lines.append(line)
            bad += mismatch
        cpu = grab(r"^model name\s*:\s*(.*)$", open("/proc/cpuinfo").read(), "?")
        ended = loads()
        table = [
            f"Ended {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} "
            f"cores ({cpu}); load averages (1, 5, 15 min) {started} at the start, {ended} at the "
            f"end; ours: `{opts.gamesman}`.",
            "",
            "| workload | ours | the peer | ours / peer (CPU) | the command(s) | the date |",
            "|---|---|---|---:|---|---|",
        ] + lines
        text = "\n".join(table) + "\n"
    finally:
        shutil.rmtree(opts.tmp, ignore_errors=True)
    if opts.write:
        head = ""
        if os.path.exists(opts.write):
            old = open(opts.write).read()
            if MARK in old:
                head = old[: old.index(MARK)]
        with open(opts.write, "w") as f:
            f.write(head + MARK + "\n\n" + text)
    else:
        sys.stdout.write(text)
    if bad:
        log(f"!!!!!! {bad} row(s) where ours and the peer disagree !!!!!!")
    return 0


if __name__ == "__main__":
    sys.exit(main())
