#!/usr/bin/env bash
# A misbehaving engine for tests/matches/end_to_end.rs: it plays two legal
# placements (points nobody has used yet; two pieces cannot close a mill)
# and exits with status 3 at its third `go`, in the middle of the game.
points=(a7 d7 g7 a4 g4 a1 d1 g1 b6 d6 f6 b2 d2 f2 c5 d5 e5 c3 d3 e3 b4 c4 e4 f4)
position=""
searches=0
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name crash"; echo "uciok" ;;
    isready) echo "readyok" ;;
    ucinewgame) searches=0 ;;
    position*) position=" $line " ;;
    go*)
      searches=$((searches + 1))
      if ((searches > 2)); then exit 3; fi
      for p in "${points[@]}"; do
        if [[ "$position" != *"$p"* ]]; then
          echo "bestmove $p"
          break
        fi
      done
      ;;
    quit) exit 0 ;;
  esac
done
