#!/usr/bin/env bash
# A misbehaving engine for tests/matches/end_to_end.rs: it starts
# properly, then answers `go` with junk: bytes that are not UTF-8, a
# 70,000-character line, a broken info line, and a `bestmove` that is no
# move at all.
long=$(printf 'x%.0s' {1..70000})
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name garbage"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go*)
      printf 'info string \x01\x02\xff\xfe not utf-8 \x80\n'
      echo "$long"
      echo "info depth banana score cp"
      echo "bestmove zz99-@@!!"
      ;;
    quit) exit 0 ;;
  esac
done
