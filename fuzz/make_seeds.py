#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus, fuzz/seeds/<target>/, from the
test data (tests/data), protocol.md's and the tests' protocol lines, and a
built mulino (`cargo build --release`): FENs of every variant, moves,
protocol lines, engine specifications, openings files, PGN games, engine
replies, the web board's API calls and HTTP requests, and database headers.

    python3 fuzz/make_seeds.py [--tb-dir DIR] [--pack-dir DIR]

The database seeds need files built by `mulino tb build --pieces 3`
(several variants) and the placing layers by a small program (see
docs/fuzzing.md); with --tb-dir, the first 128 bytes of every `.tb`,
`.dtz` and `.wdz` file under DIR are taken, and every file named
`placing-*` whole (its header alone past 4096 bytes). Without it, the tb_header seeds are left as they are.
With --pack-dir (a folder `mulino tb pack` wrote, one with the 3-3 and 4-3
tables at least), the pack seeds: its `manifest.json`, the index region of
each of those tables, and each table's first block after the two bytes the
target reads first (which table, a seed for the positions it probes).
Seeds are named by the hash of their content, as libFuzzer names corpus
files, so rerunning adds nothing twice.
"""

import argparse
import glob
import hashlib
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "fuzz", "seeds")
MULINO = os.path.join(ROOT, "target", "release", "mulino")

# Sanmill's rule index of each variant (tests/data/sanmill/N.json).
SANMILL = {0: "nine", 1: "twelve", 2: "dooz", 3: "morabaraba", 4: "russian",
           5: "lasker", 6: "cheng-san-qi", 7: "da-san-qi", 8: "zhi-qi",
           9: "el-filja", 10: "experimental"}


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(SEEDS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def sanmill_games():
    """(variant, [(fen, picked move)]) per trajectory."""
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/sanmill/[0-9]*.json"))):
        d = json.load(open(path))
        variant = SANMILL[d["rule_idx"]]
        for t in d["trajectories"]:
            yield variant, [(s["fen"], s.get("picked_uci")) for s in t["steps"]]


def perft_games():
    """A few of each file's games: the first two and the last."""
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/data/perft/games-*.tsv"))):
        rows = [l for l in open(path) if l.strip() and not l.startswith("#")]
        for line in rows[:2] + rows[-1:]:
            variant, moves, _ = line.rstrip("\n").split("\t")
            yield variant, moves.split()


def fen_after(variant, moves):
    """The FEN mulino's `d` shows after `moves` from the start."""
    rules = ["setoption name Variant value nine", "setoption name Flying value false"] \
        if variant == "nine-nofly" else [f"setoption name Variant value {variant}"]
    script = "\n".join(rules + [f"position startpos moves {' '.join(moves)}", "d", "quit", ""])
    out = subprocess.run([MULINO], input=script, capture_output=True, text=True).stdout
    return re.search(r"^Fen: (.*)$", out, re.M).group(1)


def fens():
    games = list(sanmill_games())
    for variant in SANMILL.values():
        steps = [s for v, g in games if v == variant for s in g]
        seen = set()
        for fen, _ in steps:
            kind = tuple(fen.split()[2:4])
            if kind not in seen:
                seen.add(kind)
                put("fen", fen)
        # The last position of the first trajectory, the longest game.
        put("fen", max((g for v, g in games if v == variant), key=len)[-1][0])
    for variant, moves in perft_games():
        put("fen", fen_after(variant, moves))
    start = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"
    for fen in [
        start,
        "********/@***O***/******** w p p 1 8 1 8 0 0 -1 -1 -1 -1 0 0 2 ids:nodes",
        "******@*/******@O/****O*@O b p r 3 6 3 6 0 1 0 0 0 0 1077952512 0 1",
        "@O@O@O@O/O@O@O@O@/@O@O@O@O w m r 12 0 12 0 1 1 0 0 0 0 0 0 13",
        f"{start} s:1",
    ]:
        put("fen", fen)
    # A FEN with a second line: two bytes that set every rule knob.
    for knobs in [b"\x00\x00", b"\xff\xff", b"\x55\xaa", b"\xc7\x3d"]:
        put("fen", start.encode() + b"\n" + knobs)


def moves():
    for variant, g in sanmill_games():
        if len(g) < 12:
            continue
        # From the start, and from a FEN halfway, the picked moves after it.
        put("moves", "startpos\n" + " ".join(m for _, m in g[:40] if m))
        half = len(g) // 2
        put("moves", g[half][0] + "\n" + " ".join(m for _, m in g[half:half + 20] if m))
        break
    for variant, ms in perft_games():
        put("moves", "\n" + " ".join(ms))
    for g in json.load(open(os.path.join(ROOT, "tests/data/sanmill/golden_games.json")))["games"][:12]:
        put("moves", "startpos\n" + " ".join(g["moves"]))
    for bad in ["d6 d5xb4xb4", "d6-d6", "xb4 xa1", "d6-d5xb4xa1xa4", "D6-D5XB4", "x", "h9"]:
        put("moves", "startpos\n" + bad)


