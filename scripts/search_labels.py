#!/usr/bin/env python3
# Labels positions of games with a deeper search's score, for
# `mulino tune --scores` (moving phase) and `selfplay_patterns.py --scores`
# (placing phase): where no databases exist, a search that sees further
# than the evaluation is a better teacher than the games' results, which
# between equal engines rarely show what the evaluation misses (Russian
# mill's blockades, docs/evaluation.md).
#
# From each game of the PGN files (`mulino match --pgn`, the rule set's
# own), up to PER positions of the phase asked for, at random plies of
# --plies A-B (from A, before B; B left out: to the end; fixed seed);
# each searched from a cleared hash (`ucinewgame`, `go nodes N`) and
# written as `FEN<TAB>cp|mate<TAB>N<TAB>depth<TAB>file`. The moving phase
# leaves out positions where a side flies (three pieces) or has no move.
# Appends to OUT; run one worker per core (games split by index).
#
# Usage: scripts/search_labels.py --variant russian --phase moving|placing
#          --nodes 700000 [--plies 18-] [--worker 0 --workers 2] [--bin target/release/mulino]
#          [--seed 7] --out OUT GAMES.pgn:PER...
import random
import sys

from millpgn import Engine, games
from patterns_fit import flags

opts, args = flags({"--variant": "nine", "--phase": "moving", "--nodes": "700000", "--worker": "0",
                    "--workers": "1", "--plies": "6-", "--bin": "target/release/mulino", "--out": "", "--seed": "7"})
if not args or not opts["--out"] or opts["--phase"] not in ("moving", "placing"):
    sys.exit("usage: search_labels.py --variant V --phase moving|placing --nodes N [--plies A-B] "
             "[--worker K --workers W] [--bin B] [--seed S] --out OUT GAMES.pgn:PER...")
worker, workers, nodes = int(opts["--worker"]), int(opts["--workers"]), int(opts["--nodes"])
phase = opts["--phase"]
first, _, last = opts["--plies"].partition("-")
engine = Engine(opts["--bin"])
engine.send(f"setoption name Variant value {opts['--variant']}")
rng = random.Random(int(opts["--seed"]))
out = open(opts["--out"], "a")
index = labelled = 0
for source in args:
    path, per = source.rsplit(":", 1)
    for tags, _, moves in games(path, opts["--bin"]):
        index += 1
        if tags.get("Variant", "nine") != opts["--variant"] or "FEN" in tags:
            continue
        plies = list(range(int(first), min(int(last or len(moves)), len(moves))))
        rng.shuffle(plies)
        if index % workers != worker:
            continue
        took = 0
        for ply in plies:
            if took >= int(per):
                break
            engine.position(moves[:ply])
            engine.send("d")
            engine.send("isready")
            lines = engine.until(lambda l: l == "readyok")
            if f"Phase: {phase}" not in lines or "Legal moves: 0" in lines:
                continue
            fen = next(l for l in lines if l.startswith("Fen: "))[5:]
            on_board = [int(l.split()[1]) for l in lines if l.startswith(("White: ", "Black: "))]
            if phase == "moving" and min(on_board) <= 3:
                continue
            engine.send("ucinewgame")
            engine.position(moves[:ply])
            engine.send(f"go nodes {nodes}")
            info = [l for l in engine.until(lambda l: l.startswith("bestmove")) if l.startswith("info depth")]
            w = info[-1].split()
            score = w.index("score")
            out.write(f"{fen}\t{w[score + 1]}\t{w[score + 2]}\t{w[w.index('depth') + 1]}\t{path.split('/')[-1]}\n")
            out.flush()
            took += 1
            labelled += 1
        if index % 100 == 0:
            print(f"worker {worker}: {index} games read, {labelled} positions labelled", flush=True)
engine.send("quit")
print(f"worker {worker}: done, {labelled} positions labelled", flush=True)
