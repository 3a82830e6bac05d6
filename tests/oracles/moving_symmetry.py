#!/usr/bin/env python3
"""An independent oracle of the symmetries of boards whose pieces move, for tests/suite/moving.rs:
counts of positions up to symmetry, by brute force.

    python3 tests/oracles/moving_symmetry.py > tests/data/moving_symmetry.json

Triangular peg solitaire: a triangle of side n, cells (r, c) with 0 <= c <= r < n. Its
symmetries are listed by hand as two generators closed under composition:
- the mirror through the top corner: (r, c) -> (r, r - c);
- the turn that takes the top corner to the bottom-left one, that one to the bottom-right
  one and that one to the top: (r, c) -> (n - 1 - c, r - c).
A peg jumps over a neighbouring peg into the empty hole beyond, along a row, a column or the
slant (r +- 1, c +- 1), and the peg jumped over is removed. For each side:
- "orbits": the classes of all 2^cells sets of pegs under the symmetries (each set's
  images listed, the least taken);
- "reachable": the positions reachable from the start (the top corner empty, every other
  hole a peg), by breadth-first search;
- "stabiliser": how many symmetries map the start onto itself;
- "classes": the classes of the reachable positions under those symmetries.
The Tower of Hanoi, 6 discs on 3 pegs, from the goal (all discs on the last peg): the classes
of the 3^6 positions under the permutations of the pegs that keep the goal (by hand: the
swap of the first two pegs), every position being reachable.

Nothing is shared with src/: tuples and sets, no bitboards.
"""
import itertools
import json
from collections import deque


def triangle(n):
    cells = [(r, c) for r in range(n) for c in range(r + 1)]
    mirror = {(r, c): (r, r - c) for (r, c) in cells}
    turn = {(r, c): (n - 1 - c, r - c) for (r, c) in cells}
    ident = {x: x for x in cells}
    group = [ident]
    frontier = [ident]
    while frontier:
        new = []
        for g in frontier:
            for h in (mirror, turn):
                gh = {x: h[g[x]] for x in cells}
                if gh not in group:
                    group.append(gh)
                    new.append(gh)
        frontier = new
    assert len(group) == 6
    return cells, group


def canon(pegs, group):
    return min(tuple(sorted(g[x] for x in pegs)) for g in group)


def jumps(pegs, cells):
    cellset = set(cells)
    for (r, c) in pegs:
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)):
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if to in cellset and over in pegs and to not in pegs:
                yield (pegs - {(r, c), over}) | {to}


def peg_solitaire(n):
    cells, group = triangle(n)
    orbits = set()
    for bits in range(1 << len(cells)):
        pegs = [cells[i] for i in range(len(cells)) if bits >> i & 1]
        orbits.add(canon(pegs, group))
    start = frozenset(cells[1:])
    seen = {start}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for q in jumps(p, cells):
            q = frozenset(q)
            if q not in seen:
                seen.add(q)
                queue.append(q)
    fix = [g for g in group if frozenset(g[x] for x in start) == start]
    classes = {canon(p, fix) for p in seen}
    return {"side": n, "orbits": len(orbits), "reachable": len(seen), "stabiliser": len(fix), "classes": len(classes)}


def hanoi(discs, pegs):
    # A position: each disc's peg (disc 0 the smallest); every one of pegs^discs is reachable.
    keep = [p for p in itertools.permutations(range(pegs)) if p[pegs - 1] == pegs - 1]
    classes = {min(tuple(perm[x] for x in pos) for perm in keep) for pos in itertools.product(range(pegs), repeat=discs)}
    return {"discs": discs, "pegs": pegs, "symmetries": len(keep), "positions": pegs**discs, "classes": len(classes)}


print(json.dumps({"peg_solitaire": [peg_solitaire(5), peg_solitaire(6)], "hanoi": hanoi(6, 3)}, indent=1))
