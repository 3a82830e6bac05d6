#!/usr/bin/env python3
"""An independent solver of Connect-k with gravity on small boards, the oracle of
tests/connect4.rs.

Rules (games/connect4.rhai): X and O take turns dropping a piece into a column that is not
full; it falls to the lowest empty cell. Whoever has just made k in a row (across, down or
diagonally) has won, so the player to move has lost; a full board without that is a tie.
X moves first.

Plain negamax with a memo over every position reachable from the empty board, boards as
strings (rows from the top), no bitboards, no symmetry, no tiers: it shares nothing with
src/native/connect4.rs but the position text. Values and remoteness as gamesman defines
them: a win is one move more than its quickest losing child; a tie (no losing child, a
tying one) one more than its quickest tying child; a loss (every child a win) one more
than its slowest child.

    python3 tests/oracles/connect4.py ROWS COLS K SAMPLE SEED [--after N]

prints the number of reachable positions and the start's value on stderr, and on stdout
one JSON line per position for SAMPLE positions drawn at random (seeded) from all the
reachable ones, the start always among them, sorted:
{"position": "4x4k4/..../..../..../x...", "value": "tie", "remoteness": 15}.
tests/data/connect4.jsonl is (the 5x4 board takes about 3 minutes and 300 MB)

    (for b in "3 5 3" "4 4 3" "4 4 4"; do python3 tests/oracles/connect4.py $b 700 28; done;
     python3 tests/oracles/connect4.py 5 4 4 300 28) > tests/data/connect4.jsonl

With `--after N` the board is too big to solve whole: SAMPLE positions are drawn by N random
moves from the empty board (seeded; each move one that does not end the game), and each is
solved from where it stands, the start not among them. tests/data/connect4_big.jsonl is

    (python3 tests/oracles/connect4.py 6 5 4 150 28 --after 16;
     python3 tests/oracles/connect4.py 5 6 4 150 28 --after 16) > tests/data/connect4_big.jsonl
"""
import json
import random
import sys

sys.setrecursionlimit(10000)


def solver(rows, cols, k, memo):

    def cell(b, r, c):
        return b[r * cols + c]

    def has_line(b, who):
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    n = 0
                    rr, cc = r, c
                    while 0 <= rr < rows and 0 <= cc < cols and cell(b, rr, cc) == who:
                        n += 1
                        if n == k:
                            return True
                        rr += dr
                        cc += dc
        return False

    def to_move(b):
        return "x" if b.count("x") == b.count("o") else "o"

    def children(b):
        me = to_move(b)
        out = []
        for c in range(cols):
            for r in range(rows - 1, -1, -1):
                if cell(b, r, c) == ".":
                    i = r * cols + c
                    out.append(b[:i] + me + b[i + 1:])
                    break
        return out

    def solve(b):
        if b in memo:
            return memo[b]
        them = "o" if to_move(b) == "x" else "x"
        if has_line(b, them):
            res = ("lose", 0)
        elif "." not in b:
            res = ("tie", 0)
        else:
            kids = [solve(ch) for ch in children(b)]
            loses = [r for v, r in kids if v == "lose"]
            ties = [r for v, r in kids if v == "tie"]
            if loses:
                res = ("win", min(loses) + 1)
            elif ties:
                res = ("tie", min(ties) + 1)
            else:
                res = ("lose", max(r for _, r in kids) + 1)
        memo[b] = res
        return res

    def over(b):
        them = "o" if to_move(b) == "x" else "x"
        return "." not in b or has_line(b, them)

    return solve, children, over


def solve_board(rows, cols, k):
    memo = {}
    solve, _, _ = solver(rows, cols, k, memo)
    start = "." * (rows * cols)
    solve(start)
    return start, memo


def sample_after(rows, cols, k, sample, seed, after):
    """SAMPLE distinct positions N random moves deep, each with its value: the moves are drawn
    among those that do not end the game, so that the positions are still being played."""
    memo = {}
    solve, children, over = solver(rows, cols, k, memo)
    rng = random.Random(seed)
    chosen = {}
    while len(chosen) < sample:
        b = "." * (rows * cols)
        for _ in range(after):
            going_on = [c for c in children(b) if not over(c)]
            if not going_on:
                break
            b = rng.choice(going_on)
        else:
            chosen[b] = solve(b)
    return chosen


def text(rows, cols, k, b):
    return f"{rows}x{cols}k{k}/" + "/".join(b[r * cols:(r + 1) * cols] for r in range(rows))


def main():
    rows, cols, k, sample, seed = (int(a) for a in sys.argv[1:6])
    if sys.argv[6:7] == ["--after"]:
        chosen = sample_after(rows, cols, k, sample, seed, int(sys.argv[7]))
        print(f"{rows}x{cols}k{k}: {len(chosen)} positions after {sys.argv[7]} moves", file=sys.stderr)
        for b in sorted(chosen):
            v, r = chosen[b]
            print(json.dumps({"position": text(rows, cols, k, b), "value": v, "remoteness": r}))
        return
    start, memo = solve_board(rows, cols, k)
    print(f"{rows}x{cols}k{k}: {len(memo)} reachable positions, start {memo[start]}", file=sys.stderr)
    rng = random.Random(seed)
    boards = sorted(memo)
    chosen = set(rng.sample(boards, min(sample, len(boards))))
    chosen.add(start)
    for b in sorted(chosen):
        v, r = memo[b]
        print(json.dumps({"position": text(rows, cols, k, b), "value": v, "remoteness": r}))


if __name__ == "__main__":
    main()
