#!/usr/bin/env python3
# Fits the moving phase's evaluation of Nine Men's Morris to the moving
# databases' values, and writes it as a Rust table
# (src/search/patterns/moving.rs).
#
# The positions are the moving positions of games (PGN files as `mulino
# match --pgn` writes them, Nine Men's Morris; both hands empty, four pieces
# or more each, every --step-th ply from the end of placing, each distinct
# position once), labelled by `tbprobe` (the value under the engine's
# N-move rule at the game's counter): win 1, draw 0.5, loss 0 for the side
# to move. Every fifth game is held out. The model, from the side to move's
# point of view: the placing patterns' line weights (one table per class of
# lines, a configuration and its mirror image tied), a weight per pair of
# piece counts, one per number of steps of each side (14 or more: 14),
# one for each side that can close a mill with a step, and a bias; fitted
# as placing_patterns.py fits its own.
#
# Usage: scripts/moving_patterns.py TBDIR GAMES.pgn... [--bin target/release/mulino]
#          [--step 2] [--epochs 6] [--scale 0.3045] [--out FILE.rs]
import math, random, sys

from millpgn import Engine, games

args = sys.argv[1:]
opts = {"--bin": "target/release/mulino", "--step": "2", "--epochs": "6", "--scale": "0.3045", "--out": ""}
for flag in list(opts):
    if flag in args:
        i = args.index(flag)
        opts[flag] = args[i + 1]
        del args[i:i + 2]
if len(args) < 2:
    sys.exit("usage: moving_patterns.py TBDIR GAMES.pgn... [--bin B] [--step N] [--epochs N] [--scale K] [--out F]")
TBDIR, PGNS = args[0], args[1:]
STEP = int(opts["--step"])

# Points by their index in the engine (src/core/point.rs): ring by ring,
# inner first, each from 12 o'clock clockwise; midpoints at even slots.
NAMES = ("d5 e5 e4 e3 d3 c3 c4 c5 d6 f6 f4 f2 d2 b2 b4 b6 "
         "d7 g7 g4 g1 d1 a1 a4 a7").split()
INDEX = {p: i for i, p in enumerate(NAMES)}
LINES = [[r * 8 + (2 * k + 7) % 8, r * 8 + 2 * k, r * 8 + 2 * k + 1] for r in range(3) for k in range(4)]
LINES += [[2 * m, 2 * m + 8, 2 * m + 16] for m in range(4)]
CLASS = [0] * 4 + [1] * 4 + [0] * 4 + [2] * 4
ADJ = [[] for _ in range(24)]
for r in range(3):
    for k in range(8):
        p = r * 8 + k
        ADJ[p] += [r * 8 + (k + 1) % 8, r * 8 + (k + 7) % 8]
        if k % 2 == 0:
            ADJ[p] += [(r + d) * 8 + k for d in (-1, 1) if 0 <= r + d < 3]
VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def canon(c):
    """A configuration and its mirror image share a weight."""
    a, b, d = c // 9, c // 3 % 3, c % 3
    return min(c, d * 9 + b * 3 + a)


def can_close(cell, who):
    """Whether `who` has a step that completes a line of its own."""
    for line in LINES:
        vals = [cell[x] for x in line]
        if vals.count(who) == 2 and vals.count(0) == 1:
            hole = line[vals.index(0)]
            if any(cell[q] == who and q not in line for q in ADJ[hole]):
                return True
    return False


def features(board, side):
    """(key, x) pairs of a position; board[i] is 0 empty, 1 White, 2 Black."""
    own = side + 1
    cell = [0 if b == 0 else 1 if b == own else 2 for b in board]
    f = [(("L", CLASS[i], canon(cell[l[0]] * 9 + cell[l[1]] * 3 + cell[l[2]])), 1.0)
         for i, l in enumerate(LINES)]
    steps = [0, 0, 0]
    for p in range(24):
        if cell[p]:
            steps[cell[p]] += sum(1 for q in ADJ[p] if cell[q] == 0)
    f += [(("M", cell.count(1), cell.count(2)), 1.0),
          (("MO", min(steps[1], 14)), 1.0), (("MT", min(steps[2], 14)), 1.0),
          (("C", 1), float(can_close(cell, 1))), (("C", 2), float(can_close(cell, 2))),
          (("B",), 1.0)]
    return f


