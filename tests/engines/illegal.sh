#!/usr/bin/env bash
# A misbehaving engine for tests/matches/end_to_end.rs: it starts
# properly, then answers every `go` with a slide while pieces are still in
# hand, which the rules forbid (the referee must call it an illegal move).
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name illegal"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go*) echo "info depth 1 score cp 0"; echo "bestmove d6-d5" ;;
    quit) exit 0 ;;
  esac
done