def protocol_lines():
    """The quoted command lines of the tests (only whole lines)."""
    lines = set()
    for path in glob.glob(os.path.join(ROOT, "tests/protocol/*.rs")) + \
            glob.glob(os.path.join(ROOT, "src/protocol/uci/*.rs")):
        for m in re.finditer(r'"((?:setoption|position|go|perft|bench|d|moves|tbprobe|uci|'
                             r'ucinewgame|isready|help|quit|stop|ponderhit)(?: [^"{}\\]*)?)"',
                             open(path).read()):
            lines.add(m.group(1))
    return sorted(lines)


def uci():
    lines = protocol_lines()
    for i in range(0, len(lines), 6):
        put("uci_line", "\n".join(lines[i:i + 6]) + "\n")
    games = [g for v, g in sanmill_games()]
    for variant, g in list(sanmill_games())[::8]:
        ms = " ".join(m for _, m in g[:30] if m)
        put("uci_line", f"setoption name Variant value {variant}\nposition startpos moves {ms}\n"
                        "d\nmoves\ngo depth 2\nisready\n")
        put("uci_line", f"setoption name Variant value {variant}\nposition fen {g[len(g) // 2][0]}\n"
                        "moves\nperft 2\nd\n")
    put("uci_line", "uci\nisready\nsetoption name MultiPV value 3\nsetoption name Skill Level value 5\n"
                    "go depth 2 searchmoves d6 a1\nponderhit\nstop\ntbprobe\nhelp\nquit\n")
    put("uci_line", "setoption name Pieces value 12\nsetoption name DiagonalLines value true\n"
                    "setoption name MayRemoveMultiple value true\nposition startpos moves d6 a1\nd\n")
    put("uci_line", "isready \xc3\x28\nd\0\nposition startpos\0 moves d6\n")


def gbgp():
    text = open(os.path.join(ROOT, "tests/data/gbgp/gui-to-engine.txt")).read().splitlines()
    for i in range(0, min(len(text), 120), 12):
        chunk = [l.replace("go wtime", "go depth 2 wtime") for l in text[i:i + 12]]
        put("gbgp_line", "\n".join(chunk) + "\n")
    for pos in ["w:w:b:1", "b:wb4,c4:bd2:2", "b:wa7,d7,g7:ba1,d1,g1:9", "w:wa7,d7,g7:ba1,d1,g1:10",
                "w:wa7,g1,b4,f6:ba1,g7,d3,e5:10", "w:wd1,b4,g4,d6:ba1,a4,a7,d7:10",
                "w:wa7,d7,g4:bb2,f2,c5:10", "w:wa1,a4:b:2", "w:wz9:b:1"]:
        put("gbgp_line", f"gbgp\nposition pos {pos}\ngo depth 1\n")
        put("gbgp_line", f"setoption name TwelveMensMorris value true\nposition pos {pos} moves a1 d2\n"
                         "go depth 2\nstop\nquit\n")


def engine_spec():
    specs = [
        ["cmd=./mulino", "name=new", "arg=-x", "arg=y", "option.Hash=16", "depth=4", "tc=1+0.01"],
        ["cmd=./mulino", "option.Skill Level=3", "proto=gbgp", "margin=500", "movetime=100"],
        ["cmd=sanmill", "proto=sanmill", "nodes=1000", "dir=/tmp", "tc=10"],
        ["name=x"], ["cmd=a", "cmd=b"], ["cmd=a", "depth=0"], ["cmd=a", "tc=0.5"],
    ]
    for s in specs:
        put("engine_spec", "\n".join(s))
    lines = [
        "--engine cmd=a depth=2 --engine cmd=b --movetime 100 --games 4",
        "--engine cmd=a --engine cmd=b proto=gbgp margin=500 --movetime 100",
        "--engine cmd=a --engine cmd=b proto=gbgp --depth 1 --variant twelve",
        "--engine cmd=a --engine cmd=b proto=sanmill --depth 1 --variant el-filja",
        "--engine cmd=a --engine cmd=b proto=sanmill --depth 1 --variant twelve --rule Flying=false",
        "--engine cmd=a --engine cmd=b proto=gbgp --depth 1 --rule NMoveRule=40",
        "--engine cmd=a --engine cmd=b --depth 1 --variant twelve --rule nmoverule=40 --sprt elo0=0 elo1=5",
        "--engine cmd=a --engine cmd=b --engine cmd=c --depth 1 --sprt elo0=0 elo1=5 alpha=0.1 beta=0.2",
        "--engine cmd=./new name=new --engine cmd=./old name=old --tc 10+0.1 --games 1000 "
        "--random-plies 4 --pgn games.pgn --json r.json --seed 7 --shard 2/4 --concurrency 2",
        "--engine cmd=a --engine cmd=b --nodes 5000 --tb-adjudicate win-loss --max-moves 100 "
        "--time-margin 10 --grace 100 --init-timeout 100 --openings o.txt --shuffle --quiet",
        "merge a.json b.json",
    ]
    for l in lines:
        put("engine_spec", "\n".join(l.split()))
    for w in ["10+0.1", "0.5", "1+", "nan", "2/3", "0/3", "Flying=false", "BoardFullAction=draw"]:
        put("engine_spec", w)


