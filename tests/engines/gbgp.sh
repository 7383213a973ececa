#!/usr/bin/env bash
# A GBGP engine for tests/matches/end_to_end.rs: mulino ($1) does the
# thinking, this script speaks GBGP to the runner (`gbgp` ... `gbgpok`,
# `newgame`, the TwelveMensMorris option, `score eval` from White's side,
# no increments). Anything a GBGP engine would not be sent makes it exit
# with a message on stdout, so the runner records a crash.
coproc M { "$1"; }
say() { echo "$1" >&"${M[1]}"; }
fail() { echo "info string fake-gbgp: unexpected \`$1\`"; exit 3; }
until_word() { # read mulino's lines until one starts with $1; echo it
  local l
  while IFS= read -r -u "${M[0]}" l; do
    case "$l" in "$1"*) echo "$l"; return ;; esac
  done
  exit 4
}
black=0
while IFS= read -r line; do
  case "$line" in
    gbgp)
      echo "id name fake-gbgp"
      echo "option name TwelveMensMorris type check default false"
      echo "gbgpok" ;;
    newgame) say ucinewgame ;;
    isready) say isready; until_word readyok >/dev/null; echo readyok ;;
    "setoption name TwelveMensMorris value false") ;;
    "setoption name TwelveMensMorris value true") say "setoption name Variant value twelve" ;;
    "position startpos"*)
      set -- $line
      shift 3
      black=$(( $# % 2 ))
      say "$line" ;;
    go*)
      case "$line" in *winc*|*binc*|*nodes*) fail "$line" ;; esac
      say "$line"
      while IFS= read -r -u "${M[0]}" l; do
        case "$l" in
          bestmove*) set -- $l; echo "bestmove ${2/(none)/none}"; break ;;
          info*score\ cp*)
            set -- $l
            out="info"
            while [ $# -gt 0 ]; do
              case "$1" in
                depth) out="$out depth $2"; shift 2 ;;
                cp) v=$2; [ "$black" = 1 ] && v=$(( -v )); out="$out score eval $v"; shift 2 ;;
                *) shift ;;
              esac
            done
            echo "$out" ;;
        esac
      done ;;
    quit) say quit; exit 0 ;;
    *) fail "$line" ;;
  esac
done
