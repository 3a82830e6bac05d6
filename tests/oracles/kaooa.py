#!/usr/bin/env python3
"""Kaooa as GamesmanOne plays it (src/games/kaooa/kaooa.c), solved by retrograde analysis
written independently of gamesman: its move and end rules transcribed from that file's
formulas, not from the star's lines.

Points: outer tips 0-4, inner pentagon 5-9. Crows (C) move first and drop all six crows, one
a turn, before moving any; the vulture (V) drops itself on its first turn, then steps to a
neighbouring empty point or jumps over a crow to the empty point beyond, capturing it.
Crows step only. The player to move loses when three crows have been captured (always the
crows) or the vulture cannot move; a player with no move loses.

A position is (points, side to move, crows dropped). Values are for the side to move;
remoteness as gamesman counts it (a win: 1 + the least of its losing children; a loss: 1 +
the greatest of its children); a position neither side can force is a draw.

Prints the start's value and remoteness, and the reachable positions by value; with
arguments ("C....V.... C 5 0": points, side, crows and vultures in hand, as gamesman writes
them), each one's value and remoteness; with --sample K, every K-th reachable position (in
sorted order) as JSON lines {"position", "value", "remoteness"} in gamesman's text."""
import sys
from collections import deque


def lower(n, bound):
    return 1 if n < bound else 0


def upper(n, bound):
    return -1 if n > bound else 0


def moves(b, turn, dropped):
    """(from, to) pairs, as GenerateMoves lists them."""
    out = []
    can_drop = dropped < 6
    for i in range(10):
        if turn == "C" and b[i] == "C" and not can_drop:
            if i < 5:
                ps = [i + 5 + lower(i + 5, 5) * 5, i + 4 + lower(i + 4, 5) * 5]
            else:
                ps = [i - 5, i - 1 + lower(i - 1, 5) * 5, i + 1 + upper(i + 1, 9) * 5, i - 4 + upper(i - 4, 4) * 5]
            out += [(i, j) for j in ps if b[j] == "-"]
        elif turn == "C" and b[i] == "-" and can_drop:
            out.append((i, i))
        elif turn == "V" and b[i] == "-" and "V" not in b:
            out.append((i, i))
        elif turn == "V" and b[i] == "V":
            if i < 5:
                ps = [i + 5 + lower(i + 5, 5) * 5, i + 4 + lower(i + 4, 5) * 5]
                out += [(i, j) for j in ps if b[j] == "-"]
                a0, a1 = i + 4 + lower(i + 4, 5) * 5, i + 5 + lower(i + 5, 5) * 5
                if b[a0] == "C":
                    j = (a0 - 1) + lower(a0 - 1, 5) * 5
                    if b[j] == "-":
                        out.append((i, j))
                if b[a1] == "C":
                    j = (a1 + 1) + upper(a1 + 1, 9) * 5
                    if b[j] == "-":
                        out.append((i, j))
            else:
                ps = [i - 5, i - 1 + lower(i - 1, 5) * 5, i + 1 + upper(i + 1, 9) * 5, i - 4 + upper(i - 4, 4) * 5]
                out += [(i, j) for j in ps if b[j] == "-"]
                a0, a1 = i - 1 + lower(i - 1, 5) * 5, i + 1 + upper(i + 1, 9) * 5
                if b[a0] == "C":
                    j = (a0 - 5) + lower(a0 - 5, 0) * 5
                    if b[j] == "-":
                        out.append((i, j))
                if b[a1] == "C":
                    j = (a1 - 4) + upper(a1 - 4, 4) * 5
                    if b[j] == "-":
                        out.append((i, j))
    return out


def play(b, turn, dropped, mv):
    frm, to = mv
    b = list(b)
    if turn == "C":
        if frm == to:
            b[to] = "C"
            dropped += 1
        else:
            b[to], b[frm] = "C", "-"
        return ("".join(b), "V", dropped)
    if frm != to:
        b[frm] = "-"
        lo, diff = min(frm, to), abs(to - frm)
        # A jump: the crow between goes (as DoMove finds it).
        if lo <= 4 and diff % 5 == 1 and b[lo + 5 + lower(lo + 5, 5) * 5] == "C" and not adjacent(frm, to):
            b[lo + 5 + lower(lo + 5, 5) * 5] = "-"
        elif lo <= 4 and diff % 5 == 3 and not adjacent(frm, to):
            b[lo + 4 + lower(lo + 4, 5) * 5] = "-"
    b[to] = "V"
    return ("".join(b), "C", dropped)


def adjacent(i, j):
    def near(i):
        if i < 5:
            return {i + 5, i + 4 + lower(i + 4, 5) * 5}
        return {i - 5, i - 1 + lower(i - 1, 5) * 5, i + 1 + upper(i + 1, 9) * 5, i - 4 + upper(i - 4, 4) * 5}
    return j in near(i)


def end(pos):
    b, turn, dropped = pos
    if dropped - b.count("C") >= 3:
        return "lose"
    if "V" in b and not moves(b, "V", dropped):
        return "lose"
    if not moves(b, turn, dropped):
        return "lose"
    return None


def main():
    root = ("-" * 10, "C", 0)
    kids, order = {}, [root]
    todo = deque([root])
    kids[root] = None
    while todo:
        p = todo.popleft()
        ks = [] if end(p) else [play(*p, m) for m in moves(*p)]
        kids[p] = ks
        for k in ks:
            if k not in kids:
                kids[k] = None
                order.append(k)
                todo.append(k)
    parents = {p: [] for p in order}
    for p in order:
        for k in kids[p]:
            parents[k].append(p)
    value, rem, left = {}, {}, {p: len(kids[p]) for p in order}
    level = [p for p in order if end(p)]
    for p in level:
        value[p], rem[p] = end(p), 0
    r = 0
    while level:
        nxt = []
        for c in level:
            for p in parents[c]:
                if p in value:
                    continue
                if value[c] == "lose":
                    value[p], rem[p] = "win", r + 1
                    nxt.append(p)
                else:
                    left[p] -= 1
                    if left[p] == 0:
                        value[p], rem[p] = "lose", r + 1
                        nxt.append(p)
        level = nxt
        r += 1
    by = {}
    for p in order:
        value.setdefault(p, "draw")
        by[value[p]] = by.get(value[p], 0) + 1
    if sys.argv[1:2] == ["--sample"]:
        import json
        for p in sorted(order)[::int(sys.argv[2])]:
            b, side, dropped = p
            text = f"{b.replace('-', '.')} {side} {6 - dropped} {0 if 'V' in b else 1}"
            print(json.dumps({"position": text, "value": value[p], "remoteness": rem.get(p)}))
        return
    for text in sys.argv[1:]:
        pts, side, crows, vultures = text.split()
        pos = (pts.replace(".", "-"), side, 6 - int(crows))
        print(text, value.get(pos, "unreachable"), rem.get(pos, "-"))
    print("start", value[root], rem.get(root, "-"))
    print("reachable", len(order), sorted(by.items()))


if __name__ == "__main__":
    main()
