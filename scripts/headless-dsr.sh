#!/bin/sh
# DSR (`ESC[6n`) round trips through the binary: `tern-probe dsr` inside
# `tern --headless`, beside the floor (`tern-bench floor`: a bare pty whose reader only
# answers `ESC[6n`) in the same run, alternating, idle and under a 1 MB/s agent-TUI load
# in the same pane. Prints p50/p95/p99/max per system and case, and tern's p99 over the
# floor's.
#
#   scripts/headless-dsr.sh [TERN] [TERN_BENCH] [TERN_PROBE]
#       (defaults target/release/tern, target/release/tern-bench, target/release/tern-probe)
#   ROUNDS (3) rounds of COUNT (250) probes per system and case; LOAD_RATE (1000000) B/s.
#   Under load it also prints the round trips of queries written right behind a load step.
#   KEEP=DIR copies the raw round trips (ns, one a line: SYSTEM-CASE-ROUND.txt, and the
#   load's .trace files) into DIR, to pool several runs.
set -eu
tern=${1:-target/release/tern}
bench=${2:-target/release/tern-bench}
probe=${3:-target/release/tern-probe}
rounds=${ROUNDS:-3}
count=${COUNT:-250}
rate=${LOAD_RATE:-1000000}
for b in "$tern" "$bench" "$probe"; do
    [ -x "$b" ] || { echo "headless-dsr: $b is not built" >&2; exit 1; }
done
# The programs run inside a pty: give them absolute paths.
tern=$(realpath "$tern")
bench=$(realpath "$bench")
probe=$(realpath "$probe")
dir=$(mktemp -d)
trap 'if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$dir"/*.txt "$dir"/*.trace "$KEEP"/; fi; rm -rf "$dir"' EXIT
"$bench" fixture agent-tui 4194304 "$dir/agent.bin"

run() { # system case round
    system=$1
    out="$dir/$1-$2-$3.txt"
    load=""
    [ "$2" = load ] && load="--load-file $dir/agent.bin --load-rate $rate --trace $dir/$1-$2-$3.trace"
    # shellcheck disable=SC2086 # $load is two flags or none
    set -- "$probe" dsr --count "$count" --warmup 20 --out "$out" $load
    case "$system" in
        tern) "$tern" --headless -- "$@" </dev/null >/dev/null ;;
        floor) "$bench" floor -- "$@" </dev/null >/dev/null ;;
    esac
}

for case in idle load; do
    r=0
    while [ "$r" -lt "$rounds" ]; do
        # Alternate which system goes first.
        if [ $((r % 2)) -eq 0 ]; then order="tern floor"; else order="floor tern"; fi
        for sys in $order; do run "$sys" "$case" "$r"; done
        r=$((r + 1))
    done
done

summary() { # files... -> "p50 p95 p99 max" in µs
    cat "$@" | sort -n | awk '{ v[NR] = $1 / 1000 } END {
        q = "";
        n = split("0.50 0.95 0.99 1.00", ps, " ");
        for (i = 1; i <= n; i++) { k = int(ps[i] * NR + 0.999999); if (k < 1) k = 1; if (k > NR) k = NR; q = q sprintf(" %8.1f", v[k]) }
        print q
    }'
}

echo "tern --headless vs floor, ESC[6n round trip (µs), $((rounds * count)) probes per cell"
printf '%-5s %-6s %8s %8s %8s %8s\n' case system p50 p95 p99 max
for case in idle load; do
    t=$(summary "$dir"/tern-"$case"-*.txt)
    f=$(summary "$dir"/floor-"$case"-*.txt)
    printf '%-5s %-6s%s\n' "$case" tern "$t"
    printf '%-5s %-6s%s\n' "$case" floor "$f"
    echo "$t $f" | awk -v c="$case" '{ printf "%s: tern p50 / floor p50 = %.2fx, tern p99 / floor p99 = %.2fx\n", c, $1 / $5, $3 / $7 }'
done
# Under load: the round trips of queries written within 300 µs after the load's last
# write (`tern-probe dsr --trace`), which wait for that 10 KB step to be consumed.
for sys in tern floor; do
    behind=$(cat "$dir"/"$sys"-load-*.trace | awk '$2 < 300000 { print $1 }')
    n=$(echo "$behind" | grep -c . || true)
    printf 'load: queries written right behind a load step, %-5s n %3d %s\n' "$sys" "$n" \
        "$(echo "$behind" | summary /dev/stdin | awk '{ printf "p50 %.1f p95 %.1f max %.1f", $1, $2, $4 }')"
done