# 1. The positions and their values.
probe = Engine(opts["--bin"])
probe.use_tablebases(TBDIR)
seen, data, n = set(), [], 0
for path in PGNS:
    for tags, _, moves in games(path):
        if tags.get("Variant", "nine") != "nine":
            continue
        n += 1
        held = n % 5 == 0
        board, side = [0] * 24, 0
        for ply, m in enumerate(moves):
            key = (tuple(board), side)
            if (ply >= 18 and (ply - 18) % STEP == 0 and key not in seen
                    and board.count(1) > 3 and board.count(2) > 3):
                seen.add(key)
                probe.position(moves[:ply])
                probe.send("tbprobe")
                probe.send("isready")
                for line in probe.until(lambda l: l == "readyok"):
                    w = line.split()
                    if line.startswith("tbprobe value ") and w[2] in VALUE:
                        data.append((features(board, side), VALUE[w[2]], held))
            step, _, gone = m.partition("x")
            if "-" in step:
                a, b = step.split("-")
                board[INDEX[a]] = 0
                board[INDEX[b]] = side + 1
            else:
                board[INDEX[step]] = side + 1
            if gone:
                board[INDEX[gone]] = 0
            side = 1 - side
probe.send("quit")
train = [d for d in data if not d[2]]
test = [d for d in data if d[2]]
if not train or not test:
    sys.exit("no labelled moving positions (are the moving databases in TBDIR?)")

# 2. The fit.
w, g2 = {}, {}


def predict(f):
    s = sum(w.get(k, 0.0) * x for k, x in f)
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, s))))


def error(rows):
    return sum((predict(f) - y) ** 2 for f, y, _ in rows) / len(rows)


mean = sum(y for _, y, _ in train) / len(train)
constant = sum((mean - y) ** 2 for _, y, _ in test) / len(test)
print(f"{len(data)} positions of {n} games: {len(train)} fitted, {len(test)} held out; "
      f"held-out error of a constant {mean:.3f}: {constant:.4f}", flush=True)
random.seed(1)
for epoch in range(int(opts["--epochs"])):
    random.shuffle(train)
    for f, y, _ in train:
        grad = predict(f) - y
        for k, x in f:
            gk = grad * x + 1e-4 * w.get(k, 0.0)
            g2[k] = g2.get(k, 0.0) + gk * gk
            w[k] = w.get(k, 0.0) - 0.05 * gk / math.sqrt(g2[k] + 1e-12)
    print(f"epoch {epoch + 1}: error {error(train):.4f}, held out {error(test):.4f}", flush=True)

# 3. The table, in centipieces.
cp = 100 / float(opts["--scale"])


def c(key):
    return round(w.get(key, 0.0) * cp)


line = [[c(("L", k, canon(x))) for x in range(27)] for k in range(3)]
material = [[c(("M", o, t)) for t in range(10)] for o in range(10)]
rust = f"""//! The moving phase's patterns (Nine Men's Morris), fitted to the moving
//! databases' values by `scripts/moving_patterns.py` over {len(train)}
//! positions of {n} games (held-out error {error(test):.4f}; a constant:
//! {constant:.4f}). Centipieces, for the side to move.

/// By class of line and configuration, as in `placing.rs`.
pub const LINE: [[i16; 27]; 3] = {line};

/// By the side to move's pieces on the board and the other's.
pub const MATERIAL: [[i16; 10]; 10] = {material};

/// By the side to move's steps (14 or more: 14).
pub const OUR_MOBILITY: [i16; 15] = {[c(("MO", m)) for m in range(15)]};

/// By the other side's steps.
pub const THEIR_MOBILITY: [i16; 15] = {[c(("MT", m)) for m in range(15)]};

/// The side to move can close a mill with a step.
pub const WE_CLOSE: i32 = {c(("C", 1))};

/// The other side could close a mill with a step.
pub const THEY_CLOSE: i32 = {c(("C", 2))};

pub const BIAS: i32 = {c(("B",))};
"""
if opts["--out"]:
    open(opts["--out"], "w").write(rust)
else:
    print(rust)
