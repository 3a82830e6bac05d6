#!/usr/bin/env python3
"""Plain Python solvers of the board games in games/*.ron: an independent oracle for the
values the tests assert (tests/suite/boards.rs) and the peer of `gamesman bench` figures in
docs/benchmarks.md. Nothing clever: a dict of solved positions, negamax (or mex), no
symmetry, no decomposition, positions as tuples of cells.

    python3 bench/python/boards.py            # every check, with the positions each visits
    python3 bench/python/boards.py hex 4      # one game: tictactoe | connect4 R C K |
                                              # domineering R C [first|second] | hex N |
                                              # hex-openings N (every opening's value) |
                                              # notakto | cram R C
Values are for the player to move: win, lose or tie.
"""
import sys
import time

sys.setrecursionlimit(100000)
WIN, TIE, LOSE = 1, 0, -1
NAME = {WIN: "win", TIE: "tie", LOSE: "lose"}


def lines(rows, cols, k):
    out = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + dr * i, c + dc * i) for i in range(k)]
                if all(0 <= a < rows and 0 <= b < cols for a, b in cells):
                    out.append([a * cols + b for a, b in cells])
    return out


def in_row(rows, cols, k, drop=False, misere=False, shared=False):
    """Tic-tac-toe, Connect-k, Notakto: 'x'/'o' (or only 'x' when shared) on cells."""
    ls = lines(rows, cols, k)
    memo = {}

    def moves(b):
        if not drop:
            return [i for i in range(rows * cols) if b[i] == '.']
        out = []
        for c in range(cols):
            for r in range(rows - 1, -1, -1):
                if b[r * cols + c] == '.':
                    out.append(r * cols + c)
                    break
        return out

    def solve(b, me, other):
        key = (b, me)
        if key in memo:
            return memo[key]
        last = 'x' if shared else other
        if any(all(b[i] == last for i in l) for l in ls):
            v = WIN if misere else LOSE
        elif '.' not in b:
            v = TIE
        else:
            v = LOSE
            for i in moves(b):
                nb = b[:i] + ('x' if shared else me) + b[i + 1:]
                v = max(v, -solve(nb, other, me))
                if v == WIN:
                    break
        memo[key] = v
        return v

    v = solve('.' * (rows * cols), 'x', 'o')
    return v, len(memo)


def reachable_tictactoe():
    """Every position reachable from the empty board (play stops at a line or a full board)."""
    ls = lines(3, 3, 3)
    seen = set()
    stack = ['.' * 9]
    while stack:
        b = stack.pop()
        if b in seen:
            continue
        seen.add(b)
        me = 'x' if b.count('x') == b.count('o') else 'o'
        other = 'o' if me == 'x' else 'x'
        if any(all(b[i] == other for i in l) for l in ls) or '.' not in b:
            continue
        for i in range(9):
            if b[i] == '.':
                stack.append(b[:i] + me + b[i + 1:])
    return len(seen)


def domineering(rows, cols, first_moves=True):
    """Vertical (the first player) against horizontal; no move loses."""
    memo = {}

    def solve(cov, vertical):
        key = (cov, vertical)
        if key in memo:
            return memo[key]
        v = LOSE
        for r in range(rows):
            for c in range(cols):
                i = r * cols + c
                if cov >> i & 1:
                    continue
                if vertical:
                    if r + 1 >= rows or cov >> (i + cols) & 1:
                        continue
                    j = i + cols
                else:
                    if c + 1 >= cols or cov >> (i + 1) & 1:
                        continue
                    j = i + 1
                if solve(cov | 1 << i | 1 << j, not vertical) == LOSE:
                    v = WIN
                    break
            if v == WIN:
                break
        memo[key] = v
        return v

    return solve(0, first_moves), len(memo)


