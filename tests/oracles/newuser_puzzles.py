"""BFS oracles: the 2x3 sliding puzzle (goal 123/45.) and the Tower of Hanoi with 4 discs on 4
pegs (goal: all on the last peg). Counts every position reachable from the goal (the moves are
reversible) and the distance of each to the goal."""
from collections import deque, Counter

def bfs(goal, nbrs):
    dist = {goal: 0}
    q = deque([goal])
    while q:
        s = q.popleft()
        for t in nbrs(s):
            if t not in dist:
                dist[t] = dist[s] + 1
                q.append(t)
    return dist

# 2x3 slide: a string of 6 cells, '.' the blank
R, C = 2, 3
def slide(s):
    b = s.index('.')
    r, c = divmod(b, C)
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < R and 0 <= cc < C:
            j = rr * C + cc
            t = list(s); t[b], t[j] = t[j], t[b]
            yield ''.join(t)
d = bfs('12345.', slide)
print('slide 2x3: positions', len(d), 'max distance', max(d.values()),
      'farthest', [s for s, v in d.items() if v == max(d.values())],
      'from 3.1245:', d['3.1245'])
print('  by distance', sorted(Counter(d.values()).items()))

# Hanoi: a tuple giving each disc's peg (disc 0 the smallest)
P, N = 4, 4
def hanoi(s):
    tops = {}
    for disc in range(N - 1, -1, -1):
        tops[s[disc]] = disc  # smallest disc on each peg ends up last
    for p, disc in tops.items():
        for q in range(P):
            if q != p and (q not in tops or tops[q] > disc):
                t = list(s); t[disc] = q
                yield tuple(t)
d = bfs((P - 1,) * N, hanoi)
print('hanoi 4 discs 4 pegs: positions', len(d), 'start distance', d[(0,) * N],
      'max distance', max(d.values()))
print('  by distance', sorted(Counter(d.values()).items()))
