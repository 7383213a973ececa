# Shared by placing_patterns.py and moving_patterns.py: the board as the
# engine numbers it, a move played on it, the lines and their classes, the
# command line, and the logistic fit of sparse features to database values.
import math, random, sys

from millpgn import games

# Points by their index in the engine (src/core/point.rs): ring by ring,
# inner first, each from 12 o'clock clockwise; midpoints at even slots.
NAMES = ("d5 e5 e4 e3 d3 c3 c4 c5 d6 f6 f4 f2 d2 b2 b4 b6 "
         "d7 g7 g4 g1 d1 a1 a4 a7").split()
INDEX = {p: i for i, p in enumerate(NAMES)}
# The 16 lines with their middle point in the middle, and their classes
# (outer and inner sides 0, middle sides 1, cross lines 2), in the order
# the engine's tables use.
LINES = [[r * 8 + (2 * k + 7) % 8, r * 8 + 2 * k, r * 8 + 2 * k + 1] for r in range(3) for k in range(4)]
LINES += [[2 * m, 2 * m + 8, 2 * m + 16] for m in range(4)]
CLASS = [0] * 4 + [1] * 4 + [0] * 4 + [2] * 4
# The four diagonals, middle point in the middle, in the engine's order
# (after the 16 lines), and the rule sets whose board has them.
DIAGONALS = [["a1", "b2", "c3"], ["a7", "b6", "c5"], ["g7", "f6", "e5"], ["g1", "f2", "e3"]]
WITH_DIAGONALS = {"twelve", "morabaraba", "zhi-qi", "dooz", "da-san-qi", "experimental"}
LINES_DIAGONAL = LINES + [[INDEX[p] for p in d] for d in DIAGONALS]
VALUE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def canon(c):
    """A configuration and its mirror image share a weight."""
    a, b, d = c // 9, c // 3 % 3, c % 3
    return min(c, d * 9 + b * 3 + a)


def relative(board, side):
    """The board from `side`'s point of view (board[i]: 0 empty, 1 White, 2
    Black, 3 a marked point; the result: 0 empty, 1 side's, 2 the other's,
    3 marked)."""
    own = side + 1
    return [b if b in (0, 3) else 1 if b == own else 2 for b in board]


def play(board, side, move):
    """Plays `side`'s (0 White, 1 Black) turn `move` on `board`: a placement
    `d6` or a step `d6-d5`, with its removal `xb4` if any."""
    step, _, gone = move.partition("x")
    if "-" in step:
        frm, step = step.split("-")
        board[INDEX[frm]] = 0
    board[INDEX[step]] = side + 1
    if gone:
        board[INDEX[gone]] = 0


def line_features(cell, lines=LINES, classes=CLASS):
    """The line pattern features of `lines` (by default the board's 16) in
    their `classes`; cell[i] is 0 empty, 1 the side to move's, 2 the other's,
    3 marked (a line through a marked point has no feature)."""
    return [(("L", classes[i], canon(cell[l[0]] * 9 + cell[l[1]] * 3 + cell[l[2]])), 1.0)
            for i, l in enumerate(lines) if 3 not in (cell[l[0]], cell[l[1]], cell[l[2]])]


# The crosses: for each point, the two lines through it, as four other
# points in the engine's order (`patterns::CROSS_POINTS`): each line in
# `LINES`' order, its two ends where the point is its middle, else its
# middle and then its far end. A point's class: 0 a corner of the outer or
# inner ring, 1 a corner of the middle ring, 2 a midpoint of the outer or
# inner ring, 3 a midpoint of the middle ring.
# THROUGH[p]: the indices in `LINES` of the two lines through point p.
THROUGH = [[i for i, l in enumerate(LINES) if p in l] for p in range(24)]


def _others(p, line):
    """The two other points of `line` for point `p`'s cross."""
    a, b, c = line
    return [a, c] if p == b else [b, c if p == a else a]