def hex_game(n, openings=False):
    """X joins top and bottom, O left and right; a cell touches (r,c±1), (r±1,c), (r-1,c+1), (r+1,c-1)."""
    nb = []
    for r in range(n):
        for c in range(n):
            nb.append([a * n + b for a, b in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c), (r - 1, c + 1), (r + 1, c - 1))
                       if 0 <= a < n and 0 <= b < n])

    def joined(b, who):
        start = [i for i in range(n * n) if b[i] == who and (i < n if who == 'x' else i % n == 0)]
        seen = set(start)
        while start:
            i = start.pop()
            if (who == 'x' and i >= n * (n - 1)) or (who == 'o' and i % n == n - 1):
                return True
            for j in nb[i]:
                if b[j] == who and j not in seen:
                    seen.add(j)
                    start.append(j)
        return False

    memo = {}

    def solve(b, me, other):
        key = b
        if key in memo:
            return memo[key]
        if joined(b, other):
            v = LOSE
        else:
            v = LOSE
            for i in range(n * n):
                if b[i] == '.':
                    if solve(b[:i] + me + b[i + 1:], other, me) == LOSE:
                        v = WIN
                        break
        memo[key] = v
        return v

    if openings:
        # Every opening's value for X (the negamax of each child, one memo for all).
        return [-solve('.' * i + 'x' + '.' * (n * n - 1 - i), 'o', 'x') for i in range(n * n)], len(memo)
    return solve('.' * (n * n), 'x', 'o'), len(memo)


def cram(rows, cols):
    """The Grundy value of the empty rows × cols board (mex over every domino, no tricks)."""
    memo = {}

    def g(cov):
        if cov in memo:
            return memo[cov]
        seen = set()
        for r in range(rows):
            for c in range(cols):
                i = r * cols + c
                if cov >> i & 1:
                    continue
                if c + 1 < cols and not cov >> (i + 1) & 1:
                    seen.add(g(cov | 1 << i | 1 << (i + 1)))
                if r + 1 < rows and not cov >> (i + cols) & 1:
                    seen.add(g(cov | 1 << i | 1 << (i + cols)))
        v = 0
        while v in seen:
            v += 1
        memo[cov] = v
        return v

    return g(0), len(memo)


def run(args):
    t = time.process_time()
    game = args[0]
    if game == 'tictactoe':
        (v, n), extra = in_row(3, 3, 3), f" reachable {reachable_tictactoe()}"
        out = NAME[v]
    elif game == 'notakto':
        (v, n), extra = in_row(3, 3, 3, misere=True, shared=True), ""
        out = NAME[v]
    elif game == 'connect4':
        r, c, k = map(int, args[1:4])
        (v, n), extra = in_row(r, c, k, drop=True), ""
        out = NAME[v]
    elif game == 'domineering':
        r, c = int(args[1]), int(args[2])
        first = len(args) < 4 or args[3] == 'first'
        (v, n), extra = domineering(r, c, first), ""
        out = NAME[v]
    elif game == 'hex':
        (v, n), extra = hex_game(int(args[1])), ""
        out = NAME[v]
    elif game == 'hex-openings':
        (vs, n), extra = hex_game(int(args[1]), openings=True), ""
        out = "openings " + " ".join(NAME[v] for v in vs)
    elif game == 'cram':
        (v, n), extra = cram(int(args[1]), int(args[2])), ""
        out = f"grundy {v}"
    else:
        raise SystemExit(f"unknown game {game}")
    secs = time.process_time() - t
    print(f"{' '.join(args)}: {out}{extra} ({n} positions, {secs:.2f} CPU-s, {n / max(secs, 1e-9):.0f} positions/s)")


if __name__ == '__main__':
    if len(sys.argv) > 1:
        run(sys.argv[1:])
    else:
        for a in (['tictactoe'], ['notakto'], ['hex', '3'], ['connect4', '4', '4', '4'],
                  ['connect4', '4', '5', '4'], ['connect4', '5', '4', '4'], ['connect4', '4', '4', '3'],
                  ['domineering', '2', '2'], ['domineering', '3', '3'], ['domineering', '4', '4'],
                  ['domineering', '5', '5', 'first'], ['domineering', '5', '5', 'second'],
                  ['domineering', '2', '3'], ['domineering', '3', '2'], ['domineering', '3', '4'], ['domineering', '4', '3'],
                  ['cram', '2', '2'], ['cram', '2', '3'], ['cram', '2', '4'], ['cram', '2', '5'], ['cram', '3', '3'],
                  ['cram', '3', '4'], ['cram', '3', '5'], ['cram', '4', '4'], ['cram', '4', '5']):
            run(a)
