#!/usr/bin/env python3
"""Instruction audit of the PS2 contest binary: fail on anything an R5900 lacks.

    scripts/audit-ps2.py target/ps2/contest-ps2

The binary is disassembled as MIPS II (mipsel-linux-gnu-objdump, which follows the ELF
header). Whatever MIPS II does not have (every MIPS32 / MIPS32r2 instruction: seb, ext,
ins, clz, the 3-operand mul, madd, rdhwr, ...) then shows up as an undecodable `.word`,
and a second disassembly as MIPS32r2 names it. The audit fails on
  - any such instruction, except `rdhwr $3,$29` (the thread pointer, used by musl's TLS;
    the PS2 Linux kernel emulates it, as it does for every MIPS I/II CPU);
  - any FPU (coprocessor 1) instruction: the build is soft-float, and the R5900's FPU is
    single-precision only and not IEEE;
  - any 64-bit instruction (d*, ld/sd, lld/scd): o32 user code has no business with them,
    and dmult/ddiv do not exist on an R5900;
and it checks the ELF: statically linked, no program interpreter, MIPS-II, soft-float.
`ll`/`sc` (the 32-bit atomics) and `sync` are counted and allowed: the R5900 has no
LL/SC, and the PS2 kernel emulates them on the trap (the binary is single-threaded, so
they are only ever uncontended). Words that follow a `bal` over them (musl's start-up
code keeps constants there) are data and skipped.
"""
import re
import subprocess
import sys

OBJDUMP = "mipsel-linux-gnu-objdump"
READELF = "mipsel-linux-gnu-readelf"
RDHWR_TP = 0x7C03E83B  # rdhwr $3,$29
FPU = re.compile(r"^(lwc1|swc1|ldc1|sdc1|mtc1|mfc1|ctc1|cfc1|mthc1|mfhc1|bc1[tf]l?|movf|movt|"
                 r"[a-z]+\.(s|d|w|l|ps)|lwxc1|swxc1|ldxc1|sdxc1|luxc1|suxc1)$")
WIDE = re.compile(r"^(d[a-z]+|ld|sd|ldl|ldr|sdl|sdr|lld|scd|lwu)$")
EMULATED = {"ll", "sc"}
INSN = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(\S+)\s*(.*)$")


def disassemble(path, machine=None):
    cmd = [OBJDUMP, "-d", "-z", path]
    if machine:
        cmd[1:1] = ["-m", machine]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows, func = [], "?"
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            func = m.group(1)
            continue
        m = INSN.match(line)
        if m:
            rows.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4), func))
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: audit-ps2.py BINARY")
    path = sys.argv[1]
    problems = []

    header = subprocess.run([READELF, "-h", "-l", "-A", path], check=True, capture_output=True, text=True).stdout
    if "INTERP" in header or "DYNAMIC" in header:
        problems.append("the binary is dynamically linked (it has a program interpreter)")
    if "mips2" not in header.lower() and "MIPS-II" not in header:
        problems.append("the ELF header does not say MIPS II")
    if not re.search(r"FP ABI:\s+Soft float", header):
        problems.append("the ELF does not declare the soft-float ABI")

    names = {addr: (mn, ops) for addr, _, mn, ops, _ in disassemble(path, "mips:isa32r2")}
    rows = disassemble(path, "mips:6000")  # the R6000: MIPS II
    data_until = 0
    counts = {}
    for addr, word, mn, ops, func in rows:
        if addr < data_until:
            continue
        if mn == "bal":
            m = re.match(r"([0-9a-f]+)", ops)
            target = int(m.group(1), 16) if m else 0
            if addr + 8 < target <= addr + 64:
                data_until = target  # a branch over literals
        if mn == ".word":
            if word == RDHWR_TP:
                counts["rdhwr $3,$29"] = counts.get("rdhwr $3,$29", 0) + 1
                continue
            real = names.get(addr, (".word", ""))
            problems.append(f"{addr:#x} in {func}: {real[0]} {real[1]} (not in MIPS II)")
        elif FPU.match(mn):
            problems.append(f"{addr:#x} in {func}: {mn} {ops} (an FPU instruction in a soft-float build)")
        elif WIDE.match(mn) and mn not in ("div", "divu"):
            problems.append(f"{addr:#x} in {func}: {mn} {ops} (a 64-bit instruction)")
        elif mn in EMULATED or mn == "sync":
            counts[mn] = counts.get(mn, 0) + 1

    print(f"audit: {len(rows)} instructions in {path}")
    for k in sorted(counts):
        print(f"audit: allowed, emulated or harmless on the R5900: {k} x{counts[k]}")
    if problems:
        for p in problems[:50]:
            print(f"audit: FAIL {p}")
        print(f"audit: {len(problems)} problem(s)")
        sys.exit(1)
    print("audit: ok (MIPS II, soft-float, static)")


if __name__ == "__main__":
    main()
