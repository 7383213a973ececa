#!/usr/bin/env bash
# A misbehaving engine for tests/matches/end_to_end.rs: it starts
# properly, then claims to have no move (`bestmove (none)`) in a game that
# is not over.
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name missing"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go*) echo "bestmove (none)" ;;
    quit) exit 0 ;;
  esac
done
