#!/usr/bin/env bash
# Start-up of the real window beside xterm (and alacritty and kitty when installed), in
# one run under Xvfb: launch → the first DSR the program inside gets answered (a bash
# in raw mode asks `ESC[6n` and stamps the time its reply arrives), and for tern also
# launch → the first frame showing the program's output (TERN_TRACE).
#   RUNS=8 scripts/startup.sh        (builds target/release/tern first if missing;
#                                     TERN=PATH times another build, say main's)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x target/release/tern ] || cargo build --release -p tern
runs=${RUNS:-8}
work=$(mktemp -d)
export XDG_RUNTIME_DIR=$work/xdg; mkdir -m 700 "$XDG_RUNTIME_DIR"
n=90; while [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ]; do n=$((n+1)); done
Xvfb :$n -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 & xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$work"' EXIT
export DISPLAY=:$n
until xdotool getmouselocation >/dev/null 2>&1; do sleep 0.05; done
probe="stty raw -echo; printf '\\033[6n'; IFS= read -r -d R _; date +%s%N > $work/answered; printf 'ready'; sleep 0.5"

terms=(tern xterm)
command -v alacritty >/dev/null && terms+=(alacritty)
command -v kitty >/dev/null && terms+=(kitty)
launch() { # NAME: starts it with the probe inside, prints its pid
  case $1 in
    tern) TERN_TRACE=$work/trace.jsonl ${TERN:-target/release/tern} --cols 80 --rows 24 -e bash -c "$probe" ;;
    xterm) xterm -geometry 80x24 -e bash -c "$probe" ;;
    alacritty) alacritty -e bash -c "$probe" ;;
    kitty) kitty bash -c "$probe" ;;
  esac
}
declare -A dsr frame
for r in $(seq 1 "$runs"); do
  for t in "${terms[@]}"; do # alternating, so drift on the machine falls on all alike
    rm -f "$work/answered" "$work/trace.jsonl"
    t0=$(date +%s%N)
    launch "$t" >/dev/null 2>&1 & pid=$!
    for _ in $(seq 1 400); do [ -s "$work/answered" ] && break; sleep 0.01; done
    [ -s "$work/answered" ] || { echo "$t: no answer within 4 s" >&2; kill $pid 2>/dev/null; continue; }
    dsr[$t]+=" $(( ($(cat "$work/answered") - t0) / 1000 ))"
    if [ "$t" = tern ]; then
      for _ in $(seq 1 200); do grep -q first_output_frame_built "$work/trace.jsonl" 2>/dev/null && break; sleep 0.01; done
      us=$(sed -n 's/.*"event":"first_output_frame_built".*"t_us":\([0-9]*\).*/\1/p' "$work/trace.jsonl" | head -n 1)
      [ -n "$us" ] && frame[$t]+=" $((us))"
    fi
    kill $pid 2>/dev/null; wait $pid 2>/dev/null || true
  done
done
stats() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { printf "median %6.1f ms  min %6.1f  max %6.1f  (n=%d)", a[int((NR + 1) / 2)] / 1000, a[1] / 1000, a[NR] / 1000, NR }'; }
echo "launch → first DSR answered inside (same run, $runs runs each, alternating):"
for t in "${terms[@]}"; do printf '  %-10s %s   samples:%s\n' "$t" "$(echo "${dsr[$t]:-}" | stats)" "${dsr[$t]:-}"; done
echo "tern: process start → first frame showing the program's output (TERN_TRACE):"
printf '  %-10s %s\n' tern "$(echo "${frame[tern]:-}" | stats)"
