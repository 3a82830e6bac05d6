#!/usr/bin/env python3
"""Othello on 4x4, solved by a plain search written independently of gamesman.

Rules: the 4 centre cells start o x / x o (x is Black and moves first); a move places a disc
of the mover's colour on an empty cell so that it flanks, in at least one of the 8
directions, a straight run of the other colour ending in one of the mover's discs, and turns
those runs over. A player with no such move passes (a move that changes only the side to
move); the game is over when neither player can place a disc, and the one with more discs
wins (equal: a tie).

A position is (board, side to move). The value is for the player to move, and remoteness
counts moves, passes included, as gamesman does: a win is 1 + the least remoteness of its
losing children, a loss 1 + the greatest of all its children, a tie 1 + the least of its
tying children; the end of the game is 0.

Prints: the start's value and remoteness, the disc counts of perfect play (each side
playing for the greatest margin of discs), and the counts of reachable positions (with the
side to move, and the boards alone). `othello.py sample6 SEED COUNT OUT`: the same rules on
6x6, positions met in random games 8 to 10 empty cells from the end, solved, as JSON lines."""
import sys
from functools import lru_cache

N = 4
DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
START = ("....", ".ox.", ".xo.", "....")


def flips(b, i, me):
    """The cells turned over by `me` placing on empty cell i (empty: not a move)."""
    other = "o" if me == "x" else "x"
    r, c = divmod(i, N)
    out = []
    for dr, dc in DIRS:
        run = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < N and 0 <= cc < N and b[rr * N + cc] == other:
            run.append(rr * N + cc)
            rr, cc = rr + dr, cc + dc
        if run and 0 <= rr < N and 0 <= cc < N and b[rr * N + cc] == me:
            out.extend(run)
    return out


def placements(b, me):
    out = []
    for i in range(N * N):
        if b[i] == ".":
            f = flips(b, i, me)
            if f:
                nb = list(b)
                nb[i] = me
                for j in f:
                    nb[j] = me
                out.append((i, "".join(nb)))
    return out


def children(pos):
    """[] at the end of the game; else the positions after each move (a pass included)."""
    b, me = pos
    other = "o" if me == "x" else "x"
    ps = placements(b, me)
    if ps:
        return [(nb, other) for _, nb in ps]
    if placements(b, other):
        return [(b, other)]
    return []


def end_value(pos):
    b, me = pos
    other = "o" if me == "x" else "x"
    mine, theirs = b.count(me), b.count(other)
    return "win" if mine > theirs else "lose" if mine < theirs else "tie"


@lru_cache(maxsize=None)
def solve(pos):
    kids = children(pos)
    if not kids:
        return (end_value(pos), 0)
    sols = [solve(k) for k in kids]
    losing = [r for v, r in sols if v == "lose"]
    if losing:
        return ("win", 1 + min(losing))
    tying = [r for v, r in sols if v == "tie"]
    if tying:
        return ("tie", 1 + min(tying))
    return ("lose", 1 + max(r for _, r in sols))


@lru_cache(maxsize=None)
def best_margin(pos):
    """Negamax of the final disc difference for the player to move (the score of perfect
    play, for the published 11-5)."""
    kids = children(pos)
    b, me = pos
    if not kids:
        other = "o" if me == "x" else "x"
        return b.count(me) - b.count(other)
    return max(-best_margin(k) for k in kids)


def reachable(root):
    seen = {root}
    todo = [root]
    while todo:
        p = todo.pop()
        for k in children(p):
            if k not in seen:
                seen.add(k)
                todo.append(k)
    return seen


def sample(seed, count, out_path):
    """6x6 (N set to 6 first): `count` positions met in random games from the standard start
    (its centre o x / x o, x first), each with 8 to 10 empty cells and a move to make, one a
    game; the JSON lines of gamesman's position text, value and remoteness."""
    import json
    import random
    rng = random.Random(seed)
    start = "".join("..ox.." if r == 2 else "..xo.." if r == 3 else "......" for r in range(N))
    out, seen = [], set()
    while len(out) < count:
        pos, stop = (start, "x"), rng.randint(8, 10)
        while pos[0].count(".") > stop and children(pos):
            pos = rng.choice(children(pos))
        if not children(pos) or pos in seen:
            continue
        seen.add(pos)
        value, rem = solve(pos)
        text = "/".join(pos[0][r * N:(r + 1) * N] for r in range(N)) + " " + pos[1]
        out.append({"position": text, "value": value, "remoteness": rem})
    with open(out_path, "w") as f:
        for line in out:
            f.write(json.dumps(line) + "\n")


def main():
    global N
    sys.setrecursionlimit(10000)
    if len(sys.argv) == 5 and sys.argv[1] == "sample6":
        N = 6
        sample(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        return
    root = ("".join(START), "x")
    value, rem = solve(root)
    margin = best_margin(root)
    all_pos = reachable(root)
    boards = {b for b, _ in all_pos}
    ends = sum(1 for p in all_pos if not children(p))
    passes = sum(1 for p in all_pos if children(p) and children(p)[0][0] == p[0])
    by = {}
    for p in all_pos:
        v = solve(p)[0]
        by[v] = by.get(v, 0) + 1
    print(f"start: {value} in {rem}")
    # Follow a line of play that keeps the best margin for each side to its end.
    p = root
    while children(p):
        p = next(k for k in children(p) if -best_margin(k) == best_margin(p))
    b = p[0]
    print(f"best margin for the first player: {margin}; a line keeping it ends "
          f"x {b.count('x')}, o {b.count('o')}, {b.count('.')} empty")
    print(f"positions (board, side to move): {len(all_pos)}")
    print(f"boards: {len(boards)}")
    print(f"ends: {ends}, passes: {passes}")
    print(f"by value: {sorted(by.items())}")


if __name__ == "__main__":
    main()
