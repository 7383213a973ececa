#!/usr/bin/env bash
# A Sanmill-style engine for the match tests: mulino ($1) does the
# thinking, this script answers like Sanmill's `tgf mill uci`: moves are
# atomic (a mill-closing step, then each removal after a `go` of its
# own), and the best move ends an `info` line instead of having a
# `bestmove` line. A whole turn such as `d7xa4` in a `position` it is
# sent makes it exit. Rules come as Sanmill's own options, one a rule
# field, which it turns into mulino's by its own table (Sanmill's
# numbered choices included), and `statejson` reports them with the
# position and the legal moves in atomic notation, as Sanmill does.
#
# Words after $1: `slow` takes 300 ms longer than asked; `lie` leaves the
# first legal move out of `statejson`; `log=FILE` appends every
# `setoption` line it is sent to FILE, after its process id.
coproc M { "$1"; }
shift
say() { echo "$1" >&"${M[1]}"; }
hear() { IFS= read -r -u "${M[0]}" "$1"; }
fail() { echo "info string fake-sanmill: unexpected \`$1\`"; exit 3; }
slow=; lie=; log=
for w in "$@"; do
  case "$w" in slow) slow=1 ;; lie) lie=1 ;; log=*) log=${w#log=} ;; esac
done

# Sanmill's rule options: its name (lowercase) -> mulino's, and the
# value Sanmill starts with.
declare -A mulino_name=(
  [piecescount]=Pieces [mayfly]=Flying [flypiececount]=FlyPieceCount
  [hasdiagonallines]=DiagonalLines
  [millformationactioninplacingphase]=MillFormationActionInPlacingPhase
  [mayremovefrommillsalways]=MayRemoveFromMillsAlways
  [mayremovemultiple]=MayRemoveMultiple [maymoveinplacingphase]=MayMoveInPlacingPhase
  [onetimeusemill]=OneTimeUseMill [nmoverule]=NMoveRule
  [endgamenmoverule]=EndgameNMoveRule [threefoldrepetitionrule]=ThreefoldRepetition
  [boardfullaction]=BoardFullAction [isdefendermovefirst]=IsDefenderMoveFirst
  [stalemateaction]=BlockedSideRemoves
  [piecesatleastcount]= [restrictrepeatedmillsformation]= [stopplacingwhentwoemptysquares]=
  [custodiancaptureenabled]= [interventioncaptureenabled]= [leapcaptureenabled]=
)
declare -A value=(
  [piecescount]=9 [mayfly]=true [flypiececount]=3 [hasdiagonallines]=false
  [millformationactioninplacingphase]=0 [mayremovefrommillsalways]=false
  [mayremovemultiple]=false [maymoveinplacingphase]=false [onetimeusemill]=false
  [nmoverule]=100 [endgamenmoverule]=100 [threefoldrepetitionrule]=true
  [boardfullaction]=0 [isdefendermovefirst]=false [stalemateaction]=0
  [piecesatleastcount]=3 [restrictrepeatedmillsformation]=false
  [stopplacingwhentwoemptysquares]=false [custodiancaptureenabled]=false
  [interventioncaptureenabled]=false [leapcaptureenabled]=false
)
placing=(removeOpponentsPieceFromBoard removeOpponentsPieceFromHandThenOpponentsTurn
  removeOpponentsPieceFromHandThenYourTurn opponentRemovesOwnPiece
  markAndDelayRemovingPieces removalBasedOnMillCounts)
placing_mulino=(remove-from-board remove-from-hand - - mark-and-delay by-mill-counts)
full=(firstPlayerLose firstAndSecondPlayerRemovePiece secondAndFirstPlayerRemovePiece
  sideToMoveRemovePiece agreeToDraw)
full_mulino=(first-player-loses first-then-second-remove second-then-first-remove - draw)
stalemate=(endWithStalemateLoss changeSideToMove removeOpponentsPieceAndMakeNextMove)

setoption() {
  local rest=${1#setoption name } name v
  name=${rest% value *}; v=${rest##* value }
  [ -n "$log" ] && echo "$$ $1" >>"$log"
  local key=${name,,}
  case "$key" in skilllevel) return ;; esac
  if [ -z "${mulino_name[$key]+set}" ]; then
    echo "info string unsupported setoption: $1"; return
  fi
  value[$key]=$v
  local target=${mulino_name[$key]}
  [ -z "$target" ] && return
  case "$key" in
    millformationactioninplacingphase) v=${placing_mulino[$v]} ;;
    boardfullaction) v=${full_mulino[$v]} ;;
    stalemateaction) [ "$v" = 2 ] && v=true || v=false ;;
  esac
  say "setoption name $target value $v"
}

