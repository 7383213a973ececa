#!/usr/bin/env python3
# Fits a placing-phase evaluation of line patterns to the results of
# self-play games, for rule sets without databases (one table for the rule
# sets named by --variants: Twelve Men's Morris, Morabaraba and Zhi Qi share
# one, as they share Twelve's weights; Dooz, Lasker and El Filja have their
# own), and writes it as a Rust table.
#
# No databases exist for these rule sets, so each position is labelled with
# its game's result for the side to move (win 1, draw 0.5, loss 0), as
# `mulino tune` labels positions without `--tb`. The positions are the
# placing positions of self-play games (PGN files as `mulino match --pgn`
# writes them; from ply 6 on, each distinct position once, the first game
# that reaches it labels it); every fifth game is held out, the same
# positions and split as `mulino tune --skip-plies 6` over the same files.
# The model is placing_patterns.py's (a weight per line class and
# configuration, per piece of material, per pair of hands, a bias) over the
# board's 16 lines, or 20 where the rule sets have diagonals: the four
# diagonals are a class of their own, and a configuration shares its weight
# with its mirror image (the board's exchange of the inner and outer rings
# reverses a diagonal).
# Fitted by AdaGrad on the log loss, then scaled to centipieces with the
# evaluation's scale (`mulino tune --variant twelve` prints it).
#
# Usage: scripts/selfplay_patterns.py GAMES.pgn... [--variants twelve,morabaraba,zhi-qi]
#          [--bin target/release/mulino] [--epochs 8] [--scale 1.0707] [--marks dead]
#          [--out FILE.rs]
#        scripts/selfplay_patterns.py --scores FILE --variants V --scale K [--out FILE.rs]
# (the second fits to a deeper search's scores, scripts/search_labels.py's;
# tried for Russian mill and not kept: docs/experiments.md)
# (`--out src/search/patterns/twelve.rs` replaces the engine's table for
# those three; `--variants dooz --scale 0.7924 --out
# src/search/patterns/dooz.rs` Dooz's; `--variants lasker --scale 0.6769`
# Lasker's, `--variants el-filja --scale 1.1543` El Filja's; Da San Qi's,
# `--variants da-san-qi --scale 0.7424`, was tried and not kept:
# docs/experiments.md.
# The scale is what
# `mulino tune --variant V --skip-plies 6 --freeze in_hand` prints for the
# weights in use.)
# Prints the held-out squared error of a constant and of the fit, over all
# and per rule set.
import math
import sys

from millpgn import Engine, games
from patterns_fit import (CLASS, INDEX, LINES, LINES_DIAGONAL, WITH_DIAGONALS, Fit, canon, flags, line_features,
                          relative, write)

opts, args = flags({"--bin": "target/release/mulino", "--variants": "twelve,morabaraba,zhi-qi",
                    "--epochs": "8", "--scale": "1.0707", "--out": "", "--marks": "dead",
                    "--scores": ""})
if not args and not opts["--scores"]:
    sys.exit("usage: selfplay_patterns.py GAMES.pgn... [--variants V,..] [--bin B] [--epochs N] [--scale K] "
             "[--marks dead|empty] [--out F]")
VARIANTS = opts["--variants"].split(",")
PIECES = 12  # the hands' table is this size for every rule set
DIAGONAL = WITH_DIAGONALS.issuperset(VARIANTS)
if not DIAGONAL and WITH_DIAGONALS.intersection(VARIANTS):
    sys.exit("the rule sets of one table must all have diagonals or none")
LINES20 = LINES_DIAGONAL if DIAGONAL else LINES
CLASS20 = CLASS + [3] * 4
RESULT = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
# A marked point (Da San Qi's removals while placing) stays empty until
# placing ends: `--marks dead` (3) leaves out every line through one (no
# mill closes there while placing lasts); `--marks empty` counts it as
# empty.
if opts["--marks"] not in ("dead", "empty"):
    sys.exit("--marks: dead or empty")
CELL = {"O": 1, "@": 2, "X": 3 if opts["--marks"] == "dead" else 0}


def fen_position(engine, moves):
    """The board (0 empty, 1 White, 2 Black, by point index), the side to
    move (0 White, 1 Black) and the hands after `moves`, from the FEN that
    the engine's `d` prints (its points in the engine's index order)."""
    engine.position(moves)
    engine.send("d")
    fen = engine.until(lambda l: l.startswith("Fen: "))[-1].split()[1:]
    board = [CELL.get(c, 0) for c in fen[0].replace("/", "")]
    return board, "wb".index(fen[1]), [int(fen[5]), int(fen[7])]


