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
# per piece of material (board and hand); one per pair of hands; a bias;
# and for each point, a weight for what stands on it and on the two lines
# through it (its cross: five points, one table per class of point under
# the symmetries, `patterns_fit.cross_key`), which sees what the lines
# alone cannot: two lines that a placement on their common point would
# both advance. Its sum goes through a logistic curve; the weights are fitted by
# AdaGrad on the log loss, then scaled to centipieces with the
# evaluation's scale (`mulino tune` prints it: expected result
# 1 / (1 + exp(-k * cp / 100))).
#
# Usage: scripts/placing_patterns.py TBDIR GAMES.pgn... [--bin target/release/mulino]
#          [--epochs 8] [--scale 0.3045] [--out FILE.rs]
# (`--out src/search/patterns/placing.rs` replaces the engine's table.)
# Prints the held-out squared error of a constant and of the fit.
from millpgn import Engine
from patterns_fit import (CROSS_POINTS, Fit, canon, cross_features, cross_table, line_features, nine_games,
                          options, play, relative, value, write)

opts, TBDIR, PGNS = options(
    {"--bin": "target/release/mulino", "--epochs": "8", "--scale": "0.3045", "--out": ""},
    "usage: placing_patterns.py TBDIR GAMES.pgn... [--bin B] [--epochs N] [--scale K] [--out F]")


def features(board, side, hands):
    """(key, x) pairs of a position; board[i] is 0 empty, 1 White, 2 Black."""
    cell = relative(board, side)
    oh, th = hands[side], hands[1 - side]
    material = cell.count(1) + oh - cell.count(2) - th
    return line_features(cell) + cross_features(cell) + [
        (("M",), float(material)), (("H", oh, th), 1.0), (("B",), 1.0)]


# 1. The positions and their values.
probe = Engine(opts["--bin"])
probe.use_tablebases(TBDIR)
seen, data, n = set(), [], 0
for n, moves, held in nine_games(PGNS):
    board, hands, side = [0] * 24, [9, 9], 0
    for ply, m in enumerate(moves[:18]):
        key = (tuple(board), side, tuple(hands))
        if ply >= 4 and key not in seen:
            seen.add(key)
            v = value(probe, moves[:ply])
            if v is not None:
                data.append((features(board, side, hands), v, held))
        if "-" in m:
            break
        play(board, side, m)
        hands[side] -= 1
        side = 1 - side
probe.send("quit")

# 2. The fit, and the table in centipieces.
fit = Fit(data, n, int(opts["--epochs"]), "placing")
scale = float(opts["--scale"])
line = [[fit.cp(("L", c, canon(x)), scale) for x in range(27)] for c in range(3)]
hand = [[fit.cp(("H", o, t), scale) for t in range(10)] for o in range(10)]
cross = cross_table(lambda key: fit.cp(key, scale))
write(f"""//! The placing phase's line and cross patterns (Nine Men's Morris), fitted to the
//! placing databases' values by `scripts/placing_patterns.py` over {len(fit.train)}
//! positions of {n} games (held-out error {fit.held_out:.4f}; a constant:
//! {fit.constant:.4f}). Centipieces, for the side to move.

/// By class of line (outer and inner sides, middle sides, cross lines)
/// and configuration `a * 9 + b * 3 + c` of its points in order (0 empty,
/// 1 the side to move's, 2 the other's).
pub const LINE: [[i16; 27]; 3] = {line};

/// By the side to move's pieces in hand and the other's.
pub const HAND: [[i16; 10]; 10] = {hand};

/// By class of point (`patterns::CROSS_CLASS`) and contents
/// `81 p + 27 n0 + 9 n1 + 3 n2 + n3` of a point and of the four others on
/// the lines through it (`patterns::CROSS_POINTS`), each 0 empty, 1 the side
/// to move's, 2 the other's.
pub const CROSS: [[i16; 243]; 4] = {cross};

/// The four other points of each point's cross, as the fit numbered them
/// (the engine's own `patterns::CROSS_POINTS` is checked against it).
#[cfg(test)]
pub const CROSS_POINTS: [[usize; 4]; 24] = {CROSS_POINTS};

/// A piece more, on the board or in hand.
pub const MATERIAL: i32 = {fit.cp(("M",), scale)};

pub const BIAS: i32 = {fit.cp(("B",), scale)};
""", opts["--out"])