def openings():
    games = list(sanmill_games())
    for variant in ["nine", "twelve", "morabaraba", "lasker", "zhi-qi", "da-san-qi"]:
        g = next(g for v, g in games if v == variant)
        lines = ["# openings of " + variant, "startpos", "startpos moves " + " ".join(m for _, m in g[:6] if m),
                 f"fen {g[len(g) // 2][0]}", f"fen {g[10][0]} moves {g[10][1]}", ""]
        put("openings", "\n".join(lines))
    put("openings", "startpos moves d6 a1 d5 a4 d7 xa4\n\n# a comment\nstartpos moves d6 # after\n")
    put("openings", "startpos moves d6 a1 d5 a4 d7 xa4\n#knobs \x55\xaa")
    for bad in ["", "startpos d6\n", "startpos moves d6 d6\n", "fen x/y/z\n", "middle\n"]:
        put("openings", bad)


def pgn():
    games = list(sanmill_games())
    records = []
    for i, (variant, g) in enumerate(games[::6]):
        ms = [m for _, m in g[:40] if m]
        # The match runner writes whole turns: a removal joins its step.
        turns = []
        for m in ms:
            if m.startswith("x") and turns and not turns[-1].startswith("x"):
                turns[-1] += m
            else:
                turns.append(m)
        body = []
        for j, m in enumerate(turns):
            if j % 2 == 0:
                body.append(f"{j // 2 + 1}.")
            body.append(m)
            if j < 2:
                body.append("{book}")
            elif j % 5 == 0:
                body.append("{+0.35/12 0.101s}")
        tags = [("Event", "mulino match"), ("Site", "?"), ("Date", "2025.01.01"), ("Round", str(i + 1)),
                ("White", "new"), ("Black", "old"), ("Result", "*"), ("Variant", variant)]
        if i % 3 == 1:
            tags += [("SetUp", "1"), ("FEN", g[0][0])]
        if i % 4 == 2:
            tags.append(("Rules", "NMoveRule=40 Flying=false"))
        tags += [("TimeControl", "depth=4"), ("Termination", "unterminated")]
        head = "\n".join(f'[{k} "{v}"]' for k, v in tags)
        records.append(head + "\n\n" + " ".join(body) + " *\n")
    for i in range(0, len(records), 2):
        put("pgn", "\n".join(records[i:i + 2]))
    put("pgn", '[Event "m"]\n[White "a \\"b\\" \\\\"]\n[Result "1-0"]\n\n1. d6 {book} a1 '
               '{+0.35/12 0.101s} 2. d5 a4\n3. d7xa4 {mill\n over two lines} {white wins} 1-0\n\n'
               '[Event "n"]\n\n1.d6 ; to the end of the line\n1... a1 *\n')
    put("pgn", '[Event "x"\n[Bad]\n1. d6 {never closed\n')
    put("pgn", "d6 a1 1/2-1/2")


def engine_reply():
    text = open(os.path.join(ROOT, "tests/data/gbgp/engine-replies.txt")).read().splitlines()
    for i in range(0, min(len(text), 60), 10):
        put("engine_reply", "\n".join(text[i:i + 10]))
    put("engine_reply", "info depth 7 score cp 12 nodes 345 bestmove d7\ninfo score 0 bestmove none\n"
                        "info depth 3 score mate -2 pv d6\nbestmove (none)\ninfo string hello\n")
    put("engine_reply", "info depth 5 score win 3 pv d6\ninfo depth 5 score win -4 pv d6\n"
                        "info score eval -2147483648\nbestmove none\n")
    put("engine_reply", 'sanmill_state {"status": "ok", "fen": "********/********/******** w p p 0 9 0 9 '
                        '0 0 0 0 0 0 0 0 1", "legal_actions": ["d6", "a1"], "rules_options": '
                        '{"piecesCount": 9, "mayFly": true}}\n')


