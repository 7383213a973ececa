#!/usr/bin/env bash
# A Sanmill-style engine for tests/matches.rs: mulino ($1) does the
# thinking, this script answers like Sanmill's `tgf mill uci`: moves are
# atomic (a mill-closing step, then each removal after a `go` of its
# own), and the best move ends an `info` line instead of having a
# `bestmove` line. A whole turn such as `d7xa4` in a `position` it is
# sent makes it exit. With $2 = slow it takes 300 ms longer than asked.
coproc M { "$1"; }
say() { echo "$1" >&"${M[1]}"; }
fail() { echo "info string fake-sanmill: unexpected \`$1\`"; exit 3; }
slow=$2
while IFS= read -r line; do
  case "$line" in
    uci) echo "id name fake-sanmill"; echo "option name SkillLevel type spin default 1 min 0 max 30"; echo "uciok" ;;
    isready) echo readyok ;;
    ucinewgame) say ucinewgame ;;
    "setoption name SkillLevel value "*) ;;
    position*)
      for w in $line; do
        case "$w" in [a-g][1-7]x*|[a-g][1-7]-[a-g][1-7]x*|x*x*) fail "$line" ;; esac
      done
      say "$line" ;;
    go*)
      say "$line"
      depth=0; cp=0
      while IFS= read -r -u "${M[0]}" l; do
        case "$l" in
          info*depth*score\ cp*) set -- $l; depth=$3; cp=${10} ;;
          bestmove*)
            set -- $l
            mv=$2
            case "$mv" in
              x*) rest=${mv#x}; mv="x${rest%%x*}" ;;
              *) mv=${mv%%x*} ;;
            esac
            [ "$slow" = slow ] && sleep 0.3
            echo "info depth $depth score cp $cp nodes 1 bestmove ${mv/(none)/none}"
            break ;;
        esac
      done ;;
    quit) say quit; exit 0 ;;
    *) fail "$line" ;;
  esac
done
