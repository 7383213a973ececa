#!/usr/bin/env python3
# Reads games with the databases: where each game was decided, and by whom.
# For every game of the PGN files (as `mulino match --pgn` writes them), the
# position after each ply is probed (`tbprobe`) and the game is summed up:
# the value for White after the opening's book plies, and each move that
# changed the game's value (a win or draw thrown away), with its ply and
# the engine that played it. Needs the whole game's databases (moving phase
# and placing layers); a position no file has is `unknown`. At the end, the
# results by the opening's value, and each engine's moves that threw a value
# away (a draw or a win, placing or moving), and how the games went in which
# the other engine threw a draw away (the chances it gave).
# Usage: scripts/tbgames.py TBDIR GAMES.pgn... [--bin target/release/mulino]
#        [--engine NAME]   (the engine whose losses are counted; default mulino)
import sys

from millpgn import Engine, games

args = sys.argv[1:]
BIN, ENGINE = "target/release/mulino", "mulino"
for flag in ("--bin", "--engine"):
    if flag in args:
        i = args.index(flag)
        val = args[i + 1]
        del args[i:i + 2]
        if flag == "--bin":
            BIN = val
        else:
            ENGINE = val
if len(args) < 2:
    sys.exit(__doc__ or "usage: tbgames.py TBDIR GAMES.pgn...")
TBDIR, PGNS = args[0], args[1:]

probe = Engine(BIN)
probe.use_tablebases(TBDIR)


def value(moves):
    """The value for the side to move after `moves`: 'win', 'draw', 'loss' or 'unknown'."""
    value, _, lines = probe.tbprobe(moves)
    for l in lines:
        if l.startswith("tbprobe value "):
            break
        if "error" in l and ("no databases" in l or "TablebasePath" not in l):
            sys.exit(l)
    return value or "unknown"


FLIP = {"win": "loss", "loss": "win", "draw": "draw", "unknown": "unknown"}
totals = {}
# (engine, "a draw"/"a win", "placing"/"moving") -> moves that threw it away
thrown = {}
# ENGINE's result -> games in which its opponent threw a draw away
chances = {}
for path in PGNS:
    for n, (tags, books, moves) in enumerate(games(path), 1):
        white, black, result = tags.get("White"), tags.get("Black"), tags.get("Result")
        vals = [value(moves[:i]) for i in range(len(moves) + 1)]
        # Values for White.
        vw = [v if i % 2 == 0 else FLIP[v] for i, v in enumerate(vals)]
        opening = vw[books]
        errors = []
        gave_chance = False
        for i in range(books, len(moves)):
            a, b = vw[i], vw[i + 1]
            if a == "unknown" or b == "unknown" or a == b:
                continue
            mover = white if i % 2 == 0 else black
            # A move changes only its own side's value for the worse.
            errors.append(f"ply {i + 1} {moves[i]} by {mover}: {a} -> {b} for White")
            before = a if i % 2 == 0 else FLIP[a]  # for the side that moved
            phase = "moving" if "-" in moves[i] else "placing"
            key = (mover, "a win" if before == "win" else "a draw", phase)
            thrown[key] = thrown.get(key, 0) + 1
            if mover != ENGINE and before == "draw":
                gave_chance = True
        me_white = white == ENGINE
        mine = {"1-0": "win" if me_white else "loss", "0-1": "loss" if me_white else "win"}.get(result, "draw")
        op_me = opening if me_white else FLIP[opening]
        key = (op_me, mine)
        totals[key] = totals.get(key, 0) + 1
        if gave_chance:
            chances[mine] = chances.get(mine, 0) + 1
        print(f"{path} game {n}: {white}-{black} {result}, {ENGINE} {'white' if me_white else 'black'}: "
              f"opening {op_me} for {ENGINE}; {len(errors)} changes", flush=True)
        for e in errors:
            print("   " + e, flush=True)
print(f"\n{ENGINE}'s results by the value of the opening for it:")
for (op, res), k in sorted(totals.items()):
    print(f"  opening {op:7} result {res:4}: {k}")
print("\nmoves that threw a value away:")
for (who, what, phase), k in sorted(thrown.items()):
    print(f"  {who:12} threw {what:6} {phase:7}: {k}")
print(f"\ngames in which {ENGINE}'s opponent threw a draw away, by {ENGINE}'s result:")
for res in ("win", "draw", "loss"):
    print(f"  {res:4}: {chances.get(res, 0)}")
probe.send("quit")