CROSS_POINTS = [[q for i in THROUGH[p] for q in _others(p, LINES[i])] for p in range(24)]
CROSS_CLASS = [(1 if p // 8 == 1 else 0) + (2 if p % 2 == 0 else 0) for p in range(24)]


def cross_key(p, digits):
    """The weight's key of point `p`'s cross, `digits` the contents (0 empty,
    1 the side to move's, 2 the other's) of `p` and its `CROSS_POINTS`: the
    same key for the crosses that a symmetry of the board maps onto each
    other (a line's ends where the point is its middle are unordered; the
    two lines through a corner are unordered)."""
    reps = []
    for k, line in enumerate(THROUGH[p]):
        x, y = digits[1 + 2 * k], digits[2 + 2 * k]
        middle = LINES[line][1] == p
        reps.append((CLASS[line], middle, tuple(sorted((x, y))) if middle else (x, y)))
    return ("X", CROSS_CLASS[p], digits[0], tuple(sorted(reps)))


def cross_features(cell):
    """The cross features of a board from the side to move's point of view."""
    return [(cross_key(p, [cell[p]] + [cell[q] for q in CROSS_POINTS[p]]), 1.0) for p in range(24)]


def cross_table(weight):
    """By point class and contents `81 p + 27 n0 + 9 n1 + 3 n2 + n3` of a
    point and its `CROSS_POINTS`, the weight `weight(key)`."""
    table = []
    for cls in range(4):
        p = CROSS_CLASS.index(cls)
        row = []
        for idx in range(243):
            digits = [idx // 3 ** (4 - k) % 3 for k in range(5)]
            row.append(weight(cross_key(p, digits)))
        table.append(row)
    return table


def flags(defaults):
    """The options (`--name value`, with defaults) and the arguments left."""
    args, opts = sys.argv[1:], dict(defaults)
    for flag in list(opts):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    return opts, args


def options(defaults, usage):
    """The options (`--name value`, with defaults) and the arguments left: TBDIR and PGNs."""
    opts, args = flags(defaults)
    if len(args) < 2:
        sys.exit(usage)
    return opts, args[0], args[1:]


class Fit:
    """Logistic weights fitted by AdaGrad on the log loss to (features, value, held out) rows."""

    def __init__(self, data, game_count, epochs, what):
        self.w = {}
        self.train = [d for d in data if not d[2]]
        self.test = [d for d in data if d[2]]
        if not self.train or not self.test:
            sys.exit(f"no labelled {what} positions (are the databases in TBDIR?)")
        mean = sum(y for _, y, _ in self.train) / len(self.train)
        self.constant = sum((mean - y) ** 2 for _, y, _ in self.test) / len(self.test)
        print(f"{len(data)} positions of {game_count} games: {len(self.train)} fitted, {len(self.test)} held out; "
              f"held-out error of a constant {mean:.3f}: {self.constant:.4f}", flush=True)
        g2 = {}
        random.seed(1)
        for epoch in range(epochs):
            random.shuffle(self.train)
            for f, y, _ in self.train:
                grad = self.predict(f) - y
                for k, x in f:
                    gk = grad * x + 1e-4 * self.w.get(k, 0.0)
                    g2[k] = g2.get(k, 0.0) + gk * gk
                    self.w[k] = self.w.get(k, 0.0) - 0.05 * gk / math.sqrt(g2[k] + 1e-12)
            print(f"epoch {epoch + 1}: error {self.error(self.train):.4f}, "
                  f"held out {self.error(self.test):.4f}", flush=True)
        self.held_out = self.error(self.test)

    def predict(self, f):
        s = sum(self.w.get(k, 0.0) * x for k, x in f)
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, s))))

    def error(self, rows):
        return sum((self.predict(f) - y) ** 2 for f, y, _ in rows) / len(rows)

    def cp(self, key, scale):
        """A weight in centipieces, with the evaluation's scale."""
        return round(self.w.get(key, 0.0) * 100 / scale)


def write(rust, out):
    if out:
        open(out, "w").write(rust)
    else:
        print(rust)


def value(probe, moves):
    """The databases' value (1, 0.5, 0) for the side to move after `moves`, or None."""
    return VALUE.get(probe.tbprobe(moves)[0])


def nine_games(pgns):
    """(number, moves, held out) of each Nine Men's Morris game of the PGN
    files, numbered from 1; every fifth game is held out."""
    n = 0
    for path in pgns:
        for tags, _, moves in games(path):
            if tags.get("Variant", "nine") == "nine":
                n += 1
                yield n, moves, n % 5 == 0
