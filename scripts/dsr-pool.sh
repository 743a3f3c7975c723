#!/bin/sh
# Pools the raw round trips that `KEEP=DIR scripts/headless-dsr.sh` kept, over any
# number of runs, and prints p50/p99 per system and case (µs) and tern's over the
# floor's: a p99 from thousands of probes instead of one run's ten slowest.
#
#   scripts/dsr-pool.sh DIR...     (each DIR one run's KEEP directory)
set -eu
[ $# -gt 0 ] || { echo "usage: dsr-pool.sh DIR..." >&2; exit 2; }
q() { # system case -> "n p50 p99"
    sys=$1 case=$2
    shift 2
    for d in "$@"; do cat "$d/$sys-$case-"*.txt; done | sort -n | awk '{ v[NR] = $1 / 1000 } END {
        k50 = int(0.50 * NR + 0.999999); k99 = int(0.99 * NR + 0.999999);
        printf "%d %.1f %.1f\n", NR, v[k50], v[k99] }'
}
for case in idle load; do
    t=$(q tern "$case" "$@")
    f=$(q floor "$case" "$@")
    echo "$case $t $f" | awk '{ printf "%s: tern n %d p50 %.1f p99 %.1f | floor n %d p50 %.1f p99 %.1f | p50 %.2fx p99 %.2fx\n", $1, $2, $3, $4, $5, $6, $7, $3 / $6, $4 / $7 }'
done
