#!/usr/bin/env python3
"""An independent solver of Quixo on an n x n board (default 3x3), the oracle of
tests/suite/quixo.rs.

Rules (issue #28): the player to move takes a blank cube or one of their own from the
border of the board and pushes it back in at the opposite end of its row or of its column
(never where it came from); the cells in between shift by one, and the cube now shows the
mover's symbol. After a move, the player to move wins if they have a line (a full row,
column or diagonal of their symbol), even if the opponent has one too; else they lose if
the opponent has one.

It explores every position reachable from the empty board with X to move, breadth first,
and solves them by retrograde analysis from the ends: a win is one move more than its
quickest losing child, a loss one more than its slowest child (all wins), and what is
never decided is a draw. Output: one JSON line per reachable position, sorted,
{"position": "X.O/.X./O.. O", "value": "win", "remoteness": 3} (remoteness null for a
draw).

    python3 tests/oracles/quixo.py 3 > tests/data/quixo3.jsonl
    python3 tests/oracles/quixo.py 3 counts
    python3 tests/oracles/quixo.py 4 children 300 4 > tests/data/quixo-children.jsonl
    python3 tests/oracles/quixo.py 5 children 300 5 >> tests/data/quixo-children.jsonl

(the second form: the reachable positions counted by value and remoteness, and their
classes under the eight symmetries of the square counted the same way; the third: random boards and their children, to check the move generator on 4×4
and 5×5).

Written from the rules alone, with boards as strings (no bitboards, no symmetry), so that
it shares nothing with src/native/quixo.rs but the position text.
"""
import json
import sys
from collections import deque


def lines(n):
    out = [[(r, c) for c in range(n)] for r in range(n)]
    out += [[(r, c) for r in range(n)] for c in range(n)]
    out.append([(i, i) for i in range(n)])
    out.append([(i, n - 1 - i) for i in range(n)])
    return out


def has_line(board, n, who, ls):
    return any(all(board[r * n + c] == who for (r, c) in line) for line in ls)


def other(p):
    return 'O' if p == 'X' else 'X'


def children(board, n, mover):
    """Every position after one move of `mover` (boards as strings of n*n chars)."""
    out = []
    for r in range(n):
        for c in range(n):
            if not (r in (0, n - 1) or c in (0, n - 1)):
                continue
            if board[r * n + c] not in ('.', mover):
                continue
            cells = [list(board[i * n:(i + 1) * n]) for i in range(n)]
            # Along the row: push in at the left end (cells 0..c-1 shift right) or the right end.
            if c != 0:
                b = [row[:] for row in cells]
                for k in range(c, 0, -1):
                    b[r][k] = b[r][k - 1]
                b[r][0] = mover
                out.append(''.join(''.join(x) for x in b))
            if c != n - 1:
                b = [row[:] for row in cells]
                for k in range(c, n - 1):
                    b[r][k] = b[r][k + 1]
                b[r][n - 1] = mover
                out.append(''.join(''.join(x) for x in b))
            # Along the column: push in at the top or the bottom, only for a cube on the
            # top or bottom row, or in the left or right column (always on the border here).
            if r != 0:
                b = [row[:] for row in cells]
                for k in range(r, 0, -1):
                    b[k][c] = b[k - 1][c]
                b[0][c] = mover
                out.append(''.join(''.join(x) for x in b))
            if r != n - 1:
                b = [row[:] for row in cells]
                for k in range(r, n - 1):
                    b[k][c] = b[k + 1][c]
                b[n - 1][c] = mover
                out.append(''.join(''.join(x) for x in b))
    return out


