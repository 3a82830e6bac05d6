#!/usr/bin/env python3
"""Fair Shares and Varied Pairs: a plain retrograde solver, and GamesmanOne's solutions read
back from its database, for tests/data/fsvp.jsonl.

Rules (as GamesmanOne's src/games/fsvp/fsvp.c defines them): N coins in heaps. A move
splits one heap into two or more equal heaps, or merges two heaps of different sizes into
one. A player with no move (every heap is 1) loses. Loopy: positions neither side can force
are draws.

    python3 tests/oracles/fsvp.py check N...        # the oracle on every partition of N
    python3 tests/oracles/fsvp.py peer GAMESMANONE_DIR OUT.jsonl

`peer` solves N = 4..12, 20 and 50 with GamesmanOne (its `solve fsvp <variant>`, a data
folder under /tmp), reads its array database (xz; a 16-bit record a position: the value in
the top 4 bits, 1 lose, 2 draw, 4 win, 0 unreached; the remoteness in the low 12; positions
numbered by the partitions of N in reverse lexicographic order, N itself first), checks every
position it reached against this oracle, and writes the start, every reached position for
N <= 20 and 200 sampled ones (a fixed seed) for N = 50.
"""
import json
import lzma
import os
import random
import subprocess
import sys
from collections import deque


def partitions(n, most=None):
    """The partitions of n, parts largest first, in reverse lexicographic order."""
    if most is None:
        most = n
    if n == 0:
        yield ()
        return
    for first in range(min(n, most), 0, -1):
        for rest in partitions(n - first, first):
            yield (first,) + rest


def children(p):
    """The positions one move from p (each a sorted tuple, largest first)."""
    out = set()
    sizes = sorted(set(p), reverse=True)
    for s in sizes:
        rest = list(p)
        rest.remove(s)
        for y in range(1, s // 2 + 1):
            if s % y == 0:
                out.add(tuple(sorted(rest + [y] * (s // y), reverse=True)))
    for i, a in enumerate(sizes):
        for b in sizes[i + 1:]:
            rest = list(p)
            rest.remove(a)
            rest.remove(b)
            out.add(tuple(sorted(rest + [a + b], reverse=True)))
    return out


def solve(n):
    """Every partition of n -> ("win" | "lose" | "draw", remoteness or None), by retrograde
    analysis: a position with no move loses in 0; a position with a losing child wins in
    1 + the least such remoteness; a position whose children all win loses in 1 + the
    largest; what is left is a draw."""
    pos = list(partitions(n))
    kids = {p: children(p) for p in pos}
    parents = {p: [] for p in pos}
    for p, cs in kids.items():
        for c in cs:
            parents[c].append(p)
    left = {p: len(cs) for p, cs in kids.items()}
    result = {}
    # Level by level: remoteness r is settled before r + 1, so the first losing child a
    # parent meets has the least remoteness, and a loss is settled by its last child.
    frontier = [p for p in pos if not kids[p]]
    for p in frontier:
        result[p] = ("lose", 0)
    queue = deque(frontier)
    while queue:
        c = queue.popleft()
        v, r = result[c]
        for p in parents[c]:
            if p in result:
                continue
            if v == "lose":
                result[p] = ("win", r + 1)
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    result[p] = ("lose", 1 + max(result[k][1] for k in kids[p]))
                    queue.append(p)
    for p in pos:
        result.setdefault(p, ("draw", None))
    return result


def check_losses(n, result):
    """A second look: a win has a losing child of remoteness one less and none less; a loss
    has only winning children and one of remoteness one less; a draw has no losing child and
    a drawing one."""
    for p, (v, r) in result.items():
        cs = [result[c] for c in children(p)]
        if v == "win":
            assert min(rr for vv, rr in cs if vv == "lose") == r - 1, p
        elif v == "lose":
            assert all(vv == "win" for vv, _ in cs), p
            assert (not cs and r == 0) or max(rr for _, rr in cs) == r - 1, p
        else:
            assert not any(vv == "lose" for vv, _ in cs) and any(vv == "draw" for vv, _ in cs), p


# GamesmanOne's variants of fsvp: the choice index and N.
VARIANTS = [4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 50, 60, 70, 80, 90, 100]
PEER_VALUES = {1: "lose", 2: "draw", 4: "win"}


def peer_solution(g1, n, data):
    variant = VARIANTS.index(n)
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    rel = os.path.relpath(data, g1)  # GamesmanOne makes a relative data path only
    subprocess.run(["./bin/gamesman", f"--data-path={rel}", "solve", "fsvp", str(variant)],
                   cwd=g1, env=env, check=True, stdout=subprocess.DEVNULL)
    raw = lzma.open(os.path.join(data, "fsvp", str(variant), "arraydb",
                                 f"fsvp_{variant}.adb.xz")).read()
    pos = list(partitions(n))
    assert len(raw) == 2 * len(pos), (n, len(raw))
    out = {}
    for i, p in enumerate(pos):
        rec = raw[2 * i] | raw[2 * i + 1] << 8
        v = rec >> 12
        if v:
            out[p] = (PEER_VALUES[v], None if v == 2 else rec & 0xFFF)
    return out


def peer(g1, path):
    data = "/tmp/fsvp-gamesmanone-data"
    rng = random.Random(44)
    with open(path, "w") as f:
        for n in [4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 50]:
            theirs = peer_solution(g1, n, data)
            ours = solve(n)
            for p, vr in theirs.items():
                assert ours[p] == vr, (n, p, ours[p], vr)
            # GamesmanOne starts an odd N at N-1 and 1.
            start = (n,) if n % 2 == 0 else (n - 1, 1)
            keys = sorted(theirs, reverse=True)
            if n > 20:
                keys = [start] + rng.sample([k for k in keys if k != start], 200)
            for p in keys:
                v, r = theirs[p]
                row = {"n": n, "heaps": list(p), "start": p == start, "value": v, "remoteness": r}
                f.write(json.dumps(row) + "\n")
            print(f"N={n}: {len(theirs)} positions reached, all agree with the oracle", file=sys.stderr)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "check":
        for n in map(int, sys.argv[2:]):
            res = solve(n)
            check_losses(n, res)
            counts = {}
            for v, _ in res.values():
                counts[v] = counts.get(v, 0) + 1
            print(n, len(res), counts)
    elif len(sys.argv) == 4 and sys.argv[1] == "peer":
        peer(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