def web_api():
    """Calls as the page makes them (tests/web/api.rs), `$S` for the session."""
    on = '{"session":"$S"}'
    calls = [
        ["state " + on, 'move {"session":"$S","move":"d6"}', 'move {"session":"$S","move":"a7"}',
         'undo {"session":"$S","count":2}', 'redo {"session":"$S"}', "state " + on],
        ['new {"session":"$S","variant":"twelve"}', 'move {"session":"$S","move":"d6"}',
         'go {"session":"$S","purpose":"hint","level":20,"movetime":20,"multipv":3}', "state " + on,
         "stop " + on],
        ['go {"session":"$S","purpose":"analyse"}', "state " + on, "stop " + on],
        ['go {"session":"$S","purpose":"play","level":0,"movetime":10}', "stop " + on],
        ['fen {"session":"$S","fen":"********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"}',
         'move {"session":"$S","move":"a1"}'],
        ['session {"variant":"da-san-qi","moves":["a7","b6","d7","b4","g7xb6"],"redo":["a1"]}',
         "state " + on, 'undo {"session":"$S","count":10000}'],
        ['session {"variant":"el-filja","fen":null,"moves":[],"redo":null}', "state " + on],
        ["state", "nonsense {}", "move [1,2]", 'move {"session":"$S","move":7}',
         'go {"session":"$S","purpose":"think","level":21}', "undo " + on[:-1]],
    ]
    for c in calls:
        put("web_api", "\n".join(c))


def web_http():
    """Requests as a browser and the abuse tests (tests/web/http.rs) send them."""
    host = "Host: 127.0.0.1\r\n"
    body = '{"variant":"nine"}'
    reqs = [
        "GET / HTTP/1.1\r\n" + host + "\r\n",
        "GET /app.js HTTP/1.1\r\nHost: localhost:8080\r\nConnection: close\r\n\r\n",
        "GET /style.css HTTP/1.0\r\n\r\n",
        "GET http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\n\r\n",
        "GET /api/state HTTP/1.1\r\n" + host + "\r\n",
        "POST /api/session HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Content-Length: %d\r\n\r\n%s" % (len(body), body),
        "POST /api/session HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Origin: http://127.0.0.1:8080\r\nContent-Length: 2\r\n\r\n{}",
        "POST /api/state HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Origin: http://evil.example\r\nContent-Length: 2\r\n\r\n{}",
        "POST /api/state HTTP/1.1\r\n" + host + "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
        "POST /api/move HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n",
        "POST /api/session HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
        "POST /api/session HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Content-Length: 99999999\r\n\r\n{}",
        "POST /api/session HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Content-Length: 10\r\n\r\n{}",
        "POST /api/session HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
        "Content-Length: 2\r\n\r\n\xff\xfe",
        "GET / HTTP/1.1\r\nHost: [::1]:80\r\nX: " + "a" * 100 + "\r\n\r\n",
        "BREW /pot HTCPCP/1.0\r\n\r\n",
    ]
    for r in reqs:
        put("web_http", r.encode("latin-1"))


def tb(dir):
    for path in sorted(glob.glob(os.path.join(dir, "**", "*"), recursive=True)):
        name = os.path.basename(path)
        if name.endswith((".tb", ".dtz", ".wdz")):
            put("tb_header", open(path, "rb").read()[:128])
        elif name.startswith("placing-"):
            data = open(path, "rb").read()
            put("tb_header", data if len(data) <= 4096 else data[:128])


def pack(dir):
    manifest = json.load(open(os.path.join(dir, "manifest.json")))
    put("pack", open(os.path.join(dir, "manifest.json"), "rb").read())
    index = open(os.path.join(dir, "index.bin"), "rb").read()
    for pick, name in ((0, "3-3"), (1, "4-3")):
        table = next(t for t in manifest["tables"] if t["name"] == name)
        stored = table["stored"]
        region = index[stored["index"]["offset"]:][:stored["index"]["len"]]
        put("pack", region)
        # The first block's length: the u32 after the block count, which
        # the region's last 8 + 20 * blocks bytes begin with.
        entries = region[len(region) - 20 * stored["blocks"]:]
        length = int.from_bytes(entries[:4], "little")
        data = open(os.path.join(dir, "data-%03d.bin" % stored["first_file"]), "rb").read()
        block = data[stored["first_offset"]:][:length]
        put("pack", bytes([pick, 7]) + block)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tb-dir")
    p.add_argument("--pack-dir")
    a = p.parse_args()
    fens()
    moves()
    uci()
    gbgp()
    engine_spec()
    openings()
    pgn()
    engine_reply()
    web_api()
    web_http()
    if a.tb_dir:
        tb(a.tb_dir)
    if a.pack_dir:
        pack(a.pack_dir)
    for t in sorted(os.listdir(SEEDS)):
        print(t, len(os.listdir(os.path.join(SEEDS, t))))


if __name__ == "__main__":
    main()
