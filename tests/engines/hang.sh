#!/usr/bin/env bash
# A misbehaving engine for tests/matches/end_to_end.rs: it starts properly
# and answers `isready`, but never answers `go` (nor `stop`). The referee
# must call it hung (or, with a clock, out of time) and kill it.
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name hang"; echo "uciok" ;;
    isready) echo "readyok" ;;
    quit) exit 0 ;;
  esac
done
