# Shared by the scripts that read games with the databases: an engine
# process driven by its text protocol, and the games of a PGN file as
# `mulino match --pgn` writes them.
import json, os, subprocess, sys


class Engine:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("uci")
        self.until(lambda l: l == "uciok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, pred):
        """The lines up to the first one `pred` accepts (that one included)."""
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("an engine stopped")
            line = line.rstrip("\n")
            out.append(line)
            if pred(line):
                return out

    def position(self, moves):
        self.send("position startpos moves " + " ".join(moves) if moves else "position startpos")

    def tbprobe(self, moves):
        """The databases' answer after `moves`: the value for the side to move
        ('win', 'draw', 'loss', or None where none is given), each move's value
        by move, and all the lines the engine printed."""
        self.position(moves)
        self.send("tbprobe")
        self.send("isready")
        lines = self.until(lambda l: l == "readyok")
        value, by_move = None, {}
        for l in lines:
            w = l.split()
            if l.startswith("tbprobe value ") and value is None:
                value = w[2]
            elif l.startswith("tbprobe move "):
                by_move[w[2]] = w[3]
        return value, by_move, lines

    def use_tablebases(self, path):
        """Sets TablebasePath and waits until the files' checksums are checked."""
        self.send(f"setoption name TablebasePath value {path}")
        self.until(lambda l: l.startswith("info string TablebasePath:") and "checked" in l)


def games(path, binary=None):
    """Each game of the file: its tags, how many book plies it opens with, its moves.
    The games are read by mulino's own PGN reader (`mulino pgn`): the binary
    given, else $MULINO, else this checkout's target/release/mulino."""
    binary = binary or os.environ.get("MULINO") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "mulino")
    out = subprocess.run([binary, "pgn", path], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        game = json.loads(line)
        tags = dict(game["tags"])
        books = sum(1 for m in game["moves"] if m["comments"][:1] == ["book"])
        moves = [m["text"] for m in game["moves"]]
        if tags:
            yield tags, books, moves
