#!/bin/sh
# Whole-process memory of `tern --headless --config F` keeping a build log in its
# scrollback (`scrollback_lines` from F). The program inside prints LINES lines of about
# 57 bytes, waits for the answer to a cursor-position query (so every byte before it has
# been parsed), then reads tern's own VmRSS/VmHWM from /proc. tern's diagnostics report
# gives the scrollback lines it kept.
#
#   scripts/headless-memory.sh [TERN_BINARY] [LINES]     (default target/release/tern 1000000)
set -eu
tern=${1:-target/release/tern}
lines=${2:-1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '(scrollback_lines: %s, env: {"TERN_MEMORY_LINES": "%s", "TERN_MEMORY_OUT": "%s"})\n' \
    "$lines" "$lines" "$dir/memory.txt" >"$dir/config.ron"
cat >"$dir/child.sh" <<'CHILD'
awk -v n="$TERN_MEMORY_LINES" 'BEGIN {
    for (i = 0; i < n; i++)
        printf "[%7d] Compiling crate_%05d v0.1.%02d (build/src/mod_%03d.rs)\n", i, i % 50000, i % 100, i % 977
}'
stty raw -echo
printf '\033[6n'
while :; do
    c=$(dd bs=1 count=1 2>/dev/null)
    [ "$c" = R ] && break
done
stty sane
grep -E '^(VmRSS|VmHWM)' "/proc/$PPID/status" >"$TERN_MEMORY_OUT"
CHILD
start=$(date +%s.%N)
"$tern" --headless --config "$dir/config.ron" --diagnostics-report "$dir/report.ron" \
    -- sh "$dir/child.sh" </dev/null >/dev/null
end=$(date +%s.%N)
kept=$(grep -o 'scrollback_lines: *[0-9]*' "$dir/report.ron" | head -1 | grep -o '[0-9]*$')
heap=$(grep -o 'heap_bytes: *[0-9]*' "$dir/report.ron" | head -1 | grep -o '[0-9]*$')
echo "lines written: $lines (about $((lines * 57 / 1000000)) MB of text)"
echo "scrollback lines kept: $kept (the rest of the log is on the 24-row screen)"
echo "model heap: $((heap / 1000000)) MB"
sed 's/^/tern process /' "$dir/memory.txt"
echo "wall: $(awk "BEGIN { print $end - $start }") s"
