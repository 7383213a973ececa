#!/usr/bin/env python3
# How often an engine's move throws away a position's database value: a
# measure of play, move by move, sharper than a match. The positions come
# from games (PGN files as `mulino match --pgn` writes them), between two
# plies; each is probed with the databases (`tbprobe`: the value and every
# move's value), and only the critical ones are kept: some move keeps the
# value, some other move loses it. Each engine then searches each of them
# (`go ...`, no databases) and its move is marked if it loses the value.
# Engines are compared on the same positions: the positions where one keeps
# the value and the other does not are counted both ways (a sign test).
#
# Usage: scripts/tbmoves.py TBDIR GAMES.pgn... --engine NAME=BINARY [--engine ...]
#          [--go "movetime 100"] [--plies 5-18] [--max 500] [--probe BINARY] [--show]
# --show prints each move that loses the value: the position (its moves from
# the start), the move played with its value, and the moves that keep it.
import math, sys

from millpgn import Engine, games

args = sys.argv[1:]
opts = {"--go": "movetime 100", "--plies": "5-18", "--max": "500", "--probe": "target/release/mulino"}
engines = []
rest = []
SHOW = "--show" in args
args = [a for a in args if a != "--show"]
i = 0
while i < len(args):
    a = args[i]
    if a == "--engine":
        name, _, binary = args[i + 1].partition("=")
        engines.append((name, binary))
        i += 2
    elif a in opts:
        opts[a] = args[i + 1]
        i += 2
    else:
        rest.append(a)
        i += 1
if len(rest) < 2 or not engines:
    sys.exit("usage: tbmoves.py TBDIR GAMES.pgn... --engine NAME=BINARY [...]")
TBDIR, PGNS = rest[0], rest[1:]
LO, HI = (int(x) for x in opts["--plies"].split("-"))
MAX = int(opts["--max"])
RANK = {"loss": 0, "draw": 1, "win": 2}


# 1. The positions: the moves that lead to them, each line once.
lines, seen = [], set()
for path in PGNS:
    for _, _, moves in games(path):
        for ply in range(LO, min(HI, len(moves)) + 1):
            key = " ".join(moves[:ply - 1])
            if key not in seen:
                seen.add(key)
                lines.append(moves[:ply - 1])

# 2. Their values, and the critical ones.
probe = Engine(opts["--probe"])
probe.use_tablebases(TBDIR)
critical = []
for moves in lines:
    value, by_move, _ = probe.tbprobe(moves)
    if value not in RANK or any(v not in RANK for v in by_move.values()):
        continue
    # A move's value is the mover's after it.
    keeps = [m for m, v in by_move.items() if v == value]
    loses = [m for m, v in by_move.items() if RANK[v] < RANK[value]]
    if keeps and loses:
        critical.append((moves, value, by_move))
    if len(critical) >= MAX:
        break
probe.send("quit")
print(f"{len(lines)} positions between plies {LO} and {HI}; {len(critical)} critical "
      f"(some move keeps the value, some loses it)", flush=True)

# 3. Each engine's moves.
marks = {}
for name, binary in engines:
    e = Engine(binary)
    lost = []
    for moves, value, by_move in critical:
        e.send("ucinewgame")
        e.position(moves)
        e.send("go " + opts["--go"])
        best = e.until(lambda l: l.startswith("bestmove"))[-1].split()[1]
        v = by_move.get(best)
        if v is None:
            sys.exit(f"{name} played {best}, not a legal move of {' '.join(moves)}")
        lost.append(RANK[v] < RANK[value])
        if SHOW and lost[-1]:
            keeps = " ".join(m for m, x in by_move.items() if x == value)
            print(f"  {name} at ply {len(moves) + 1} ({value}): startpos moves {' '.join(moves)}: "
                  f"played {best} ({v}); keeping: {keeps}", flush=True)
    e.send("quit")
    marks[name] = lost
    k, n = sum(lost), len(lost)
    err = 1.96 * math.sqrt(max(k, 1) * (n - k) / n) / n if n else 0
    print(f"{name}: {k} of {n} moves lose the value ({100 * k / max(n, 1):.1f}% +/- {100 * err:.1f})",
          flush=True)

# 4. Engines against each other on the same positions.
names = list(marks)
for a in range(len(names)):
    for b in range(a + 1, len(names)):
        x, y = marks[names[a]], marks[names[b]]
        only_a = sum(1 for i, j in zip(x, y) if i and not j)
        only_b = sum(1 for i, j in zip(x, y) if j and not i)
        n = only_a + only_b
        # Two-sided sign test.
        p = min(1.0, 2 * sum(math.comb(n, t) for t in range(0, min(only_a, only_b) + 1)) / 2 ** n) if n else 1.0
        print(f"{names[a]} loses the value where {names[b]} keeps it: {only_a}; "
              f"the other way: {only_b} (sign test p = {p:.3f})")
