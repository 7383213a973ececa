#!/usr/bin/env bash
# Builds the sparring partners of `mulino match` from checkouts made
# beforehand (nothing is fetched here), and plays the baseline gauntlets.
# Their code stays outside the project.
#
#   scripts/sparring.sh build DIR       build DIR/sanmill and DIR/muhle-intelligence
#   scripts/sparring.sh sanmill DIR [GAMES] [MULINO]   gauntlet against Sanmill
#   scripts/sparring.sh muhle DIR [GAMES] [MULINO]     gauntlet against Mühle Intelligence
#
# Environment: MOVETIME (ms a move, default 100), SEED (default 15) and
# CONCURRENCY (games at once, default 1)
# for both gauntlets; TB=TBDIR gives mulino the databases in TBDIR and
# ends the games at database wins and losses (`--tb TBDIR --tb-adjudicate
# win-loss`, docs/matches.md), drawn positions being played out.
#
# DIR/sanmill is a checkout of github.com/calcitem/Sanmill (at least its
# Cargo.toml, Cargo.lock, rust-toolchain.toml, crates/ and
# src/ui/flutter_app/assets/opening_books/, which tgf-cli includes at
# build time); DIR/muhle-intelligence one of
# github.com/SimonMaracine/Muhle-Intelligence (a Rust crate). MULINO
# defaults to target/release/mulino. Games go to DIR/results/.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
games=${3:-}
mulino=${4:-target/release/mulino}

movetime=${MOVETIME:-100}
seed=${SEED:-15}
mulino_tb=()
match_tb=()
if [ -n "${TB:-}" ]; then
  mulino_tb=(option.TablebasePath="$TB")
  match_tb=(--tb "$TB" --tb-adjudicate win-loss)
fi

case "$cmd" in
  build)
    # Sanmill pins its compiler in rust-toolchain.toml; where that one
    # cannot be installed, RUSTUP_TOOLCHAIN=stable overrides it.
    (cd "$dir/sanmill" && cargo build --release -p tgf-cli)
    (cd "$dir/muhle-intelligence" && cargo build --release)
    ls -l "$dir/sanmill/target/release/tgf" \
      "$dir/muhle-intelligence/target/release/muhle_intelligence"
    ;;
  sanmill)
    mkdir -p "$dir/results"
    "$mulino" match \
      --engine cmd="$mulino" name=mulino "${mulino_tb[@]}" \
      --engine cmd="$dir/sanmill/target/release/tgf" arg=mill arg=uci proto=sanmill \
        name=sanmill option.SkillLevel=30 option.MoveTimeMs=0 \
        option.Shuffling=false option.IDSEnabled=true depth=64 movetime="$movetime" \
      --movetime "$movetime" --games "${games:-120}" --random-plies 4 --seed "$seed" \
      --concurrency "${CONCURRENCY:-1}" "${match_tb[@]}" \
      --pgn "$dir/results/sanmill.pgn" --json "$dir/results/sanmill.json"
    ;;
  muhle)
    mkdir -p "$dir/results"
    "$mulino" match \
      --engine cmd="$mulino" name=mulino "${mulino_tb[@]}" \
      --engine cmd="$dir/muhle-intelligence/target/release/muhle_intelligence" \
        proto=gbgp name=muhle \
      --movetime "$movetime" --games "${games:-40}" --random-plies 4 --seed "$seed" \
      --concurrency "${CONCURRENCY:-1}" "${match_tb[@]}" \
      --pgn "$dir/results/muhle.pgn" --json "$dir/results/muhle.json"
    ;;
  *)
    echo "unknown command \`$cmd\` (build, sanmill, muhle)" >&2
    exit 2
    ;;
esac
