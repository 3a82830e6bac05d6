#!/usr/bin/env python3
"""GamesmanOne's solutions of tic-tac-toe and Kaooa as neutral test data (never run in CI).

    python3 tests/oracles/gamesmanone_boards.py GAMESMANONE_DIR tictactoe OUT.jsonl
    python3 tests/oracles/gamesmanone_boards.py GAMESMANONE_DIR kaooa OUT.jsonl

It solves the game with GamesmanOne (`solve mtttier` / `solve mkaooa`, a data folder under
/tmp; GamesmanOne's `mttt` has no position query, its tier form `mtttier` is the same game),
then plays random games from the start (a fixed seed), asking GamesmanOne (`query`) for each
position's value, remoteness and children, until it has the start and 200 other positions.
Each line: `points` (one character a point, in GamesmanOne's point order), `to_move`, the
counts the game has, `value` (win / lose / tie / draw for the player to move) and
`remoteness` (null for a draw). See tests/data/README.md for the point numbering.
"""
import json
import os
import random
import subprocess
import sys

GAMES = {"tictactoe": ("mtttier", "---------"), "kaooa": ("mkaooa", "1_----------0")}


def query(g1, name, data, formal):
    out = subprocess.run(["./bin/gamesman", f"--data-path={data}", "query", name, "0", "--", formal],
                         cwd=g1, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def neutral(game, formal, value, remoteness):
    if game == "tictactoe":
        points = formal.replace("-", ".")
        to_move = "x" if points.count("x") == points.count("o") else "o"
        row = {"points": points, "to_move": to_move}
    else:
        # "T_BBBBBBBBBBD": T 1 crows to move, 2 the vulture; C a crow, V the vulture;
        # D the crows dropped so far (of 6).
        turn, board, dropped = formal[0], formal[2:12], int(formal[12:])
        points = board.replace("-", ".").replace("C", "c").replace("V", "v")
        row = {"points": points, "to_move": "crow" if turn == "1" else "vulture",
               "crows_in_hand": 6 - dropped, "crows_captured": dropped - points.count("c")}
    row["value"] = value
    row["remoteness"] = None if value == "draw" else remoteness
    return row


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in GAMES:
        sys.exit(__doc__)
    g1, game, path = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    name, start = GAMES[game]
    data = os.path.relpath("/tmp/gamesmanone-boards-data", g1)  # a relative data path only
    os.environ["OMP_WAIT_POLICY"] = "passive"
    subprocess.run(["./bin/gamesman", f"--data-path={data}", "solve", name], cwd=g1, check=True,
                   stdout=subprocess.DEVNULL)
    rng = random.Random(44)
    rows, seen = [], set()
    while len(rows) < 201:
        formal = start
        for _ in range(80):
            if len(rows) >= 201:
                break
            q = query(g1, name, data, formal)
            if formal not in seen:
                seen.add(formal)
                rows.append(neutral(game, formal, q["positionValue"], q["remoteness"]))
            if not q["moves"]:
                break
            formal = rng.choice(q["moves"])["position"]
    with open(path, "w") as f:
        for i, r in enumerate(rows):
            f.write(json.dumps(dict(r, start=i == 0)) + "\n")


if __name__ == "__main__":
    main()
