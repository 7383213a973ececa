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
from millpgn import Engine
from patterns_fit import nine_games, LINES, Fit, canon, line_features, options, play, relative, value, write

opts, TBDIR, PGNS = options(
    {"--bin": "target/release/mulino", "--step": "2", "--epochs": "6", "--scale": "0.3045", "--out": ""},
    "usage: moving_patterns.py TBDIR GAMES.pgn... [--bin B] [--step N] [--epochs N] [--scale K] [--out F]")
STEP = int(opts["--step"])

# The points next to each point (point indices as in patterns_fit).
ADJ = [[] for _ in range(24)]
for r in range(3):
    for k in range(8):
        p = r * 8 + k
        ADJ[p] += [r * 8 + (k + 1) % 8, r * 8 + (k + 7) % 8]
        if k % 2 == 0:
            ADJ[p] += [(r + d) * 8 + k for d in (-1, 1) if 0 <= r + d < 3]


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
    cell = relative(board, side)
    steps = [0, 0, 0]
    for p in range(24):
        if cell[p]:
            steps[cell[p]] += sum(1 for q in ADJ[p] if cell[q] == 0)
    return line_features(cell) + [
        (("M", cell.count(1), cell.count(2)), 1.0),
        (("MO", min(steps[1], 14)), 1.0), (("MT", min(steps[2], 14)), 1.0),
        (("C", 1), float(can_close(cell, 1))), (("C", 2), float(can_close(cell, 2))),
        (("B",), 1.0)]


# 1. The positions and their values.
probe = Engine(opts["--bin"])
probe.use_tablebases(TBDIR)
seen, data, n = set(), [], 0
for n, moves, held in nine_games(PGNS):
    board, side = [0] * 24, 0
    for ply, m in enumerate(moves):
        key = (tuple(board), side)
        if (ply >= 18 and (ply - 18) % STEP == 0 and key not in seen
                and board.count(1) > 3 and board.count(2) > 3):
            seen.add(key)
            v = value(probe, moves[:ply])
            if v is not None:
                data.append((features(board, side), v, held))
        play(board, side, m)
        side = 1 - side
probe.send("quit")

# 2. The fit, and the table in centipieces.
fit = Fit(data, n, int(opts["--epochs"]), "moving")
scale = float(opts["--scale"])


def c(key):
    return fit.cp(key, scale)


line = [[c(("L", k, canon(x))) for x in range(27)] for k in range(3)]
material = [[c(("M", o, t)) for t in range(10)] for o in range(10)]
write(f"""//! The moving phase's patterns (Nine Men's Morris), fitted to the moving
//! databases' values by `scripts/moving_patterns.py` over {len(fit.train)}
//! positions of {n} games (held-out error {fit.held_out:.4f}; a constant:
//! {fit.constant:.4f}). Centipieces, for the side to move.

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
""", opts["--out"])
