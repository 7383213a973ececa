#!/usr/bin/env python3
# What a random 4-ply opening leaves White at ply 5, set beside what the
# opening's pair of games (colours reversed) came to in a match.
#
# After two plies a side (placements, or in Lasker Morris steps too), no
# mill can have closed yet. Each opening is put in one of three classes by
# what White, to move, can do at once:
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
from patterns_fit import LINES, LINES_DIAGONAL, WITH_DIAGONALS, play


def closing_points(lines, board, who):
    """The empty points where `who` (1 White, 2 Black) would close a mill."""
    return {p for line in lines if [board[q] for q in line].count(who) == 2 for p in line if board[p] == 0}


def opening_class(lines, book):
    board = [0] * 24
    for ply, move in enumerate(book):
        play(board, ply % 2, move)
    if closing_points(lines, board, 1):
        return "A"
    blacks = closing_points(lines, board, 2)
    for p in (p for p in range(24) if board[p] == 0):
        board[p] = 1
        double = len(closing_points(lines, board, 1)) >= 2
        board[p] = 0
        if double and not blacks - {p}:
            return "B"
    return "C"


def main(paths):
    if not paths or paths[0] in ("-h", "--help"):
        print("usage: opening_threats.py MATCH.pgn...  (a match's PGN with 4 random plies; the script's"
              " header says what it prints)")
        sys.exit(0 if paths else 2)
    for path in paths:
        pairs = {}
        variant = None
        for tags, books, moves in games(path):
            if books != 4:
                sys.exit(f"{path}: a game opens with {books} book plies, not 4")
            variant = tags.get("Variant", "nine")
            pairs.setdefault(tuple(moves[:4]), []).append(tags["Result"])
        lines = LINES_DIAGONAL if variant in WITH_DIAGONALS else LINES
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
