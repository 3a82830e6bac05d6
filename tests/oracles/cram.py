#!/usr/bin/env python3
"""An independent oracle of Cram (place a domino across or down on two empty cells; who
cannot move loses), for tests/suite/boards.rs: positions of small boards with their Grundy values
and their number of winning moves, one JSON object a line.

    python3 tests/oracles/cram.py > tests/data/cram.jsonl

Each board is solved whole by the definition: a position is a bitmask of covered cells, its
Grundy value the mex of its children's, a dict as memo. No symmetry, no regions, no
nim-sums, nothing shared with src/solve/. The positions: every empty board listed below, and
positions reached by random dominoes from it (a fixed seed), each with
- "position": rows top to bottom, '#' an empty cell and '.' a covered one, '/' between rows;
- "grundy": its Grundy value;
- "wins": how many of its moves lead to a Grundy value of 0 (every domino counted, not up to
  symmetry).
"""
import json
import random
import sys

BOARDS = [(2, 2), (2, 5), (3, 3), (3, 4), (3, 5), (3, 6), (4, 4), (4, 5)]
SAMPLES = 12


def solver(rows, cols):
    memo = {}

    def moves(cov):
        for r in range(rows):
            for c in range(cols):
                i = r * cols + c
                if cov >> i & 1:
                    continue
                if c + 1 < cols and not cov >> (i + 1) & 1:
                    yield cov | 1 << i | 1 << (i + 1)
                if r + 1 < rows and not cov >> (i + cols) & 1:
                    yield cov | 1 << i | 1 << (i + cols)

    def g(cov):
        if cov in memo:
            return memo[cov]
        seen = {g(child) for child in moves(cov)}
        v = 0
        while v in seen:
            v += 1
        memo[cov] = v
        return v

    return moves, g


def text(rows, cols, cov):
    return "/".join(
        "".join("." if cov >> (r * cols + c) & 1 else "#" for c in range(cols)) for r in range(rows)
    )


def main():
    sys.setrecursionlimit(10000)
    rng = random.Random(30)
    for rows, cols in BOARDS:
        moves, g = solver(rows, cols)
        picked = [0]
        for _ in range(SAMPLES):
            cov = 0
            for _ in range(rng.randrange(1, rows * cols // 2)):
                options = list(moves(cov))
                if not options:
                    break
                cov = rng.choice(options)
            picked.append(cov)
        for cov in picked:
            wins = sum(1 for child in moves(cov) if g(child) == 0)
            print(json.dumps({"position": text(rows, cols, cov), "grundy": g(cov), "wins": wins}))


if __name__ == "__main__":
    main()
