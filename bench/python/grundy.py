#!/usr/bin/env python3
"""The plain Python peer of `gamesman sequence grundys-game --to N` (docs/benchmarks.md):
the Grundy value of one heap of every size 0..N in Grundy's game (split a heap into two
unequal heaps), each the mex of g(a) xor g(n - a) over 1 <= a < n - a. Nothing clever: no
sparse values, no bitsets. Prints the time and a checksum of the values.

    python3 bench/python/grundy.py 10000
"""
import sys
import time


def main():
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    started = time.process_time()
    g = []
    for n in range(top + 1):
        options = set()
        for a in range(1, (n + 1) // 2):
            options.add(g[a] ^ g[n - a])
        v = 0
        while v in options:
            v += 1
        g.append(v)
    spent = time.process_time() - started
    print(f"grundy's game to {top}: max value {max(g)}, sum {sum(g)}, {spent:.2f} CPU-s")


main()
