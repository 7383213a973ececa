#!/usr/bin/env python3
# Fits a placing-phase evaluation of line patterns for the twelve-piece rule
# sets with diagonals that mulino scores with Twelve's weights (Twelve Men's
# Morris, Morabaraba, Zhi Qi), and writes it as a Rust table.
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
# 20 lines of the board with diagonals: the four diagonals are a class of
# their own, and a configuration shares its weight with its mirror image
# (the board's exchange of the inner and outer rings reverses a diagonal).
# Fitted by AdaGrad on the log loss, then scaled to centipieces with the
# evaluation's scale (`mulino tune --variant twelve` prints it).
#
# Usage: scripts/twelve_patterns.py GAMES.pgn... [--variants twelve,morabaraba,zhi-qi]
#          [--epochs 8] [--scale 1.0707] [--out FILE.rs]
# (`--out src/search/patterns/twelve.rs` replaces the engine's table.)
# Prints the held-out squared error of a constant and of the fit, over all
# and per rule set.
import sys

from millpgn import games
from patterns_fit import CLASS, INDEX, LINES, Fit, canon, relative, write

args = sys.argv[1:]
opts = {"--variants": "twelve,morabaraba,zhi-qi", "--epochs": "8", "--scale": "1.0707", "--out": ""}
for flag in list(opts):
    if flag in args:
        i = args.index(flag)
        opts[flag] = args[i + 1]
        del args[i:i + 2]
if not args:
    sys.exit("usage: twelve_patterns.py GAMES.pgn... [--variants V,..] [--epochs N] [--scale K] [--out F]")
VARIANTS = opts["--variants"].split(",")
PIECES = 12
# The diagonals, middle point in the middle, in the engine's order (after
# the 16 lines of `patterns_fit.LINES`).
DIAGONALS = [["a1", "b2", "c3"], ["a7", "b6", "c5"], ["g7", "f6", "e5"], ["g1", "f2", "e3"]]
LINES20 = LINES + [[INDEX[p] for p in d] for d in DIAGONALS]
CLASS20 = CLASS + [3] * 4
RESULT = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def play(board, side, move):
    """Plays `side`'s turn: a placement `d6` or a step `d6-d5`, with its
    removals (`xb4`, `xb4xf2` where two mills close at once)."""
    step, *gone = move.split("x")
    if "-" in step:
        frm, step = step.split("-")
        board[INDEX[frm]] = 0
    board[INDEX[step]] = side + 1
    for g in gone:
        board[INDEX[g]] = 0


def features(board, side, hands):
    cell = relative(board, side)
    oh, th = hands[side], hands[1 - side]
    lines = [(("L", CLASS20[i], canon(cell[l[0]] * 9 + cell[l[1]] * 3 + cell[l[2]])), 1.0)
             for i, l in enumerate(LINES20)]
    material = cell.count(1) + oh - cell.count(2) - th
    return lines + [(("M",), float(material)), (("H", oh, th), 1.0), (("B",), 1.0)]


# 1. The positions, labelled by their games' results.
seen, data, n = set(), [], 0
for path in args:
    for tags, _, moves in games(path):
        variant, white = tags.get("Variant", "nine"), RESULT.get(tags.get("Result"))
        if variant not in VARIANTS or white is None or "FEN" in tags or "Rules" in tags:
            continue
        held = n % 5 == 4
        n += 1
        board, hands, side = [0] * 24, [PIECES, PIECES], 0
        for ply, m in enumerate(moves):
            if hands == [0, 0]:
                break
            key = (variant, tuple(board), side, tuple(hands))
            if ply >= 6 and key not in seen:
                seen.add(key)
                y = white if side == 0 else 1 - white
                data.append((features(board, side, hands), y, (held, variant)))
            play(board, side, m)
            if "-" not in m.split("x")[0]:
                hands[side] -= 1
            side = 1 - side

# 2. The fit, the held-out error per rule set, and the table in centipieces.
fit = Fit([(f, y, held) for f, y, (held, _) in data], n, int(opts["--epochs"]), "placing")
for v in VARIANTS:
    rows = [(f, y, 0) for f, y, (held, w) in data if held and w == v]
    if rows:
        print(f"{v}: {len(rows)} held out, error {fit.error(rows):.4f}")
scale = float(opts["--scale"])
line = [[fit.cp(("L", c, canon(x)), scale) for x in range(27)] for c in range(4)]
hand = [[fit.cp(("H", o, t), scale) for t in range(PIECES + 1)] for o in range(PIECES + 1)]
write(f"""//! The placing phase's line patterns for the twelve-piece rule sets with
//! diagonals scored with Twelve's weights (Twelve Men's Morris, Morabaraba,
//! Zhi Qi), fitted to the results of self-play games (`mulino match`, 30,000
//! nodes a move, random 6-ply openings; the README names the builds) by
//! `scripts/twelve_patterns.py` over {len(fit.train)} positions of {n} games
//! (held-out error {fit.held_out:.4f}; a constant: {fit.constant:.4f}).
//! Centipieces, for the side to move.

/// By class of line (outer and inner sides, middle sides, cross lines,
/// diagonals) and configuration `a * 9 + b * 3 + c` of its points in order
/// (0 empty, 1 the side to move's, 2 the other's).
pub const LINE: [[i16; 27]; 4] = {line};

/// By the side to move's pieces in hand and the other's.
pub const HAND: [[i16; 13]; 13] = {hand};

/// A piece more, on the board or in hand.
pub const MATERIAL: i32 = {fit.cp(("M",), scale)};

pub const BIAS: i32 = {fit.cp(("B",), scale)};
""", opts["--out"])
