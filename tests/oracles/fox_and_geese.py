#!/usr/bin/env python3
"""Fox and Geese on a cross, solved by retrograde analysis written independently of gamesman.

Board Cross(n), n odd, 3 <= n <= 9: the points (r, c) of an n x n grid with k <= r < k + 3
or k <= c < k + 3, k = (n - 3) // 2, numbered row by row, left to right (Cross(5): rows of
3, 5, 5, 5, 3 points; Cross(7) is the 33-point English board). Two points are adjacent when
they are next to each other in a row or a column; there are no diagonals.

Rules: the geese (G) step to an adjacent empty point down (row + 1), left or right, never
up. The fox (F) steps to an adjacent empty point in any of the four directions, or jumps: a
goose on the adjacent point in some direction, the point two away in that direction on the
board and empty, the fox lands there and the goose is captured (one jump a turn, no chains).
With --chain the fox may go on jumping in the same move, as long as it likes, and may stop
after any jump: each further jump is again over a goose on the adjacent point to the point
two away in that direction, on the board and empty; the geese jumped stay on the board until
the move ends (a goose cannot be jumped twice in one move, and its point cannot be landed on),
the point the fox started from is empty once it leaves (a chain may land back on it); when
the move ends every goose jumped is removed and the geese lost go up by their number. Two
chains that end in the same position are one child.
Before a side moves: if the geese have lost K of the G0 geese they started with (G0 = the
geese in START), the geese have lost (a loss with the geese to move, a win with the fox to
move, remoteness 0, whether or not moves exist); otherwise a side with no move has lost
(remoteness 0). Positions repeat; those neither side can force are draws.

A position is the points row by row, rows joined by "/", each "G", "F" or "."; a space, the
side to move; and " 0 0" (pieces in hand): "GGG/GGGGG/...../..F../... G 0 0". Values are for
the side to move; remoteness as gamesman counts it: 0 at an end, a win 1 + the least
remoteness of its losing children, a loss 1 + the greatest remoteness of its children;
draws have none (null). Solved level by level backwards from the ends over every position
reachable from START; whatever is left unsolved is a draw.

Usage: fox_and_geese.py N START K [--chain] [--jsonl STEP] [--check]
Prints the start's value and remoteness, the number of positions reachable from START and
their counts by value (win, lose, tie, draw); with --jsonl STEP, JSON lines
{"position", "value", "remoteness"} instead: the start, then sorted(texts)[0::STEP]. With
--check, the solution is first checked against its definition on every reachable position
(every win has a losing child of remoteness r - 1 and none less, every loss has only winning
children and r = 1 + their greatest, every draw a drawing child and no losing one).

Cross-check by hand (Cross(3), the full 3 x 3 grid): fox_and_geese.py 3 "GGG/.../.F. G 0 0" 1
gives a draw, 551 positions (win 91, lose 101, tie 0, draw 359); e.g. ".../GGG/.F. F 0 0"
is a win in 1 (the fox jumps the middle goose up to the empty top row) and ".../.../GFG G 0 0"
a loss in 0 (a goose is gone). With --chain (points 0-8 row by row): the same run gives a
draw, 571 positions (win 91, lose 121, tie 0, draw 359): the 20 more are ends, geese to move,
where one chain took two geese. With K 2, ".../G.G/FG. F 0 0" (fox 6, geese 3, 5, 7) is a
draw without chains (1036 positions: win 108, lose 103, draw 825) and a win in 1 with them
(1040: win 124, lose 107, draw 809): the fox's moves are 6-0 (over 3), 6-8 (over 7) and 6-8-2
(over 7, then up over 5), which takes the second goose. On Cross(5) (rows 0-2, 3-7, 8-12,
13-17, 18-20), "..G/.G.G./G...G/F..../... F 0 0" (fox 13, geese 2, 4, 6, 8, 12) gives the fox
13-14, 13-3, 13-3-5, 13-3-5-7 and 13-3-5-7-17 (over 8, 4, 6, 12 in turn), five positions.
"""
import json
import sys
from collections import Counter

DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # up, down, left, right
GOOSE_DIRS = (1, 2, 3)  # down, left, right: never up
WIN, LOSE, DRAW = 1, 2, 0
NAMES = {WIN: "win", LOSE: "lose", DRAW: "draw"}


def cross(n):
    """The points of Cross(n) in order, and for each its neighbour in each of DIRS (or None)."""
    k = (n - 3) // 2
    pts = [(r, c) for r in range(n) for c in range(n) if k <= r < k + 3 or k <= c < k + 3]
    index = {p: i for i, p in enumerate(pts)}
    nbr = [[index.get((r + dr, c + dc)) for dr, dc in DIRS] for r, c in pts]
    return pts, nbr


def parse(n, text):
    """(geese bitmask, fox point, side: 0 geese / 1 fox) from a position text."""
    pts, _ = cross(n)
    cells, side, hand_g, hand_f = text.split()
    assert (hand_g, hand_f) == ("0", "0") and side in "GF"
    rows = cells.split("/")
    want = [sum(1 for r, _ in pts if r == row) for row in range(n)]
    assert [len(x) for x in rows] == want, f"Cross({n}) has rows of {want}"
    flat = "".join(rows)
    assert set(flat) <= set("GF.") and flat.count("F") == 1
    geese = sum(1 << i for i, ch in enumerate(flat) if ch == "G")
    return geese, flat.index("F"), "GF".index(side)


