#!/usr/bin/env bash
# What painting costs when there is nothing new to show, in the real window under Xvfb
# (software rendering: Mesa's lavapipe), beside xterm in the same run:
#   1. CPU seconds the terminal process spends while a program asks `ESC [6n` (DSR)
#      QUERIES times (nothing on screen changes), and the round trips' p50 / p99;
#   2. frames tern paints per second while idle (an unchanged visible pane) and while a
#      hidden tab floods (trace events `frame`).
#   scripts/repaint-cost.sh [QUERIES]   (RUNS=5; builds the release binaries if missing;
#                                        needs xvfb, xdotool, xterm; PROFILE=debug uses
#                                        the debug binaries: frame counts only, not CPU)
set -euo pipefail
cd "$(dirname "$0")/.."
queries=${1:-1000}
runs=${RUNS:-5}
profile=${PROFILE:-release}
[ -x target/$profile/tern ] && [ -x target/$profile/tern-probe ] ||
  cargo build --profile "${profile/debug/dev}" -p tern -p tern-tests
tern=$(realpath "${TERN:-target/$profile/tern}")  # TERN=PATH: another build (say main's)
probe=$(realpath target/$profile/tern-probe)
work=$(mktemp -d)
export XDG_RUNTIME_DIR=$work/xdg; mkdir -m 700 "$XDG_RUNTIME_DIR"
export SHELL=/bin/sh PS1='$ '
n=90; while [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ]; do n=$((n+1)); done
Xvfb :$n -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 & xvfb=$!
pid=
trap 'kill $xvfb 2>/dev/null; [ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
export DISPLAY=:$n
until xdotool getmouselocation >/dev/null 2>&1; do sleep 0.05; done
printf '()\n' > "$work/config.ron"  # built-in settings, whatever the user has
cd "$work" # a folder that is not a git repository (no sidebar to refresh)

# CPU seconds (user + system, all threads) of process $1 so far.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"; }
# The DSR loop, started when $work/go appears; $work/done when it is over.
loop="while [ ! -e $work/go ]; do sleep 0.05; done; $probe dsr --count $queries --warmup 20 --gap-us 500 --out $work/rtt; touch $work/done; exec sleep 600"
pick() { sort -n "$1" | awk -v q="$2" '{ a[NR] = $1 } END { i = int((NR - 1) * q) + 1; printf "%.3f", a[i] / 1e6 }'; }

measure() { # measure NAME COMMAND... : one run, prints "cpu_s p50_ms p99_ms"
  local name=$1; shift
  rm -f "$work/go" "$work/done" "$work/rtt"
  "$@" >/dev/null 2>&1 & pid=$!
  sleep 2 # started and settled
  local before; before=$(cpu $pid)
  touch "$work/go"
  until [ -e "$work/done" ]; do sleep 0.02; done
  sleep 0.3 # the last frames
  local after; after=$(cpu $pid)
  kill $pid; wait $pid 2>/dev/null || true; pid=
  echo "$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.3f", a - b }') $(pick "$work/rtt" 0.5) $(pick "$work/rtt" 0.99)" >> "$work/$name.txt"
}

for r in $(seq 1 "$runs"); do
  measure tern "$tern" --config "$work/config.ron" --cols 80 --rows 24 -e sh -c "$loop"
  measure xterm xterm -geometry 80x24 -e sh -c "$loop"
done
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
col() { awk -v c="$2" '{ print $c }' "$work/$1.txt" | median; }
maxcol() { awk -v c="$2" '{ print $c }' "$work/$1.txt" | sort -n | tail -n 1; }
echo "$queries DSR queries in the window, $runs runs (medians; worst run in brackets):"
for t in tern xterm; do
  printf '  %-5s cpu %ss [%s]  round trip p50 %sms  p99 %sms [%s]\n' "$t" \
    "$(col $t 1)" "$(maxcol $t 1)" "$(col $t 2)" "$(col $t 3)" "$(maxcol $t 3)"
done
awk -v t="$(col tern 1)" -v x="$(col xterm 1)" -v tp="$(col tern 3)" -v xp="$(col xterm 3)" \
  'BEGIN { printf "  tern - xterm cpu: %+.3fs   p99 ratio tern/xterm: %.2f\n", t - x, tp / xp }'

# Frames painted per second (trace event `frame`) over a few seconds.
fps() { # fps TRACE SECONDS
  local a b; a=$(grep -c '"event":"frame"' "$1" || true); sleep "$2"
  b=$(grep -c '"event":"frame"' "$1" || true)
  awk -v a="$a" -v b="$b" -v s="$2" 'BEGIN { printf "%.2f", (b - a) / s }'
}
trace=$work/idle.jsonl
TERN_TRACE=$trace "$tern" --config "$work/config.ron" --cols 80 --rows 24 -e sh >/dev/null 2>&1 & pid=$!
sleep 2
echo "frames painted per second, idle (an unchanged visible pane): $(fps "$trace" 5)"
kill $pid; wait $pid 2>/dev/null || true; pid=
head -c 2000000 /dev/urandom | base64 > "$work/flood.txt"
trace=$work/flood.jsonl
TERN_TRACE=$trace "$tern" --config "$work/config.ron" --cols 80 --rows 24 \
  -e sh -c "exec $probe stream --file $work/flood.txt --rate 20000000" >/dev/null 2>&1 & pid=$!
sleep 2
win=$(xdotool search --sync --class tern | tail -n 1)
xdotool windowfocus --sync "$win" key --window "$win" ctrl+shift+t
sleep 2
echo "frames painted per second while a hidden tab floods at 20 MB/s: $(fps "$trace" 5)"
kill $pid; wait $pid 2>/dev/null || true; pid=
