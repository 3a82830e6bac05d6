#!/usr/bin/env python3
"""Gobblet Gobblers and its smaller variants, solved by retrograde analysis written
independently of gamesman.

Rules (GamesmanOne's src/games/gobblet/gobblet_gobblers.c): a 3x3 board, cells 0-8 row by
row; the lines are the 3 rows, the 3 columns and the 2 diagonals. Each side ("x" first, then
"o") has SIZES[k] pieces of size k+1 (1 the smallest). A move either places a piece from the
hand on a cell whose top piece is smaller (or that is empty), or moves one of the mover's
own top pieces to a cell whose top piece is smaller than it (or that is empty). The top
pieces decide: if the side to move has three of its top pieces in a line it has won, else if
the opponent has, the side to move has lost (so a move uncovering the opponent's line loses).

A cell is a tuple of SIZES' length: for each size, 0 (none), 1 (x's) or 2 (o's). A position
is (cells, side to move). Value for the side to move; remoteness as gamesman counts it: a
win is 1 + the least remoteness of its losing children, a loss 1 + the greatest of its
children; positions from which neither side can force a win are draws. Everything reachable
from the empty board (x to move) is solved.

Position text (gamesman's for `rules: Stacks(...)`): each cell's stack bottom to top, a piece
as its mark and size ("o1x3"), "." empty, "," between cells, "/" between rows, a space and
the side to move: "x3,.,./.,o1x2,./.,.,. o".

Usage: gobblet.py SIZES [--sample K] [POSITION ...]
  SIZES   pieces of each size a side has, e.g. 3,1 (three small, one large) or 2,2,2
  --sample K   every K-th reachable position, in sorted order of its text, as JSON lines
               {"position", "value", "remoteness"} on stdout
Prints the start's value and remoteness and the counts by value on stderr."""
import json
import sys
from collections import deque

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
MARK = {1: "x", 2: "o"}


def top(cell):
    """(size index, side) of the top piece, or None."""
    for k in range(len(cell) - 1, -1, -1):
        if cell[k]:
            return k, cell[k]
    return None


def height(cell):
    t = top(cell)
    return -1 if t is None else t[0]


def has_line(board, side):
    faces = [(top(c) or (None, 0))[1] for c in board]
    return any(all(faces[i] == side for i in l) for l in LINES)


def primitive(board, me):
    if has_line(board, me):
        return "win"
    if has_line(board, 3 - me):
        return "lose"
    return None


def children(sizes, board, me):
    out = []
    hs = [height(c) for c in board]
    for k, have in enumerate(sizes):
        on = sum(1 for c in board if c[k] == me)
        if on < have:
            for to in range(9):
                if hs[to] < k:
                    b = list(board)
                    c = list(b[to])
                    c[k] = me
                    b[to] = tuple(c)
                    out.append((tuple(b), 3 - me))
    for frm in range(9):
        t = top(board[frm])
        if t is None or t[1] != me:
            continue
        k = t[0]
        for to in range(9):
            if hs[to] < k:
                b = list(board)
                c = list(b[frm])
                c[k] = 0
                b[frm] = tuple(c)
                d = list(b[to])
                d[k] = me
                b[to] = tuple(d)
                out.append((tuple(b), 3 - me))
    return out


def text(pos):
    board, me = pos
    cells = []
    for c in board:
        s = "".join(MARK[c[k]] + str(k + 1) for k in range(len(c)) if c[k])
        cells.append(s or ".")
    rows = [",".join(cells[r * 3:r * 3 + 3]) for r in range(3)]
    return "/".join(rows) + " " + MARK[me]


def solve(sizes):
    start = (tuple((0,) * len(sizes) for _ in range(9)), 1)
    index = {start: 0}
    positions = [start]
    kids = []
    queue = deque([0])
    while queue:
        i = queue.popleft()
        board, me = positions[i]
        if primitive(board, me) is not None:
            kids.append(())
            continue
        ks = []
        for ch in children(sizes, board, me):
            j = index.get(ch)
            if j is None:
                j = index[ch] = len(positions)
                positions.append(ch)
                queue.append(j)
            ks.append(j)
        kids.append(tuple(set(ks)))
    n = len(positions)
    parents = [[] for _ in range(n)]
    for i, ks in enumerate(kids):
        for j in ks:
            parents[j].append(i)
    value = [None] * n
    rem = [None] * n
    left = [len(ks) for ks in kids]  # children not yet known to be wins for their mover
    frontier = []
    for i, (board, me) in enumerate(positions):
        p = primitive(board, me)
        if p is None and not kids[i]:
            p = "lose"  # no move: a loss (never happens on 3x3 with a large piece)
        if p is not None:
            value[i], rem[i] = p, 0
            frontier.append(i)
    # Retrograde by remoteness: positions of remoteness r settle their parents at r + 1.
    r = 0
    while frontier:
        nxt = []
        for i in frontier:
            for q in parents[i]:
                if value[q] is not None:
                    continue
                if value[i] == "lose":
                    value[q], rem[q] = "win", r + 1
                    nxt.append(q)
                else:
                    left[q] -= 1
                    if left[q] == 0:
                        value[q], rem[q] = "lose", r + 1
                        nxt.append(q)
        frontier = nxt
        r += 1
    return positions, value, rem


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    sizes = [int(x) for x in args[0].split(",")]
    sample = None
    rest = args[1:]
    if rest[:1] == ["--sample"]:
        sample = int(rest[1])
        rest = rest[2:]
    positions, value, rem = solve(sizes)
    counts = {}
    for v in value:
        counts[v or "draw"] = counts.get(v or "draw", 0) + 1
    print(f"sizes {sizes}: start {value[0] or 'draw'} {rem[0]}; {len(positions)} positions, {counts}",
          file=sys.stderr)
    by_text = {text(p): i for i, p in enumerate(positions)}
    for t in rest:
        i = by_text.get(t)
        print(t, "unreachable" if i is None else f"{value[i] or 'draw'} {rem[i]}")
    if sample:
        for t in sorted(by_text)[::sample]:
            i = by_text[t]
            print(json.dumps({"position": t, "value": value[i] or "draw", "remoteness": rem[i]}))


if __name__ == "__main__":
    main()