# `statejson`: the rules as set, and mulino's position and legal moves.
statejson() {
  local l fen moves actions=() m a seen=" "
  say d; say moves
  while hear l; do case "$l" in "Fen: "*) fen=${l#Fen: } ;; "Legal moves:"*) break ;; esac; done
  hear moves
  for m in $moves; do
    case "$m" in x*) rest=${m#x}; a="x${rest%%x*}" ;; *) a=${m%%x*} ;; esac
    case "$seen" in *" $a "*) ;; *) seen="$seen$a "; actions+=("\"$a\"") ;; esac
  done
  [ -n "$lie" ] && actions=("${actions[@]:1}")
  printf 'info string sanmill_state {"status":"ok","rules_options":{'
  printf '"pieceCount":%s,"flyPieceCount":%s,"piecesAtLeastCount":%s,' \
    "${value[piecescount]}" "${value[flypiececount]}" "${value[piecesatleastcount]}"
  printf '"mayFly":%s,"hasDiagonalLines":%s,"millFormationActionInPlacingPhase":"%s",' \
    "${value[mayfly]}" "${value[hasdiagonallines]}" \
    "${placing[${value[millformationactioninplacingphase]}]}"
  printf '"mayRemoveFromMillsAlways":%s,"mayRemoveMultiple":%s,"nMoveRule":%s,' \
    "${value[mayremovefrommillsalways]}" "${value[mayremovemultiple]}" "${value[nmoverule]}"
  printf '"endgameNMoveRule":%s,"mayMoveInPlacingPhase":%s,"isDefenderMoveFirst":%s,' \
    "${value[endgamenmoverule]}" "${value[maymoveinplacingphase]}" \
    "${value[isdefendermovefirst]}"
  printf '"restrictRepeatedMillsFormation":%s,"oneTimeUseMill":%s,' \
    "${value[restrictrepeatedmillsformation]}" "${value[onetimeusemill]}"
  printf '"stopPlacingWhenTwoEmptySquares":%s,"boardFullAction":"%s",' \
    "${value[stopplacingwhentwoemptysquares]}" "${full[${value[boardfullaction]}]}"
  printf '"threefoldRepetitionRule":%s,"custodianCapture":{"enabled":%s},' \
    "${value[threefoldrepetitionrule]}" "${value[custodiancaptureenabled]}"
  printf '"interventionCapture":{"enabled":%s},"leapCapture":{"enabled":%s},' \
    "${value[interventioncaptureenabled]}" "${value[leapcaptureenabled]}"
  printf '"stalemateAction":"%s"},"fen":"%s ids:nodes","legal_actions":[%s]}\n' \
    "${stalemate[${value[stalemateaction]}]}" "$fen" "$(IFS=,; echo "${actions[*]}")"
}

while IFS= read -r line; do
  case "$line" in
    uci)
      echo "id name fake-sanmill"
      echo "option name SkillLevel type spin default 1 min 0 max 30"
      for key in "${!value[@]}"; do echo "option name $key type string default ${value[$key]}"; done
      echo "uciok" ;;
    isready) say isready; while hear l; do [ "$l" = readyok ] && break; done; echo readyok ;;
    ucinewgame) say ucinewgame ;;
    "setoption name "*) setoption "$line" ;;
    statejson) statejson ;;
    position*)
      for w in $line; do
        case "$w" in [a-g][1-7]x*|[a-g][1-7]-[a-g][1-7]x*|x*x*) fail "$line" ;; esac
      done
      say "$line" ;;
    go*)
      say "$line"
      depth=0; cp=0
      while hear l; do
        case "$l" in
          info*depth*score\ cp*) set -- $l; depth=$3; cp=${10} ;;
          bestmove*)
            set -- $l
            mv=$2
            case "$mv" in
              x*) rest=${mv#x}; mv="x${rest%%x*}" ;;
              *) mv=${mv%%x*} ;;
            esac
            [ -n "$slow" ] && sleep 0.3
            echo "info depth $depth score cp $cp nodes 1 bestmove ${mv/(none)/none}"
            break ;;
        esac
      done ;;
    quit) say quit; exit 0 ;;
    *) fail "$line" ;;
  esac
done
