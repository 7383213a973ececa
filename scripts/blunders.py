#!/usr/bin/env python3
# Reads lost games with a deeper search: for each of mulino's moves, the
# evaluation (a 2 s search by default) before the move and after the move it
# played; a drop of 150 cp or more is marked. Input: a TSV of games, a line
# "<mulino colour>\t<moves in our notation>" (as ../shared/games/*.tsv).
# Usage: scripts/blunders.py GAMES.tsv ["movetime 2000"] [MULINO_BINARY]
import subprocess, sys
BIN = sys.argv[3] if len(sys.argv) > 3 else "target/release/mulino"
p = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(l): p.stdin.write(l + "\n"); p.stdin.flush()
def until(pred):
    out = []
    while True:
        l = p.stdout.readline().rstrip("\n"); out.append(l)
        if pred(l): return out
def score(moves, go):
    send("ucinewgame"); send("position startpos moves " + " ".join(moves)); send("go " + go)
    lines = until(lambda l: l.startswith("bestmove"))
    infos = [l for l in lines if l.startswith("info depth") and " score " in l]
    best = lines[-1].split()[1]
    if not infos: return None, best, ""
    w = infos[-1].split(); i = w.index("score")
    kind, v = w[i+1], int(w[i+2])
    cp = v if kind == "cp" else (30000 - abs(v)) * (1 if v > 0 else -1)
    pv = " ".join(w[w.index("pv")+1:][:6])
    return cp, best, pv
GO = sys.argv[2] if len(sys.argv) > 2 else "movetime 2000"
for n, line in enumerate(l for l in open(sys.argv[1]) if not l.startswith("#")):
    color, moves = line.rstrip("\n").split("\t"); moves = moves.split()
    me = 0 if color == "white" else 1
    print(f"== game {n}: mulino {color}, {len(moves)} plies", flush=True)
    prev_after = None
    for i in range(me, len(moves), 2):
        before, best, pv = score(moves[:i], GO)
        after, _, pv2 = score(moves[:i+1], GO)
        after = None if after is None else -after
        drop = (before - after) if before is not None and after is not None else 0
        mark = "  <== drop %d" % drop if drop >= 150 else ""
        print(f"ply {i+1:3} played {moves[i]:10} before {before!s:>6} after {after!s:>6} | 2s best {best:10} pv {pv}{mark}", flush=True)
        if before is not None and before < -2000: break
send("quit")
