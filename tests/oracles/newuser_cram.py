"""Plain mex oracle for Cram on an R x C board: a move covers two adjacent empty cells
(across or down); whoever cannot move loses. Grundy value and remoteness of the empty board,
and of the board after each first move. No components, no symmetry: a dict over bitmasks."""
import sys
sys.setrecursionlimit(10000)
R, C = int(sys.argv[1]), int(sys.argv[2])
dominoes = []
for r in range(R):
    for c in range(C):
        i = r * C + c
        if c + 1 < C: dominoes.append((1 << i) | (1 << (i + 1)))
        if r + 1 < R: dominoes.append((1 << i) | (1 << (i + C)))
memo = {}
def g(covered):
    if covered in memo: return memo[covered]
    vals = set(); lose_r = []; all_r = []
    for d in dominoes:
        if covered & d == 0:
            v, rem = g(covered | d)
            vals.add(v); all_r.append(rem)
            if v == 0: lose_r.append(rem)
    m = 0
    while m in vals: m += 1
    if not all_r: res = (0, 0)
    elif lose_r: res = (m, min(lose_r) + 1)
    else: res = (m, max(all_r) + 1)
    memo[covered] = res
    return res
print(f'cram {R}x{C}: empty board (grundy, remoteness) =', g(0), 'positions', len(memo))
for d in dominoes:
    print(' ', [i for i in range(R * C) if d >> i & 1], g(d))
