#!/usr/bin/env python3
"""Plain Python solvers of the games whose pieces move (games/8-puzzle.ron, hanoi.ron,
peg-solitaire.ron, dodgem.ron): an independent oracle for the figures tests/suite/moving.rs
asserts, and the peer of the `gamesman` figures in docs/benchmarks.md. Nothing clever:
positions as strings or tuples, a dict or a set, breadth-first search for the puzzles,
retrograde analysis for Dodgem (it is loopy), no symmetry.

    python3 bench/python/moving.py               # every game
    python3 bench/python/moving.py 8-puzzle      # one: 8-puzzle | hanoi [DISCS [PEGS]] |
                                                 # peg-solitaire [SIDE [HOLE]] | dodgem [N]
"""
import sys
import time
from collections import deque


def eight_puzzle():
    """Everything reachable from the goal 123/456/78. (blank '.'), by BFS: the count, the
    farthest distance, the positions that far, and the count at each distance."""
    goal = "12345678."
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        p = queue.popleft()
        b = p.index('.')
        r, c = divmod(b, 3)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < 3 and 0 <= nc < 3:
                j = nr * 3 + nc
                q = list(p)
                q[b], q[j] = q[j], q[b]
                q = ''.join(q)
                if q not in dist:
                    dist[q] = dist[p] + 1
                    queue.append(q)
    far = max(dist.values())
    ends = sorted('/'.join((p[0:3], p[3:6], p[6:9])) for p, d in dist.items() if d == far)
    counts = [0] * (far + 1)
    for d in dist.values():
        counts[d] += 1
    return len(dist), (f"{len(dist)} positions, farthest {far} moves: {' '.join(ends)}; "
                       f"by distance: {' '.join(map(str, counts))}")


def hanoi(n=6, pegs=3):
    """Everything reachable from n discs on the first peg (a position: each disc's peg,
    smallest first), and the distance to all on the last peg."""
    start = (0,) * n
    goal = (pegs - 1,) * n
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        top = {}
        for d in range(n - 1, -1, -1):  # the smallest disc on a peg is its top
            top[p[d]] = d
        for a, d in top.items():
            for b in range(pegs):
                if b != a and (b not in top or top[b] > d):
                    q = p[:d] + (b,) + p[d + 1:]
                    if q not in dist:
                        dist[q] = dist[p] + 1
                        queue.append(q)
    return len(dist), f"{len(dist)} positions, the goal {dist[goal]} moves from the start"


def triangle(n):
    """The holes of a triangle of side n, and its jumps (from, over, to)."""
    cells = [(r, c) for r in range(n) for c in range(r + 1)]
    index = {rc: i for i, rc in enumerate(cells)}
    jumps = []
    for (r, c), i in index.items():
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)):
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in index and to in index:
                jumps.append((i, index[over], index[to]))
    return len(cells), jumps


def peg_solitaire(n=5, hole=0):
    """Everything reachable from a full triangle with one hole empty (a position: the set of
    pegs as a bit mask), and whether a position with one peg is among them."""
    size, jumps = triangle(n)
    start = ((1 << size) - 1) & ~(1 << hole)
    seen = {start}
    queue = deque([start])
    one = 0
    while queue:
        p = queue.popleft()
        if bin(p).count('1') == 1:
            one += 1
        for a, b, c in jumps:
            if p >> a & 1 and p >> b & 1 and not p >> c & 1:
                q = p & ~(1 << a) & ~(1 << b) | (1 << c)
                if q not in seen:
                    seen.add(q)
                    queue.append(q)
    return len(seen), f"{len(seen)} positions, {one} of them with one peg ({'solvable' if one else 'unsolvable'})"


def dodgem(n=3, blocked_wins=True):
    """Dodgem on n x n (Winning Ways): X's cars on the left edge move E, N, S and leave off the
    east edge; O's on the bottom edge move N, E, W and leave off the north edge. A player
    whose last car leaves has won; a player who cannot move (blocked in) wins when
    `blocked_wins` (Winning Ways), loses otherwise. Retrograde analysis over everything
    reachable: the start's value for X, and the count of positions."""
    start = (''.join('x' if c == 0 and r < n - 1 else 'o' if r == n - 1 and c > 0 else '.'
                     for r in range(n) for c in range(n)), 0)
    dirs = {0: ((0, 1), (-1, 0), (1, 0)), 1: ((-1, 0), (0, 1), (0, -1))}

    def children(pos):
        b, turn = pos
        me = 'xo'[turn]
        out = []
        for i, ch in enumerate(b):
            if ch != me:
                continue
            r, c = divmod(i, n)
            for k, (dr, dc) in enumerate(dirs[turn]):
                nr, nc = r + dr, c + dc
                if 0 <= nr < n and 0 <= nc < n:
                    j = nr * n + nc
                    if b[j] == '.':
                        out.append((b[:i] + '.' + b[i + 1:j] + me + b[j + 1:] if i < j
                                    else b[:j] + me + b[j + 1:i] + '.' + b[i + 1:], 1 - turn))
                elif k == 0:
                    out.append((b[:i] + '.' + b[i + 1:], 1 - turn))
        return out

    def end(pos):
        """The value for the player to move, or None."""
        b, turn = pos
        if 'xo'[1 - turn] not in b:
            return -1  # the player who just moved has no car left: they won
        return None

    kids, seen, order = {}, {start}, [start]
    for pos in order:
        if end(pos) is not None:
            kids[pos] = []
            continue
        kids[pos] = children(pos)
        for q in kids[pos]:
            if q not in seen:
                seen.add(q)
                order.append(q)
    parents = {p: [] for p in order}
    for p in order:
        for q in kids[p]:
            parents[q].append(p)
    value, left, queue = {}, {p: len(kids[p]) for p in order}, deque()
    for p in order:
        v = end(p)
        if v is None and not kids[p]:
            v = 1 if blocked_wins else -1
        if v is not None:
            value[p] = v
            queue.append(p)
    while queue:
        q = queue.popleft()
        for p in parents[q]:
            if p in value:
                continue
            if value[q] == -1:
                value[p] = 1
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:
                    value[p] = -1
                    queue.append(p)
    name = {1: 'win', -1: 'lose', None: 'draw'}[value.get(start)]
    return len(order), f"{len(order)} positions, the start a {name} for X"


GAMES = {'8-puzzle': eight_puzzle, 'hanoi': hanoi, 'peg-solitaire': peg_solitaire, 'dodgem': dodgem}


def run(name, args=()):
    t = time.process_time()
    n, out = GAMES[name](*map(int, args))
    secs = time.process_time() - t
    print(f"{name}: {out} ({secs:.3f} CPU-s, {n / max(secs, 1e-9):.0f} positions/s)")


if __name__ == '__main__':
    if len(sys.argv) > 1:
        run(sys.argv[1], sys.argv[2:])
    else:
        for g in GAMES:
            run(g)
