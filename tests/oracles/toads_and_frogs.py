#!/usr/bin/env python3
"""Toads and Frogs, solved by a plain memoised search written independently of gamesman.

Rules (Winning Ways, ch. 1): a row of squares; toads (T, the first player) move right and
frogs (F) left, one square onto an empty one, or over one piece of the other kind onto the
empty square just beyond it. Whoever cannot move loses. Pieces only move one way, so the
game has no cycles.

A position is (row, side to move); the value is for the side to move. Remoteness as
gamesman counts it: a win is 1 + the least remoteness of its losing children, a loss 1 + the
greatest of its children, 0 at the end.

Usage: toads_and_frogs.py [ROW SIDE ...]   e.g. toads_and_frogs.py "TTT..FFF T"
Prints, for each position: its value and remoteness, and the counts of the positions
reachable from it by value."""
import sys
from functools import lru_cache


def children(row, me):
    out = []
    step, other = (1, "F") if me == "T" else (-1, "T")
    for i, ch in enumerate(row):
        if ch != me:
            continue
        j = i + step
        if 0 <= j < len(row) and row[j] == ".":
            out.append(row[:min(i, j)] + (".T" if me == "T" else "F.") + row[max(i, j) + 1:])
        k = i + 2 * step
        if 0 <= k < len(row) and row[j] == other and row[k] == ".":
            cells = list(row)
            cells[i], cells[k] = ".", me
            out.append("".join(cells))
    nxt = "F" if me == "T" else "T"
    return [(c, nxt) for c in out]


@lru_cache(maxsize=None)
def solve(pos):
    kids = children(*pos)
    if not kids:
        return ("lose", 0)
    sols = [solve(k) for k in kids]
    losing = [r for v, r in sols if v == "lose"]
    if losing:
        return ("win", 1 + min(losing))
    return ("lose", 1 + max(r for _, r in sols))


def reachable(root):
    seen, todo = {root}, [root]
    while todo:
        p = todo.pop()
        for k in children(*p):
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def main():
    for text in sys.argv[1:] or ["TTT..FFF T"]:
        row, me = text.split()
        root = (row, me)
        value, rem = solve(root)
        by = {}
        for p in reachable(root):
            v = solve(p)[0]
            by[v] = by.get(v, 0) + 1
        print(f"{text}: {value} {rem}; positions {sum(by.values())} {sorted(by.items())}")


if __name__ == "__main__":
    main()