def render(rows, pos):
    """The text of a position; rows: the point numbers of each row (rows_of(n))."""
    geese, fox, side = pos
    cell = lambda i: "F" if i == fox else "G" if geese >> i & 1 else "."
    return "/".join("".join(map(cell, row)) for row in rows) + " " + "GF"[side] + " 0 0"


def rows_of(n):
    pts, _ = cross(n)
    return [[i for i, (r, _) in enumerate(pts) if r == row] for row in range(n)]


def fox_moves(nbr, geese, fox, chain=False):
    """The fox's moves from fox, as (path, child): path the points visited (start, then each
    landing point), child the position after it (geese to move). Without chain, a step or one
    jump; with chain, also every longer chain of jumps: the geese jumped stay on the board
    (cannot be jumped again or landed on) until the move ends, the start point is empty."""
    out = []
    for d in range(4):
        j = nbr[fox][d]
        if j is not None and not geese >> j & 1:
            out.append(((fox, j), (geese, j, 0)))
    stack = [((fox,), 0)]  # (path so far, geese jumped so far)
    while stack:
        path, jumped = stack.pop()
        at = path[-1]
        for d in range(4):
            j = nbr[at][d]
            if j is None or not geese >> j & 1 or jumped >> j & 1:
                continue
            k = nbr[j][d]
            if k is None or geese >> k & 1:  # the start point counts as empty
                continue
            step = (path + (k,), jumped | 1 << j)
            out.append((step[0], (geese & ~step[1], k, 0)))
            if chain:
                stack.append(step)
    return out


def children(nbr, pos, chain=False):
    """The distinct positions one move from pos (two chains to the same position: one child)."""
    geese, fox, side = pos
    out = []
    if side == 0:
        g = geese
        while g:
            i = (g & -g).bit_length() - 1
            g &= g - 1
            for d in GOOSE_DIRS:
                j = nbr[i][d]
                if j is not None and j != fox and not geese >> j & 1:
                    out.append((geese ^ (1 << i) ^ (1 << j), fox, 1))
        return out
    seen = set()
    for _, c in fox_moves(nbr, geese, fox, chain):
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def solve(n, start, K, chain=False):
    """All positions reachable from start (a list, start first), and value, remoteness and
    children (as indices, distinct) of each; chain: the fox may chain jumps."""
    _, nbr = cross(n)
    g0 = bin(start[0]).count("1")
    order, index, kids, ends = [start], {start: 0}, [], {}
    i = 0
    while i < len(order):
        pos = order[i]
        if g0 - bin(pos[0]).count("1") >= K:
            ks = []
            ends[i] = LOSE if pos[2] == 0 else WIN
        else:
            ks = children(nbr, pos, chain)
            if not ks:
                ends[i] = LOSE
        ids = []
        for k in ks:
            j = index.get(k)
            if j is None:
                j = index[k] = len(order)
                order.append(k)
            ids.append(j)
        kids.append(ids)
        i += 1
    parents = [[] for _ in order]
    for p, ids in enumerate(kids):
        for c in ids:
            parents[c].append(p)
    value = bytearray(len(order))
    rem = [None] * len(order)
    left = [len(ids) for ids in kids]
    level = list(ends)
    for p in level:
        value[p], rem[p] = ends[p], 0
    r = 0
    while level:
        nxt = []
        for c in level:
            lost = value[c] == LOSE
            for p in parents[c]:
                if value[p]:
                    continue
                if lost:
                    value[p], rem[p] = WIN, r + 1
                    nxt.append(p)
                else:
                    left[p] -= 1
                    if left[p] == 0:
                        value[p], rem[p] = LOSE, r + 1
                        nxt.append(p)
        level, r = nxt, r + 1
    return order, value, rem, kids, ends


def check(value, rem, kids, ends):
    for p, ids in enumerate(kids):
        v, r = value[p], rem[p]
        assert len(set(ids)) == len(ids), p
        if p in ends:
            assert v == ends[p] and r == 0, p
            continue
        lost = [rem[c] for c in ids if value[c] == LOSE]
        if v == WIN:
            assert lost and min(lost) == r - 1, p
        elif v == LOSE:
            assert all(value[c] == WIN for c in ids), p
            assert r == 1 + max(rem[c] for c in ids), p
        else:
            assert r is None and not lost and any(value[c] == DRAW for c in ids), p


def main():
    args = sys.argv[1:]
    step, checking, chain = None, "--check" in args, "--chain" in args
    if checking:
        args.remove("--check")
    if chain:
        args.remove("--chain")
    if "--jsonl" in args:
        i = args.index("--jsonl")
        step = int(args[i + 1])
        del args[i : i + 2]
    n, text, K = int(args[0]), args[1], int(args[2])
    assert n % 2 == 1 and 3 <= n <= 9
    start, rows = parse(n, text), rows_of(n)
    order, value, rem, kids, ends = solve(n, start, K, chain)
    if checking:
        check(value, rem, kids, ends)
    if step is None:
        by = Counter(value)
        print(f"start {render(rows, start)}: {NAMES[value[0]]} {rem[0]}")
        print(f"reachable {len(order)}: win {by[WIN]} lose {by[LOSE]} tie 0 draw {by[DRAW]}")
        return
    texts = sorted((render(rows, p), i) for i, p in enumerate(order))
    for t, i in [(render(rows, start), 0)] + texts[::step]:
        print(json.dumps({"position": t, "value": NAMES[value[i]], "remoteness": rem[i]}))


if __name__ == "__main__":
    main()
