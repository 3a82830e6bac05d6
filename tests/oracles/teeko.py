#!/usr/bin/env python3
"""Teeko on a small board, solved by retrograde analysis written independently of gamesman.

Rules (Teeko, John Scarne; the board and the number of men are parameters): an R x C board,
cells numbered row by row. b moves first. While the player to move has fewer than M men on
the board, a move drops one on an empty cell; after that a move takes one of the mover's men
to one of the eight neighbouring cells (king moves) if it is empty. A player with M men in a
straight line (a row, a column or a diagonal, M cells long) or on the four corners of a 2x2
square (M = 4) has won; a player with no move has lost.

A position is (board, side to move); its value is for the side to move. Remoteness as
gamesman counts it: a win is 1 + the least remoteness of its losing children, a loss is 1 +
the greatest of its children; a position from which neither side can force a win is a draw.
Every position with at most M men each, a consistent turn while dropping, and not both sides
showing a pattern is solved, by working back from the ends (un-moves), with no graph held.

Usage: teeko.py ROWS COLS MEN [POSITION ...]   e.g. teeko.py 4 4 4 "bb../r.../..../.... r"
       teeko.py ROWS COLS MEN --sample K   every K-th position reachable from the empty
                                           board (in sorted order) as JSON lines
                                           {"position", "value", "remoteness"}
Prints `POSITION value remoteness` for each, and the counts of the positions reachable
from the empty board (b to move) by value."""
import itertools
import json
import sys
from collections import deque


def setup(rows, cols, men):
    n = rows * cols
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    adj = []
    for r, c in cells:
        adj.append([(r + dr) * cols + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                    if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols])
    pats = []
    for r, c in cells:
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            run = [(r + k * dr, c + k * dc) for k in range(men)]
            if all(0 <= a < rows and 0 <= b < cols for a, b in run):
                pats.append(sum(1 << (a * cols + b) for a, b in run))
    if men == 4:
        for r in range(rows - 1):
            for c in range(cols - 1):
                pats.append(sum(1 << ((r + a) * cols + c + b) for a in (0, 1) for b in (0, 1)))
    return n, adj, pats


def solve(rows, cols, men):
    n, adj, pats = setup(rows, cols, men)
    shows = lambda m: any(m & p == p for p in pats)

    def moves(own, opp):
        """The mover's next `own` masks."""
        full = own | opp
        if bin(own).count("1") < men:
            return [own | 1 << i for i in range(n) if not full >> i & 1]
        out = []
        for i in range(n):
            if own >> i & 1:
                for j in adj[i]:
                    if not full >> j & 1:
                        out.append(own ^ (1 << i) ^ (1 << j))
        return out

    # A state: (mover's mask, other's mask, mover is b). Its children: (other, new own, not b).
    def valid(own, opp, b_moves):
        a, o = bin(own).count("1"), bin(opp).count("1")
        bs, rs = (a, o) if b_moves else (o, a)
        if bs > men or rs > men or (own & opp):
            return False
        if not (bs == men and rs == men):
            if not (bs == rs or bs == rs + 1) or b_moves != (bs == rs):
                return False
        return not (shows(own) and shows(opp))

    def primitive(own, opp):
        if shows(opp):
            return "lose"
        if shows(own):
            return "win"
        return None

    states, seen = [], set()
    for bs in range(men + 1):
        for rs in (bs - 1, bs):
            if rs < 0:
                continue
            for bcells in itertools.combinations(range(n), bs):
                bm = sum(1 << i for i in bcells)
                rest = [i for i in range(n) if not bm >> i & 1]
                for rcells in itertools.combinations(rest, rs):
                    rm = sum(1 << i for i in rcells)
                    for b_moves in (True, False):
                        s = (bm, rm, True) if b_moves else (rm, bm, False)
                        if valid(*s) and s not in seen:
                            seen.add(s)
                            states.append(s)
    value, rem, left = {}, {}, {}
    level = deque()
    for s in states:
        p = primitive(s[0], s[1])
        if p is None:
            kids = moves(s[0], s[1])
            left[s] = len(kids)
            if not kids:
                p = "lose"
        if p is not None:
            value[s], rem[s] = p, 0
            level.append(s)

    def parents(s):
        """The states with a move to `s`: the side that moved last (`opp`) un-moves."""
        own, opp, b_moves = s
        full = own | opp
        out = [opp ^ (1 << i) for i in range(n) if opp >> i & 1]  # un-drop
        if bin(opp).count("1") == men:  # un-step
            out += [opp ^ (1 << j) ^ (1 << i) for j in range(n) if opp >> j & 1
                    for i in adj[j] if not full >> i & 1]
        return [(before, own, not b_moves) for before in out]

    while level:
        s = level.popleft()
        r = rem[s]
        for p in parents(s):
            if p not in left or value.get(p) is not None:
                continue
            if value[s] == "lose":
                value[p], rem[p] = "win", r + 1
                level.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    value[p], rem[p] = "lose", r + 1
                    level.append(p)
    return n, states, value, rem, moves


def text(s, rows, cols):
    own, opp, b_moves = s
    bm, rm = (own, opp) if b_moves else (opp, own)
    cells = "".join("b" if bm >> i & 1 else "r" if rm >> i & 1 else "." for i in range(rows * cols))
    return "/".join(cells[r * cols:(r + 1) * cols] for r in range(rows)) + (" b" if b_moves else " r")


def parse(t, rows, cols):
    cells, side = t.split()
    cells = cells.replace("/", "")
    bm = sum(1 << i for i, ch in enumerate(cells) if ch == "b")
    rm = sum(1 << i for i, ch in enumerate(cells) if ch == "r")
    return (bm, rm, True) if side == "b" else (rm, bm, False)


def main():
    rows, cols, men = map(int, sys.argv[1:4])
    args = sys.argv[4:]
    n, states, value, rem, moves = solve(rows, cols, men)
    get = lambda s: (value.get(s, "draw"), rem.get(s))
    start = (0, 0, True)
    seen, todo = {start}, [start]
    while todo:
        s = todo.pop()
        if s in value and rem[s] == 0:
            continue
        for k in moves(s[0], s[1]):
            c = (s[1], k, not s[2])
            if c not in seen:
                seen.add(c)
                todo.append(c)
    if args[:1] == ["--sample"]:
        k = int(args[1])
        for s in sorted(seen)[::k]:
            v, r = get(s)
            print(json.dumps({"position": text(s, rows, cols), "value": v, "remoteness": r}))
        return
    for t in args:
        v, r = get(parse(t, rows, cols))
        print(t, v, r)
    by = {}
    for s in seen:
        by[get(s)[0]] = by.get(get(s)[0], 0) + 1
    print("start", *get(start), "reachable", len(seen), by, file=sys.stderr)


if __name__ == "__main__":
    main()
