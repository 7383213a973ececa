#!/usr/bin/env python3
"""Times `tbprobe` on a packed folder (`mulino tb pack`): locally, through
the native engine reading the folder from disk, and over HTTP, through the
engine in WebAssembly (`node target/web/mulino.mjs`) reading it by range
requests from nginx on loopback, through a proxy that holds every byte
each way for half the round trip (docs/databases.md, "Packed folders").

Positions are drawn at random (seeded) from the moving-phase tables the
manifest names, White to move, both hands empty: N of each table asked for
(default: every stored and derived moving table). Each is probed in a
session of its own engine only when --cold is given; otherwise all in one
session, in order, as a player's game would not (every position a new
place of the table): the time of one is the time between its answer and
the one before. A `tbprobe` answers the position and every legal move, so
one probe reads the blocks of the position and of each move's successor.

    scripts/pack-probes.py --pack DIR [--per-table N] [--tables 7-7,6-6]
        [--rtt MS] [--seed S] [--bin target/release/mulino] [--web target/web]
        [--no-http] [--no-local]

Prints, for each way, the median, 90th percentile and largest time of a
probe, and over HTTP the requests and bytes nginx served per probe.
Needs nginx (Debian's nginx-light) for the HTTP part and Node.js for the
engine in WebAssembly (scripts/build-web.sh builds target/web/).
"""

import argparse
import json
import os
import queue
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

POINTS = 24


def fen(white, black):
    board = ["*"] * POINTS
    for p in white:
        board[p] = "O"
    for p in black:
        board[p] = "@"
    rings = "/".join("".join(board[i * 8:(i + 1) * 8]) for i in range(3))
    return f"{rings} w m s {len(white)} 0 {len(black)} 0 0 0 0 0 0 0 0 0 1"


def positions(manifest, tables, per_table, seed):
    rng = random.Random(seed)
    names = [t["name"] for t in manifest["tables"] if "-" in t["name"]
             and not t["name"].startswith("place")]
    if tables:
        names = [n for n in names if n in tables]
    out = []
    for name in names:
        own, opp = (int(x) for x in name.split("-"))
        for _ in range(per_table):
            points = rng.sample(range(POINTS), own + opp)
            out.append((name, fen(points[:own], points[own:])))
    rng.shuffle(out)
    return out


def session(program, path, fens):
    """Probes `fens` in one engine; the seconds each answer took."""
    lines = [f"setoption name TablebasePath value {path}", "isready"]
    child = subprocess.Popen(program, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, bufsize=1)
    child.stdin.write("\n".join(lines) + "\n")
    child.stdin.flush()
    for line in child.stdout:
        if line.startswith("info string") and ("fail" in line or "error" in line):
            sys.exit(f"pack-probes: {line.strip()}")
        if line.strip() == "readyok":
            break
    times = []
    for f in fens:
        start = time.monotonic()
        child.stdin.write(f"position fen {f}\ntbprobe\nisready\n")
        child.stdin.flush()
        for line in child.stdout:
            if line.strip() == "readyok":
                break
        times.append(time.monotonic() - start)
    child.stdin.write("quit\n")
    child.stdin.close()
    child.wait()
    return times


def summary(what, times):
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    print(f"{what}: {len(times)} probes, median {1000 * statistics.median(times):.1f} ms, "
          f"90% {1000 * p90:.1f} ms, largest {1000 * times[-1]:.1f} ms")


class Nginx:
    def __init__(self, root):
        self.dir = tempfile.mkdtemp(prefix="pack-probes-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = os.path.join(self.dir, "access.log")
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""daemon off; worker_processes 1; pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log; events {{ worker_connections 64; }}
http {{ access_log {self.log} combined;
  client_body_temp_path {self.dir}; proxy_temp_path {self.dir};
  fastcgi_temp_path {self.dir}; uwsgi_temp_path {self.dir}; scgi_temp_path {self.dir};
  server {{ listen 127.0.0.1:{self.port}; root {os.path.dirname(os.path.abspath(root))};
    add_header Access-Control-Allow-Origin *; }} }}
""")
        self.proc = subprocess.Popen(["nginx", "-c", conf, "-p", self.dir],
                                     stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.1).close()
                return
            except OSError:
                time.sleep(0.05)
        sys.exit("pack-probes: nginx did not start")

    def served(self):
        """Requests and bytes served so far."""
        n = b = 0
        with open(self.log) as f:
            for line in f:
                parts = line.split('"')
                if len(parts) > 2:
                    fields = parts[2].split()
                    n += 1
                    b += int(fields[1]) if fields[1].isdigit() else 0
        return n, b

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def delaying_proxy(to_port, delay):
    """A proxy on loopback that holds every chunk each way for `delay`
    seconds from when it arrived (latency, not a slower line)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)

    def pipe(src, dst):
        q = queue.Queue()

        def sender():
            while True:
                at, chunk = q.get()
                wait = at + delay - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                if not chunk:
                    try:
                        dst.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    return
                try:
                    dst.sendall(chunk)
                except OSError:
                    return
        threading.Thread(target=sender, daemon=True).start()
        while True:
            try:
                chunk = src.recv(65536)
            except OSError:
                chunk = b""
            q.put((time.monotonic(), chunk))
            if not chunk:
                return

    def accept():
        while True:
            client, _ = server.accept()
            upstream = socket.create_connection(("127.0.0.1", to_port))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=pipe, args=(a, b), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    return server.getsockname()[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pack", required=True)
    p.add_argument("--per-table", type=int, default=10)
    p.add_argument("--tables", default="")
    p.add_argument("--rtt", type=float, default=50.0, help="round trip, ms")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bin", default="target/release/mulino")
    p.add_argument("--web", default="target/web")
    p.add_argument("--no-http", action="store_true")
    p.add_argument("--no-local", action="store_true")
    a = p.parse_args()
    manifest = json.load(open(os.path.join(a.pack, "manifest.json")))
    wanted = [t for t in a.tables.split(",") if t]
    chosen = positions(manifest, wanted, a.per_table, a.seed)
    fens = [f for _, f in chosen]
    print(f"{len(fens)} positions of {len({n for n, _ in chosen})} tables, seed {a.seed}")
    if not a.no_local:
        summary("local, native, from disk", session([a.bin], os.path.abspath(a.pack), fens))
    if not a.no_http:
        nginx = Nginx(a.pack)
        try:
            port = delaying_proxy(nginx.port, a.rtt / 2000)
            url = f"http://127.0.0.1:{port}/{os.path.basename(os.path.abspath(a.pack))}/"
            node = ["node", os.path.join(a.web, "mulino.mjs")]
            times = session(node, url, fens)
            summary(f"HTTP, WebAssembly under Node, {a.rtt:g} ms round trip", times)
            n, b = nginx.served()
            print(f"nginx served {n} requests, {b} bytes: {n / len(fens):.1f} requests and "
                  f"{b / len(fens) / 1024:.0f} KiB a probe (the manifest and index included)")
        finally:
            nginx.stop()


if __name__ == "__main__":
    main()
