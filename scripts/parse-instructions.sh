#!/bin/sh
# Instructions per MB that each engine of the `model_parse` bench spends parsing each
# fixture, counted by valgrind (cachegrind, no cache simulation): unlike MB/s these do
# not move with the load of a shared machine, so they show a change in the parse path
# even on a busy 2-core box. One parse of the 1 MB fixture; the fixed cost of the
# process (fixture generation, start-up) is measured with zero parses and subtracted.
#
#   cargo bench -p tern-core --bench model_parse --no-run    (prints the binary's path)
#   scripts/parse-instructions.sh target/release/deps/model_parse-HASH
set -eu
bench=$1
count() {
    MODEL_PARSE_QUICK=1 MODEL_PARSE_PROFILE=$1 MODEL_PARSE_ENGINE=$2 MODEL_PARSE_ITERS=$3 \
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bench" 2>&1 |
        grep 'I *refs' | awk '{ gsub(",", "", $NF); print $NF }'
}
printf '%-10s %12s %12s %12s %10s\n' fixture tern alacritty vte-noop alac/tern
for fixture in dense scrolling agent-tui unicode; do
    line=$fixture
    for engine in tern alacritty_terminal vte-noop; do
        base=$(count "$fixture" "$engine" 0)
        one=$(count "$fixture" "$engine" 1)
        eval "n_$(echo $engine | tr -d '_-')=$(((one - base) / 1000000))"
    done
    printf '%-10s %11dM %11dM %11dM %9.2fx\n' "$fixture" "$n_tern" "$n_alacrittyterminal" "$n_vtenoop" \
        "$(awk "BEGIN { print $n_alacrittyterminal / $n_tern }")"
done