def text(board, n, turn):
    return '/'.join(board[i * n:(i + 1) * n] for i in range(n)) + ' ' + turn


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    ls = lines(n)
    start = ('.' * (n * n), 'X')
    seen = {start: None}
    order = [start]
    queue = deque([start])
    kids = {}
    prim = {}
    while queue:
        pos = queue.popleft()
        board, turn = pos
        mine, theirs = has_line(board, n, turn, ls), has_line(board, n, other(turn), ls)
        if mine:
            prim[pos] = 'win'
            continue
        if theirs:
            prim[pos] = 'lose'
            continue
        ks = [(b, other(turn)) for b in children(board, n, turn)]
        kids[pos] = ks
        for k in ks:
            if k not in seen:
                seen[k] = None
                order.append(k)
                queue.append(k)
    # Retrograde analysis, level by level.
    parents = {p: [] for p in order}
    for p, ks in kids.items():
        for k in ks:
            parents[k].append(p)
    left = {p: len(ks) for p, ks in kids.items()}
    value, rem = {}, {}
    frontier = []
    for p, v in prim.items():
        value[p], rem[p] = v, 0
        frontier.append(p)
    for p, ks in kids.items():
        if not ks:  # no move: a loss for the player to move
            value[p], rem[p] = 'lose', 0
            frontier.append(p)
    level = 0
    pending = {}  # level -> positions decided at that level
    pending[0] = frontier
    while pending:
        now = pending.pop(level, [])
        for p in now:
            for q in parents[p]:
                if q in value:
                    continue
                if value[p] == 'lose':
                    value[q], rem[q] = 'win', level + 1
                    pending.setdefault(level + 1, []).append(q)
                else:
                    left[q] -= 1
                    if left[q] == 0:
                        value[q], rem[q] = 'lose', level + 1
                        pending.setdefault(level + 1, []).append(q)
        level += 1
    for p in order:
        if p not in value:
            value[p], rem[p] = 'draw', None
    rows = sorted((text(b, n, t), value[(b, t)], rem[(b, t)]) for (b, t) in order)
    if len(sys.argv) > 2 and sys.argv[2] == 'counts':
        print(json.dumps(counts_of(order, value, rem, n)))
        return
    for t, v, r in rows:
        print(json.dumps({"position": t, "value": v, "remoteness": r}))
    counts = {}
    for _, v, _ in rows:
        counts[v] = counts.get(v, 0) + 1
    start_text = text(start[0], n, start[1])
    print(f"{len(rows)} positions, {counts}; start {start_text}: {value[start]} {rem[start]}",
          file=sys.stderr)




def images(board, n):
    """The board under the eight symmetries of the square."""
    grid = [board[i * n:(i + 1) * n] for i in range(n)]
    out = []
    for _ in range(4):
        grid = [''.join(grid[n - 1 - c][r] for c in range(n)) for r in range(n)]  # a quarter turn
        out.append(''.join(grid))
        out.append(''.join(row[::-1] for row in grid))  # and its mirror
    return out


def counts_of(order, value, rem, n):
    """The reachable positions counted by value and by (remoteness, value), and the same
    for their classes under the symmetries of the square (a class: a position and its
    images, with the same player to move)."""
    def tally(keys):
        by_value, by_rem = {}, {}
        for k in keys:
            v, r = value[k], rem[k]
            by_value[v] = by_value.get(v, 0) + 1
            by_rem[f"{r} {v}"] = by_rem.get(f"{r} {v}", 0) + 1
        return {"count": len(keys), "by_value": by_value, "by_remoteness": by_rem}
    classes = {}
    for (b, t) in order:
        classes.setdefault((min(images(b, n)), t), (b, t))
    return {"positions": tally(order), "classes": tally(list(classes.values()))}


def sample_children(n, count, seed):
    """`count` random n x n positions (seeded) with the oracle's children of each, as JSON
    lines {"position", "children": sorted texts}: the move generator checked on the boards
    too big to solve here."""
    import random
    rng = random.Random(seed)
    ls = lines(n)
    for _ in range(count):
        board = ''.join(rng.choice('..XO') for _ in range(n * n))
        turn = rng.choice('XO')
        if has_line(board, n, 'X', ls) or has_line(board, n, 'O', ls):
            kids = []
        else:
            kids = sorted(text(b, n, other(turn)) for b in children(board, n, turn))
        print(json.dumps({"position": text(board, n, turn), "children": kids}))


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[2] == 'children':
        sample_children(int(sys.argv[1]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
