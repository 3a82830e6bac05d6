#!/usr/bin/env python3
"""Three Men's Morris, solved by retrograde analysis written independently of gamesman.

Rules (as tests/games/three_mens_morris.rhai states them): a 3x3 board, cells 0-8 row by
row; the lines are the 3 rows, the 3 columns and the 2 diagonals. x moves first. While the
player to move has fewer than 3 pieces on the board, a move places one on an empty point;
after that a move slides one of the mover's pieces to an adjacent empty point. Adjacent:
orthogonal neighbours, and the centre with each corner (the diagonals through the centre).
A player who makes three in a line has won; a player with no move has lost.

A position is (board, side to move); its value is for the side to move. Remoteness as
gamesman counts it: a win is 1 + the least remoteness of its losing children, a loss is 1 +
the greatest of its children; a position from which neither side can force a win is a
draw. Every position with at most 3 pieces each (and a consistent turn) is solved.

Usage: three_mens_morris.py [POSITION ...]   e.g. "xoo..x... x"
       three_mens_morris.py --sample K   every K-th reachable position (in sorted order) as
                                         JSON lines {"position", "value", "remoteness"}
Prints `POSITION value remoteness` for each, and the counts of the positions reachable
from the empty board (x to move) by value."""
import itertools
import sys
from collections import deque

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def neighbours(i):
    r, c = divmod(i, 3)
    out = [(r + dr) * 3 + (c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
           if 0 <= r + dr < 3 and 0 <= c + dc < 3]
    if i == 4:
        out += [0, 2, 6, 8]
    elif i in (0, 2, 6, 8):
        out.append(4)
    return sorted(out)


ADJ = [neighbours(i) for i in range(9)]


def line(b, p):
    return any(all(b[i] == p for i in l) for l in LINES)


def other(p):
    return "o" if p == "x" else "x"


def valid(b, me):
    xs, os_ = b.count("x"), b.count("o")
    if xs > 3 or os_ > 3:
        return False
    if not (xs == 3 and os_ == 3):
        # Placing: x first, so x moves when the counts are equal.
        if me != ("x" if xs == os_ else "o") or not (xs == os_ or xs == os_ + 1):
            return False
    return not (line(b, "x") and line(b, "o"))


def end(pos):
    """'lose' (the other side has a line, or the mover has no move), 'win' (the mover has a
    line: not reached by play) or None."""
    b, me = pos
    if line(b, other(me)):
        return "lose"
    if line(b, me):
        return "win"
    if not children(pos):
        return "lose"
    return None


def children(pos):
    b, me = pos
    out = []
    if b.count(me) < 3:
        for i in range(9):
            if b[i] == ".":
                out.append(b[:i] + me + b[i + 1:])
    else:
        for i in range(9):
            if b[i] == me:
                for j in ADJ[i]:
                    if b[j] == ".":
                        nb = list(b)
                        nb[i], nb[j] = ".", me
                        out.append("".join(nb))
    return [(nb, other(me)) for nb in out]


def solve_all():
    positions = [("".join(cells), me) for cells in itertools.product(".xo", repeat=9) for me in "xo"
                 if valid("".join(cells), me)]
    kids = {}
    for p in positions:
        e = None
        if line(p[0], other(p[1])) or line(p[0], p[1]):
            e = True
        kids[p] = [] if e else children(p)
    parents = {p: [] for p in positions}
    for p in positions:
        for k in kids[p]:
            parents[k].append(p)
    value, rem = {}, {}
    left = {p: len(kids[p]) for p in positions}
    level = []
    for p in positions:
        e = end(p)
        if e is not None:
            value[p], rem[p] = e, 0
            level.append(p)
    # Level by level, in order of remoteness: a loss at r makes its unsolved parents wins at
    # r + 1 (the least); a win makes a parent a loss once all its children are wins (at 1 +
    # the greatest, as the last one found is the farthest).
    r = 0
    while level:
        nxt = []
        for c in level:
            for p in parents[c]:
                if p in value:
                    continue
                if value[c] == "lose":
                    value[p], rem[p] = "win", r + 1
                    nxt.append(p)
                else:
                    left[p] -= 1
                    if left[p] == 0:
                        value[p], rem[p] = "lose", r + 1
                        nxt.append(p)
        level = nxt
        r += 1
    for p in positions:
        value.setdefault(p, "draw")
    return value, rem, kids


def parse(text):
    b, me = text.split()
    return (b, me)


def main():
    value, rem, kids = solve_all()
    if sys.argv[1:2] == ["--sample"]:
        import json
        every = int(sys.argv[2])
        root = ("." * 9, "x")
        seen, todo = {root}, deque([root])
        while todo:
            for k in kids[todo.popleft()]:
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
        for p in sorted(seen)[::every]:
            print(json.dumps({"position": f"{p[0]} {p[1]}", "value": value[p], "remoteness": rem.get(p)}))
        return
    for text in sys.argv[1:]:
        p = parse(text)
        print(text, value.get(p, "invalid"), rem.get(p, "-"))
    root = ("." * 9, "x")
    seen, todo = {root}, deque([root])
    while todo:
        p = todo.popleft()
        for k in kids[p]:
            if k not in seen:
                seen.add(k)
                todo.append(k)
    by = {}
    for p in seen:
        by[value[p]] = by.get(value[p], 0) + 1
    print("start", value[root], rem.get(root, "-"))
    print("reachable", len(seen), sorted(by.items()))
    # The longest win and loss reachable (least position text among equals).
    for v in ("win", "lose"):
        far = max((rem[p], tuple(-ord(ch) for ch in p[0] + p[1])) for p in seen if value[p] == v)
        print(f"longest {v}", far[0], "".join(chr(-o) for o in far[1][:9]), chr(-far[1][9]))


if __name__ == "__main__":
    main()
