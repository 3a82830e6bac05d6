"""Plain negamax oracle for k-in-a-row games with own marks (x first), placement or gravity,
normal or misere (misere: the player who makes the line loses). Prints the start's value and
remoteness, and every reachable position counted by value (as `gamesman analyze` counts)."""
import sys
from functools import lru_cache
from collections import Counter
sys.setrecursionlimit(10000)

def lines(R, C, k):
    out = []
    for r in range(R):
        for c in range(C):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(k)]
                if all(0 <= a < R and 0 <= b < C for a, b in cells):
                    out.append([a * C + b for a, b in cells])
    return out

def make(R, C, k, gravity, misere):
    L = lines(R, C, k)
    by_cell = [[l for l in L if i in l] for i in range(R * C)]

    def moves(s):
        if gravity:
            for c in range(C):
                for r in range(R - 1, -1, -1):
                    if s[r * C + c] == '.':
                        yield r * C + c
                        break
        else:
            for i, ch in enumerate(s):
                if ch == '.':
                    yield i

    @lru_cache(maxsize=None)
    def solve(s, last):
        # last: the cell just played (-1 at the start); returns (value, remoteness) for mover
        if last >= 0:
            m = s[last]
            if any(all(s[j] == m for j in l) for l in by_cell[last]):
                return ('win' if misere else 'lose', 0)
        if '.' not in s:
            return ('tie', 0)
        mover = 'x' if s.count('x') == s.count('o') else 'o'
        kids = []
        for i in moves(s):
            t = s[:i] + mover + s[i + 1:]
            kids.append(solve(t, i))
        lose = [r for v, r in kids if v == 'lose']
        if lose:
            return ('win', min(lose) + 1)
        tie = [r for v, r in kids if v == 'tie']
        if tie:
            return ('tie', min(tie) + 1)
        return ('lose', max(r for v, r in kids) + 1)

    return solve, moves

def analyze(R, C, k, gravity, misere):
    solve, moves = make(R, C, k, gravity, misere)
    start = '.' * (R * C)
    seen = {}
    stack = [(start, -1)]
    while stack:
        s, last = stack.pop()
        if s in seen:
            continue
        v = solve(s, last)
        seen[s] = v
        if v[1] == 0:
            continue
        mover = 'x' if s.count('x') == s.count('o') else 'o'
        for i in moves(s):
            stack.append((s[:i] + mover + s[i + 1:], i))
    counts = Counter(v for v, r in seen.values())
    prim = Counter(v for v, r in seen.values() if r == 0)
    return solve(start, -1), len(seen), dict(counts), dict(prim), solve, seen

if __name__ == '__main__':
    for name, args in [('ttt34 (3x4, k=3, place)', (3, 4, 3, False, False)),
                       ('misere ttt (3x3, k=3)', (3, 3, 3, False, True)),
                       ('connect3 (4x5, k=3, gravity)', (4, 5, 3, True, False))]:
        st, n, counts, prim, solve, seen = analyze(*args)
        print(name, 'start', st, 'reachable', n, counts, 'primitive', prim)
        R, C = args[0], args[1]
        # the value after each first move (from the mover's opponent's side)
        _, moves = make(*args)
        s = '.' * (R * C)
        print('  after each first move:', [(i, seen[s[:i] + 'x' + s[i + 1:]]) for i in moves(s)])
