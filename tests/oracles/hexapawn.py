#!/usr/bin/env python3
"""Hexapawn on an R x C board, solved by a plain memoised search written independently of
gamesman.

Rules (Martin Gardner, 1962, on any board): x (the first player) starts with a pawn on every
square of the bottom row and moves up; o starts on the top row and moves down. A pawn steps
straight forward onto an empty square, or diagonally forward onto the square of the other's
pawn, which is captured. A player with a pawn on the far row has won; a player who cannot
move has lost. No position repeats.

A position is the rows top to bottom joined by "/", a space and the side to move:
"ooo/.../xxx x". The value is for the side to move; remoteness as gamesman counts it: a
win is 1 + the least remoteness of its losing children, a loss 1 + the greatest of its
children, 0 at the end.

Usage: hexapawn.py [R C] [--jsonl N]
Prints the start's value and remoteness and the counts of the positions reachable from it by
value; with --jsonl N, JSON lines of every N-th reachable position (sorted by text, the
start first) instead."""
import json
import sys
from collections import Counter
from functools import lru_cache


def other(me):
    return "o" if me == "x" else "x"


def won(rows, side):
    """Whether `side` has a pawn on its far row."""
    return side in rows[0 if side == "x" else len(rows) - 1]


def children(rows, me):
    R, C = len(rows), len(rows[0])
    d = -1 if me == "x" else 1
    out = []
    for r in range(R):
        for c in range(C):
            if rows[r][c] != me or not 0 <= r + d < R:
                continue
            for nc, want in ((c, "."), (c - 1, other(me)), (c + 1, other(me))):
                if 0 <= nc < C and rows[r + d][nc] == want:
                    b = [list(x) for x in rows]
                    b[r][c], b[r + d][nc] = ".", me
                    out.append(tuple("".join(x) for x in b))
    return out


@lru_cache(maxsize=None)
def solve(rows, me):
    if won(rows, other(me)):
        return ("lose", 0)
    sols = [solve(k, other(me)) for k in children(rows, me)]
    if not sols:
        return ("lose", 0)
    losing = [r for v, r in sols if v == "lose"]
    if losing:
        return ("win", 1 + min(losing))
    return ("lose", 1 + max(r for _, r in sols))


def reachable(root):
    seen, todo = {root}, [root]
    while todo:
        rows, me = todo.pop()
        if won(rows, other(me)):
            continue
        for k in children(rows, me):
            if (k, other(me)) not in seen:
                seen.add((k, other(me)))
                todo.append((k, other(me)))
    return seen


def text(p):
    return "/".join(p[0]) + " " + p[1]


def main():
    args = sys.argv[1:]
    every = None
    if "--jsonl" in args:
        i = args.index("--jsonl")
        every = int(args[i + 1])
        del args[i : i + 2]
    R, C = (int(args[0]), int(args[1])) if args else (3, 3)
    sys.setrecursionlimit(100000)
    start = (tuple(["o" * C] + ["." * C] * (R - 2) + ["x" * C]), "x")
    seen = reachable(start)
    if every is None:
        value, rem = solve(*start)
        by = Counter(solve(*p)[0] for p in seen)
        print(f"{text(start)}: {value} {rem}; positions {len(seen)} {sorted(by.items())}")
        return
    rest = sorted((p for p in seen if p != start), key=text)
    for p in [start] + rest[every - 1 :: every]:
        value, rem = solve(*p)
        print(json.dumps({"position": text(p), "value": value, "remoteness": rem}))


if __name__ == "__main__":
    main()
