#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets, docs/fuzzing.md) for SECONDS
# each (default 60), one after another, from its seeds (fuzz/seeds/TARGET)
# and what earlier runs found (fuzz/corpus/TARGET, not in git). Fails if
# any target crashes, panics, hangs (10 s an input) or runs out of memory;
# the input that did it is in fuzz/artifacts/TARGET/, the target's output
# in fuzz/artifacts/TARGET/fuzz.log.
#
# Needs the nightly toolchain and cargo-fuzz:
#   rustup toolchain install nightly
#   cargo install cargo-fuzz
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# For a developer before stopping work; CI does not run it.
set -euo pipefail

seconds=${1:-60}
shift || true
cd "$(dirname "$0")/.."

if ! cargo +nightly fuzz --help >/dev/null 2>&1; then
    echo "fuzz.sh: needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz)" >&2
    exit 2
fi

if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

# -a: debug assertions and overflow checks on, as in the tests.
cargo +nightly fuzz build -a

failed=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log="fuzz/artifacts/$t/fuzz.log"
    if cargo +nightly fuzz run -a "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 >"$log" 2>&1; then
        printf '%-13s ok    %s\n' "$t" "$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)"
    else
        printf '%-13s FAIL  see %s and fuzz/artifacts/%s/\n' "$t" "$log" "$t"
        failed+=("$t")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: ${failed[*]} failed" >&2
    exit 1
fi