def features(board, side, hands):
    cell = relative(board, side)
    oh, th = hands[side], hands[1 - side]
    lines = line_features(cell, LINES20, CLASS20)
    material = cell.count(1) + oh - cell.count(2) - th
    return lines + [(("M",), float(material)), (("H", oh, th), 1.0), (("B",), 1.0)]


# 1. The positions, labelled by their games' results. The engine replays
# each game (`position ... moves`, then `d`), so that every rule set's
# removals (from the hand in Dooz, on a full board in Experimental) are its.
# With --scores, the positions of that file instead (one rule set, the first
# of --variants), each labelled by a deeper search's score: lines
# `FEN<TAB>cp|mate<TAB>N` as `mulino tune --scores` reads them, the label
# 1 / (1 + exp(-k * cp / 100)) with k = --scale, every fifth line held out.
engine = Engine(opts["--bin"])
seen, data, n = set(), [], 0
if opts["--scores"]:
    k = float(opts["--scale"])
    for i, line in enumerate(open(opts["--scores"])):
        fen, kind, value = line.rstrip("\n").split("\t")[:3]
        f = fen.split()
        board = [CELL.get(c, 0) for c in f[0].replace("/", "")]
        side, hands = "wb".index(f[1]), [int(f[5]), int(f[7])]
        if hands == [0, 0]:
            continue
        if kind == "mate":
            y = 1.0 if int(value) > 0 else 0.0
        else:
            y = 1 / (1 + math.exp(-k * int(value) / 100))
        data.append((features(board, side, hands), y, (i % 5 == 4, VARIANTS[0])))
    n = len(data)
for path in args:
    for tags, _, moves in games(path):
        variant, white = tags.get("Variant", "nine"), RESULT.get(tags.get("Result"))
        if variant not in VARIANTS or white is None or "FEN" in tags or "Rules" in tags:
            continue
        engine.send(f"setoption name Variant value {variant}")
        held = n % 5 == 4
        n += 1
        for ply in range(6, len(moves)):
            board, side, hands = fen_position(engine, moves[:ply])
            if hands == [0, 0]:
                break
            key = (variant, tuple(board), side, tuple(hands))
            if key not in seen:
                seen.add(key)
                y = white if side == 0 else 1 - white
                data.append((features(board, side, hands), y, (held, variant)))
engine.send("quit")

# 2. The fit, the held-out error per rule set, and the table in centipieces.
fit = Fit([(f, y, held) for f, y, (held, _) in data], n, int(opts["--epochs"]), "placing")
for v in VARIANTS:
    rows = [(f, y, 0) for f, y, (held, w) in data if held and w == v]
    if rows:
        print(f"{v}: {len(rows)} held out, error {fit.error(rows):.4f}")
scale = float(opts["--scale"])
line = [[fit.cp(("L", c, canon(x)), scale) for x in range(27)] for c in range(4)]
hand = [[fit.cp(("H", o, t), scale) for t in range(PIECES + 1)] for o in range(PIECES + 1)]
names = {"twelve": "Twelve Men's Morris", "morabaraba": "Morabaraba", "zhi-qi": "Zhi Qi",
         "experimental": "Experimental", "dooz": "Dooz", "lasker": "Lasker", "el-filja": "El Filja",
         "da-san-qi": "Da San Qi", "russian": "Russian Mill"}
rule_sets = ", ".join(names.get(v, v) for v in VARIANTS)
if opts["--scores"]:
    source = f"""fitted to a
//! deeper search's scores of positions of games (`scripts/search_labels.py`;
//! docs/evaluation.md names the builds and the games) by
//! `scripts/selfplay_patterns.py --scores` over {len(fit.train)} positions"""
else:
    source = f"""fitted to the
//! results of self-play games (`mulino match`, 30,000 nodes a move, random
//! 6-ply openings; docs/evaluation.md names the builds) by
//! `scripts/selfplay_patterns.py` over {len(fit.train)} positions of {n} games"""
write(f"""//! The placing phase's line patterns for {rule_sets}, {source}
//! (held-out error {fit.held_out:.4f}; a constant: {fit.constant:.4f}).
//! Centipieces, for the side to move.

use super::PlacingPatterns;

pub const PATTERNS: PlacingPatterns = PlacingPatterns {{
    diagonals: {str(DIAGONAL).lower()},
    line: {line},
    hand: {hand},
    material: {fit.cp(("M",), scale)},
    bias: {fit.cp(("B",), scale)},
}};
""", opts["--out"])
