#!/usr/bin/env bash
# Frames while a search runs over a long history, in the real window under Xvfb
# (software rendering: Mesa's lavapipe): a pane prints LINES lines (default 1,000,000)
# with `scrollback_lines` that keeps them all, then Ctrl+Shift+F searches for text no
# line has (so the whole history is read). From the trace (TERN_TRACE): how long the
# search ran, how many frames were drawn meanwhile, and each frame's time, both the UI
# part (`ui_us`) and eframe's whole previous frame with painting (`prev_frame_us`):
# median, p99 and worst. A screenshot of the search bar's progress goes to
# docs/screenshots/search-progress.png.
#   scripts/search-frames.sh [LINES]   (RUNS=3; PROFILE=release|debug, default release;
#                                       needs xvfb, xdotool, imagemagick)
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-1000000}
runs=${RUNS:-3}
profile=${PROFILE:-release}
[ -x target/$profile/tern ] || cargo build --profile "${profile/debug/dev}" -p tern
tern=$(realpath "${TERN:-target/$profile/tern}")
shots=$(realpath docs/screenshots)
work=$(mktemp -d)
export XDG_RUNTIME_DIR=$work/xdg; mkdir -m 700 "$XDG_RUNTIME_DIR"
export SHELL=/bin/sh PS1='$ '
n=90; while [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ]; do n=$((n+1)); done
Xvfb :$n -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 & xvfb=$!
pid=
trap 'kill $xvfb 2>/dev/null; [ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
export DISPLAY=:$n
until xdotool getmouselocation >/dev/null 2>&1; do sleep 0.05; done
printf '(scrollback_lines: %d)\n' $((lines + 1000)) > "$work/config.ron"
cd "$work" # a folder that is not a git repository (no sidebar to refresh)

# q FILE Q: the Q-quantile of the numbers in FILE (one per line).
q() { sort -n "$1" | awk -v q="$2" '{ a[NR] = $1 } END { if (NR == 0) { print "-"; exit } i = int((NR - 1) * q) + 1; print a[i] }'; }

for r in $(seq 1 "$runs"); do
  rm -f "$work/printed" "$work/trace"
  TERN_TRACE=$work/trace "$tern" --config "$work/config.ron" --cols 100 --rows 30 \
    -e sh -c "seq 1 $lines; touch $work/printed; exec sleep 600" >/dev/null 2>&1 & pid=$!
  until [ -e "$work/printed" ]; do sleep 0.1; done
  sleep 3 # parsed and drawn
  win=$(xdotool search --sync --class tern | tail -n 1)
  xdotool windowfocus --sync "$win"
  xdotool key --window "$win" ctrl+shift+f; sleep 0.5
  xdotool type --window "$win" "no such line"; sleep 0.3
  xdotool key --window "$win" Return
  sleep 0.4
  [ "$r" = 1 ] && import -display ":$n" -window root "$shots/search-progress.png" 2>/dev/null || true
  for _ in $(seq 1 600); do
    grep -q '"event":"search","t_us":[0-9]*,"running":false' "$work/trace" && break
    sleep 0.1
  done
  kill $pid; wait $pid 2>/dev/null || true; pid=
  # The frames between the search's start and end.
  awk '
    /"event":"search"/ && /"running":true/ { on = 1; match($0, /"t_us":[0-9]+/); t0 = substr($0, RSTART + 7, RLENGTH - 7); next }
    /"event":"search"/ && /"running":false/ { if (on) { match($0, /"t_us":[0-9]+/); t1 = substr($0, RSTART + 7, RLENGTH - 7); match($0, /"of":[0-9]+/); l = substr($0, RSTART + 5, RLENGTH - 5) } on = 0; next }
    on && /"event":"frame"/ {
      match($0, /"ui_us":[0-9]+/); print substr($0, RSTART + 8, RLENGTH - 8) > "'"$work"'/ui"
      match($0, /"prev_frame_us":-?[0-9]+/); p = substr($0, RSTART + 16, RLENGTH - 16); if (p >= 0) print p > "'"$work"'/prev"
      frames++ }
    END { printf "%d %d %d\n", (t1 - t0) / 1000, frames, l > "'"$work"'/run" }' "$work/trace"
  read -r ms frames searched < "$work/run"
  echo "run $r: search $ms ms over $searched lines, $frames frames; ui_us p50 $(q "$work/ui" 0.5) p99 $(q "$work/ui" 0.99) max $(q "$work/ui" 1); whole frame us p50 $(q "$work/prev" 0.5) p99 $(q "$work/prev" 0.99) max $(q "$work/prev" 1)"
  cat "$work/prev" >> "$work/all_prev"; cat "$work/ui" >> "$work/all_ui"; rm -f "$work/prev" "$work/ui"
done
echo "all runs: whole frame us p50 $(q "$work/all_prev" 0.5) p99 $(q "$work/all_prev" 0.99) max $(q "$work/all_prev" 1); ui us p50 $(q "$work/all_ui" 0.5) p99 $(q "$work/all_ui" 0.99) max $(q "$work/all_ui" 1)"
