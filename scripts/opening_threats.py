#!/usr/bin/env python3
# What a random 4-ply opening leaves White at ply 5, set beside what the
# opening's pair of games (colours reversed) came to in a match.
#
# After two plies a side, no mill can have closed yet. Each opening
# is put in one of three classes by what White, to move, can do at once:
#   A  close a mill (two White pieces on a line, the third point empty);
#   B  place a piece that makes two such lines at once, where Black has no
#      line of its own to close next (so Black can block only one);
#   C  neither.
# (Rule sets whose placing mills remove at once; in El Filja they remove
# only when placing ends.) Each pair is "White won both", "Black won both"
# (the colour decided it, whoever played it) or "other". A pair the colour
# decided gives each engine one point of two, so a match's score for an
# engine is at most (decided + 2 * other) / (2 * pairs) unless it wins from
# the side that lost both games: the ceiling printed.
#
# Usage: scripts/opening_threats.py MATCH.pgn...   (`mulino match --pgn`,
# `--random-plies 4`; the PGN's Variant tag says whether the board has
# diagonals)
import sys

from millpgn import games
from patterns_fit import DIAGONALS, INDEX, LINES, NAMES, WITH_DIAGONALS


def board_lines(variant):
    lines = [[NAMES[i] for i in line] for line in LINES]
    return lines + (DIAGONALS if variant in WITH_DIAGONALS else [])


def closing_points(lines, own, empty):
    """The empty points that would close a mill for `own`."""
    return {p for line in lines if sum(q in own for q in line) == 2 for p in line if p in empty}


def pieces(book):
    """White's and Black's points after the opening's plies: placements,
    or (Lasker Morris) steps `a1-a4`; no mill can close in four plies."""
    sides = (set(), set())
    for ply, move in enumerate(book):
        own = sides[ply % 2]
        if "x" in move:
            sys.exit(f"a removal in the opening {' '.join(book)}")
        src, _, dst = move.rpartition("-")
        own.discard(src)
        own.add(dst)
    return sides


def opening_class(lines, book):
    white, black = pieces(book)
    empty = set(INDEX) - white - black
    if closing_points(lines, white, empty):
        return "A"
    blacks = closing_points(lines, black, empty)
    for p in empty:
        if len(closing_points(lines, white | {p}, empty - {p})) >= 2 and not blacks - {p}:
            return "B"
    return "C"


def main(paths):
    if not paths:
        sys.exit("usage: opening_threats.py MATCH.pgn...")
    for path in paths:
        pairs = {}
        variant = None
        for tags, books, moves in games(path):
            if books != 4:
                sys.exit(f"{path}: a game opens with {books} book plies, not 4")
            variant = tags.get("Variant", "nine")
            pairs.setdefault(tuple(moves[:4]), []).append(tags["Result"])
        lines = board_lines(variant)
        counts = {}
        decided = other = 0
        for book, results in pairs.items():
            if len(results) != 2:
                continue
            kind = {("1-0", "1-0"): "White won both", ("0-1", "0-1"): "Black won both"}.get(
                tuple(results), "other")
            decided += kind != "other"
            other += kind == "other"
            row = counts.setdefault(opening_class(lines, book), {})
            row[kind] = row.get(kind, 0) + 1
        print(f"{path} ({variant}, {decided + other} pairs)")
        for c in "ABC":
            row = counts.get(c, {})
            cells = ", ".join(f"{k} {row.get(k, 0)}" for k in ("White won both", "Black won both", "other"))
            print(f"  {c}: {sum(row.values())} pairs: {cells}")
        if decided + other:
            print(f"  the colour decided {decided}; ceiling {(decided + 2 * other) / (2 * (decided + other)):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
