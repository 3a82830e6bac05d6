#!/usr/bin/env python3
"""An independent oracle of Grundy's game (split one heap into two unequal non-empty heaps;
who cannot move loses), for tests/suite/descriptors.rs: the Grundy value of one heap of each size
n = 0..N, by the definition (the mex of g(a) xor g(n - a) over 1 <= a < n - a), one value a
line.

    python3 tests/oracles/grundy.py 2000 > tests/data/grundys-game.txt

Written from the rules alone: no sparse values, no bitsets, nothing shared with
src/solve/sequence.rs.
"""
import sys


def grundy_values(top):
    g = []
    for n in range(top + 1):
        options = {g[a] ^ g[n - a] for a in range(1, n) if a < n - a}
        v = 0
        while v in options:
            v += 1
        g.append(v)
    return g


if __name__ == "__main__":
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for v in grundy_values(top):
        print(v)
