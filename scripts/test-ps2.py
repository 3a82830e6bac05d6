#!/usr/bin/env python3
"""Run the PS2 contest binary under `qemu-mipsel -cpu R5900` against the TacTix cases.

    scripts/test-ps2.py [BINARY [QEMU]]      (defaults: target/ps2/contest-ps2, target/ps2/qemu-mipsel)

1. The emulator really is an R5900: a one-instruction mips32r2 probe (ps2/r2probe.c) must
   die with SIGILL under -cpu R5900 and run under the default CPU.
2. Every board of tests/data/tactix.jsonl gives its nimsum.
3. Every malformed board gives -1 on stdout, a reason on stderr, exit 0, no crash.
4. The time limit gives -1.
5. Memory: peak RSS of the emulator running the binary (from the binary's --stats, which
   reads VmHWM; under qemu-user that is the emulator process, guest included) minus the
   emulator's own baseline (a 1x1 board) must stay inside the 24 MiB default budget.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target/ps2/contest-ps2")
qemu = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "target/ps2/qemu-mipsel")
host = os.path.join(root, "target/release/contest")
host = host if os.access(host, os.X_OK) else None
failures = []


def run(args, data, timeout=600):
    p = subprocess.run([qemu, "-cpu", "R5900", binary, *args], input=data, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"test-ps2: FAIL {what}")


# 1. the emulator traps what an R5900 lacks
with tempfile.TemporaryDirectory() as tmp:
    probe = os.path.join(tmp, "r2probe")
    subprocess.run(["mipsel-linux-gnu-gcc", "-march=mips32r2", "-O1", "-nostdlib", "-static", "-ffreestanding",
                    "-o", probe, os.path.join(root, "ps2/r2probe.c")], check=True)
    plain = subprocess.run([qemu, probe], capture_output=True)
    r5900 = subprocess.run([qemu, "-cpu", "R5900", probe], capture_output=True)
    check(plain.returncode == 0, f"the mips32r2 probe should run on qemu's default CPU (exit {plain.returncode})")
    check(r5900.returncode in (-signal.SIGILL, 128 + signal.SIGILL),
          f"the mips32r2 probe should die with SIGILL under -cpu R5900 (exit {r5900.returncode})")
print("test-ps2: the emulator traps mips32r2 instructions under -cpu R5900")

# 2. the reference boards
cases = [json.loads(line) for line in open(os.path.join(root, "tests/data/tactix.jsonl")) if line.strip()]
started = time.monotonic()
for c in cases:
    code, out, err = run([], c["pbm"].encode())
    check(code == 0 and out == f"{c['grundy']}\n",
          f"{c['pbm']!r}: expected {c['grundy']}, got {out!r} (exit {code}) {err.strip()}")
print(f"test-ps2: {len(cases)} reference boards in {time.monotonic() - started:.1f} s")

# 3. malformed boards
bad = [b"", b"P4\n1 1\n1\n", b"P1\n", b"P1\n2 2\n1 1 1\n", b"P1\n2 2\n1 1 1 2\n", b"P1\n1 1\n1 1\n",
       b"P1\n-2 2\n", b"P1\n99999999999999999999 1\n", b"P1\n100000 100000\n", b"\xff\xfe\x00garbage",
       b"P1 2 2 1 1 1 1 x"]
for data in bad:
    code, out, err = run([], data)
    check(code == 0 and out == "-1\n" and err.startswith("contest: ") and "panicked" not in err,
          f"malformed {data!r}: exit {code}, stdout {out!r}, stderr {err.strip()!r}")
print(f"test-ps2: {len(bad)} malformed boards give -1")

# 4. the time limit
code, out, err = run(["--time-limit", "0.5"], b"P1 8 8 " + b"11111111 " * 7 + b"11111110")
check(code == 0 and out == "-1\n" and "time limit" in err, f"time limit: exit {code}, {out!r}, {err.strip()!r}")
print("test-ps2: the time limit gives -1")


# 5. memory
def peak_kb(args, data):
    code, out, err = run(["--stats", *args], data)
    m = re.search(r"peak memory (\d+) kB", err)
    check(code == 0 and m is not None, f"--stats: exit {code}, {err.strip()!r}")
    return (int(m.group(1)) if m else 0), out.strip()


base, _ = peak_kb([], b"P1 1 1 1")
rng, big = 99, bytearray(b"P1\n2000 2000\n")
for _ in range(2000):
    for _ in range(2000):
        rng = (rng * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        big += b"1" if rng >> 61 == 0 else b"0"
    big += b"\n"
snake = " ".join("1" * 63 if r % 2 == 0 else "0" * 62 + "1" if r % 4 == 1 else "1" + "0" * 62 for r in range(63))
boards = [("full 5x5", b"P1 5 5 11111 11111 11111 11111 11111", []),
          ("full 4x7 (the narrow table: the whole budget)", b"P1 7 4 " + b"1" * 28, []),
          ("2000x2000 scattered", bytes(big), []),
          ("large-1-32x32 (components beyond 8x8)", open(os.path.join(root, "boards/large-1-32x32.pbm"), "rb").read(),
           []),
          ("full 63x63 (too deep for the budget: -1)", b"P1 63 63 " + b"1" * (63 * 63), []),
          ("63x63 serpentine path (stopped after 10 s)", b"P1 63 63 " + snake.encode(), ["--time-limit", "10"])]
print(f"test-ps2: emulator baseline (1x1 board): {base} kB peak RSS")
for name, data, args in boards:
    t = time.monotonic()
    kb, out = peak_kb(args, data)
    grown = kb - base
    print(f"test-ps2: {name}: nimsum {out}, {time.monotonic() - t:.1f} s, peak {kb} kB, "
          f"{grown} kB over the baseline (budget {24 * 1024} kB)")
    check(grown <= 24 * 1024, f"{name}: {grown} kB over the emulator's baseline, budget 24 MiB")
    # The same source built for the host must agree (a check of the port, not of the value).
    if host and out != "-1":
        want = subprocess.run([host], input=data, capture_output=True).stdout.decode().strip()
        check(out == want, f"{name}: the PS2 build says {out}, the host build {want}")

if failures:
    print(f"test-ps2: {len(failures)} failure(s)")
    sys.exit(1)
print("test-ps2: ok")
