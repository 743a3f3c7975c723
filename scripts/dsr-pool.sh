#!/bin/sh
# Pools the raw round trips that `KEEP=DIR scripts/headless-dsr.sh` kept, over any
# number of runs, and prints p50/p99 per system and case (µs) and tern's over the
# floor's: a p99 from thousands of probes instead of one run's ten slowest.
#
#   scripts/dsr-pool.sh DIR...     (each DIR one run's KEEP directory)
#
# Under load it also splits the round trips by how long before the query the load last
# wrote (`tern-probe dsr --trace`): a query right behind a 10 KB step waits for the step
# to be parsed; one written 0.3-1 ms after it finds the terminal idle again.
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
bucket() { # system lo hi (µs since the load's last write) -> "n p50 p90"
    sys=$1 lo=$2 hi=$3
    shift 3
    for d in "$@"; do cat "$d/$sys-load-"*.trace; done |
        awk -v lo="$lo" -v hi="$hi" '$2 >= lo * 1000 && $2 < hi * 1000 { print $1 / 1000 }' |
        sort -n | awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "0 - -"; exit }
            printf "%d %.0f %.0f\n", NR, v[int(0.50 * NR + 0.999999)], v[int(0.90 * NR + 0.999999)] }'
}
for range in 0-100 100-300 300-1000 1000-3000 3000-1000000000; do
    lo=${range%-*} hi=${range#*-}
    t=$(bucket tern "$lo" "$hi" "$@")
    f=$(bucket floor "$lo" "$hi" "$@")
    label="$lo-$hi us"
    [ "$hi" -ge 1000000 ] && label="$lo+ us"
    echo "$t $f" | awk -v l="$label" '{ printf "load, written %s after a load write: tern n %d p50 %s p90 %s | floor n %d p50 %s p90 %s\n", l, $1, $2, $3, $4, $5, $6 }'
done
