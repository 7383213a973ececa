#!/usr/bin/env python3
# Fits a placing-phase evaluation of line patterns to the placing databases'
# values, and writes it as a Rust table.
#
# The positions are the placing positions of games (PGN files as `mulino
# match --pgn` writes them, Nine Men's Morris; from ply 4 on, each distinct
# position once), labelled by `tbprobe` with the whole game's databases:
# win 1, draw 0.5, loss 0 for the side to move. Every fifth game is held out.
# The model, from the side to move's point of view: for each of the 16 lines
# a weight for its three points (empty, ours, theirs), one table per class
# of lines under the board's symmetries (outer and inner sides, middle
# sides, cross lines; a line and its mirror image share a weight); a weight
# per piece of material (board and hand); one per pair of hands; and a
# bias. Its sum goes through a logistic curve; the weights are fitted by
# AdaGrad on the log loss, then scaled to centipieces with the
# evaluation's scale (`mulino tune` prints it: expected result
# 1 / (1 + exp(-k * cp / 100))).
#
# Usage: scripts/placing_patterns.py TBDIR GAMES.pgn... [--bin target/release/mulino]
#          [--epochs 8] [--scale 0.3045] [--out FILE.rs]
# (`--out src/search/patterns/placing.rs` replaces the engine's table.)
# Prints the held-out squared error of a constant and of the fit.
import math, random, sys

from millpgn import Engine, games

args = sys.argv[1:]
opts = {"--bin": "target/release/mulino", "--epochs": "8", "--scale": "0.3045", "--out": ""}
for flag in list(opts):
    if flag in args:
        i = args.index(flag)
        opts[flag] = args[i + 1]
        del args[i:i + 2]
if len(args) < 2:
    sys.exit("usage: placing_patterns.py TBDIR GAMES.pgn... [--bin B] [--epochs N] [--scale K] [--out F]")
TBDIR, PGNS = args[0], args[1:]

# Points by their index in the engine (src/core/point.rs): ring by ring,
# inner first, each from 12 o'clock clockwise.
NAMES = ("d5 e5 e4 e3 d3 c3 c4 c5 d6 f6 f4 f2 d2 b2 b4 b6 "
         "d7 g7 g4 g1 d1 a1 a4 a7").split()
INDEX = {p: i for i, p in enumerate(NAMES)}
# The 16 lines with their middle point in the middle, and their classes,
# in the order the engine's table uses.
LINES = [[r * 8 + (2 * k + 7) % 8, r * 8 + 2 * k, r * 8 + 2 * k + 1] for r in range(3) for k in range(4)]
LINES += [[2 * m, 2 * m + 8, 2 * m + 16] for m in range(4)]
CLASS = [0] * 4 + [1] * 4 + [0] * 4 + [2] * 4
VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def canon(c):
    """A configuration and its mirror image share a weight."""
    a, b, d = c // 9, c // 3 % 3, c % 3
    return min(c, d * 9 + b * 3 + a)


def features(board, side, hands):
    """(key, x) pairs of a position; board[i] is 0 empty, 1 White, 2 Black."""
    own = 1 if side == 0 else 2
    cell = [0 if b == 0 else 1 if b == own else 2 for b in board]
    f = [(("L", CLASS[i], canon(cell[l[0]] * 9 + cell[l[1]] * 3 + cell[l[2]])), 1.0)
         for i, l in enumerate(LINES)]
    oh, th = hands[side], hands[1 - side]
    material = cell.count(1) + oh - cell.count(2) - th
    return f + [(("M",), float(material)), (("H", oh, th), 1.0), (("B",), 1.0)]


# 1. The positions and their values.
probe = Engine(opts["--bin"])
probe.send(f"setoption name TablebasePath value {TBDIR}")
probe.until(lambda l: l.startswith("info string TablebasePath:") and "checked" in l)
seen, data, n = set(), [], 0
for path in PGNS:
    for tags, _, moves in games(path):
        if tags.get("Variant", "nine") != "nine":
            continue
        n += 1
        held = n % 5 == 0
        board, hands, side = [0] * 24, [9, 9], 0
        for ply, m in enumerate(moves[:18]):
            key = (tuple(board), side, tuple(hands))
            if ply >= 4 and key not in seen:
                seen.add(key)
                probe.position(moves[:ply])
                probe.send("tbprobe")
                probe.send("isready")
                for line in probe.until(lambda l: l == "readyok"):
                    w = line.split()
                    if line.startswith("tbprobe value ") and w[2] in VALUE:
                        data.append((features(board, side, hands), VALUE[w[2]], held))
            if "-" in m:
                break
            to, _, gone = m.partition("x")
            board[INDEX[to]] = side + 1
            hands[side] -= 1
            if gone:
                board[INDEX[gone]] = 0
            side = 1 - side
probe.send("quit")
train = [d for d in data if not d[2]]
test = [d for d in data if d[2]]
if not train or not test:
    sys.exit("no labelled placing positions (are the placing layers in TBDIR?)")

# 2. The fit.
w, g2 = {}, {}


def predict(f):
    s = sum(w.get(k, 0.0) * x for k, x in f)
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, s))))


def error(rows):
    return sum((predict(f) - y) ** 2 for f, y, _ in rows) / len(rows)


mean = sum(y for _, y, _ in train) / len(train)
print(f"{len(data)} positions of {n} games: {len(train)} fitted, {len(test)} held out; "
      f"held-out error of a constant {mean:.3f}: "
      f"{sum((mean - y) ** 2 for _, y, _ in test) / len(test):.4f}", flush=True)
random.seed(1)
for epoch in range(int(opts["--epochs"])):
    random.shuffle(train)
    for f, y, _ in train:
        p = predict(f)
        grad = p - y
        for k, x in f:
            gk = grad * x + 1e-4 * w.get(k, 0.0)
            g2[k] = g2.get(k, 0.0) + gk * gk
            w[k] = w.get(k, 0.0) - 0.05 * gk / math.sqrt(g2[k] + 1e-12)
    print(f"epoch {epoch + 1}: error {error(train):.4f}, held out {error(test):.4f}", flush=True)

# 3. The table, in centipieces.
cp = 100 / float(opts["--scale"])
line = [[round(w.get(("L", c, canon(x)), 0.0) * cp) for x in range(27)] for c in range(3)]
hand = [[round(w.get(("H", o, t), 0.0) * cp) for t in range(10)] for o in range(10)]
rust = f"""//! The placing phase's line patterns (Nine Men's Morris), fitted to the
//! placing databases' values by `scripts/placing_patterns.py` over {len(train)}
//! positions of {n} games (held-out error {error(test):.4f}; a constant:
//! {sum((mean - y) ** 2 for _, y, _ in test) / len(test):.4f}). Centipieces, for the side to move.

/// By class of line (outer and inner sides, middle sides, cross lines)
/// and configuration `a * 9 + b * 3 + c` of its points in order (0 empty,
/// 1 the side to move's, 2 the other's).
pub const LINE: [[i16; 27]; 3] = {line};

/// By the side to move's pieces in hand and the other's.
pub const HAND: [[i16; 10]; 10] = {hand};

/// A piece more, on the board or in hand.
pub const MATERIAL: i32 = {round(w.get(("M",), 0.0) * cp)};

pub const BIAS: i32 = {round(w.get(("B",), 0.0) * cp)};
"""
if opts["--out"]:
    open(opts["--out"], "w").write(rust)
else:
    print(rust)
