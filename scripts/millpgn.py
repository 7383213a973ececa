# Shared by the scripts that read games with the databases: an engine
# process driven by its text protocol, and the games of a PGN file as
# `mulino match --pgn` writes them.
import re, subprocess, sys


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


def games(path):
    """Each game of the file: its tags, how many book plies it opens with, its moves."""
    text = open(path).read()
    for block in re.split(r"\n\n(?=\[Event )", text):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M))
        body = re.sub(r"^\[.*\]$", "", block, flags=re.M)
        books = len(re.findall(r"\{book\}", body))
        body = re.sub(r"\{[^}]*\}", " ", body)
        moves = [t for t in body.split() if not re.fullmatch(r"\d+\.+|1-0|0-1|1/2-1/2|\*", t)]
        if tags:
            yield tags, books, moves
