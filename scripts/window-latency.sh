#!/usr/bin/env bash
# Measures startup and typing latency of the real window through TERN_TRACE, under
# Xvfb (software rendering on machines without a GPU). Needs xvfb and xdotool.
#   scripts/window-latency.sh [KEYS]   (builds target/release/tern first if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
keys=${1:-200}
[ -x target/release/tern ] || cargo build --release -p tern
work=$(mktemp -d)
export XDG_RUNTIME_DIR=$work/xdg; mkdir -m 700 "$XDG_RUNTIME_DIR"
n=90; while [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ]; do n=$((n+1)); done
Xvfb :$n -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 & xvfb=$!
trap 'kill $xvfb 2>/dev/null; kill $tern 2>/dev/null; rm -rf "$work"' EXIT
export DISPLAY=:$n
until xdotool getmouselocation >/dev/null 2>&1; do sleep 0.05; done
runs=${RUNS:-5}
echo "startup (µs since process start), $runs runs:"
for r in $(seq 1 "$runs"); do
  trace=$work/startup-$r.jsonl
  PS1='$ ' TERN_TRACE=$trace target/release/tern --cols 80 --rows 24 -e sh >/dev/null 2>&1 & tern=$!
  until grep -q first_output_frame_built "$trace" 2>/dev/null; do sleep 0.02; done
  sleep 0.3
  awk -F'[:,}]' '/"event"/ { gsub(/"/, "", $2); printf "  %s=%s", $2, $4 } END { print "" }' "$trace"
  kill $tern; wait $tern 2>/dev/null || true
done
trace=$work/typing.jsonl
PS1='$ ' TERN_TRACE=$trace target/release/tern --cols 80 --rows 24 -e sh -c 'stty raw -echo; exec cat' >/dev/null 2>&1 & tern=$!
until grep -q first_output_frame_built "$trace" 2>/dev/null || [ -s "$trace" ] && sleep 1; do sleep 0.05; done
win=$(xdotool search --sync --class tern | tail -n 1)
xdotool windowfocus --sync "$win"
for i in $(seq 1 "$keys"); do xdotool type --window "$win" "x"; sleep 0.02; done
sleep 1
grep key_echo_frame "$trace" | sed 's/.*"latency_us":\([0-9]*\).*/\1/' | sort -n > "$work/lat.txt"
count=$(wc -l < "$work/lat.txt")
pick() { awk -v q="$1" -v n="$count" 'NR == int((n - 1) * q) + 1 { print; exit }' "$work/lat.txt"; }
echo "typing: key event received -> frame showing its echo painted, $count keys (µs): p50 $(pick 0.5) p95 $(pick 0.95) p99 $(pick 0.99) max $(tail -n 1 "$work/lat.txt")"
