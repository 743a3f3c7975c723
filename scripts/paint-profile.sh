#!/bin/bash
# Where the CPU goes while keys are typed over a full screen, in the real window
# (Xvfb, lavapipe): `perf record` of tern's process while xdotool types 200 keys 50 ms
# apart into `cat` at the top of a 100x30 screen of build-log lines; prints the shares
# by thread (llvmpipe-N: the software rasterizer's threads; tern's main thread
# tessellates, submits and presents; tern-model parses) and by library and symbol.
#
#   scripts/paint-profile.sh [target/release/tern]
#
# Needs perf (Debian: linux-perf), xdotool, Xvfb.
set -e
W=$(mktemp -d); export HOME=$W/home XDG_RUNTIME_DIR=$W/xdg; mkdir -p $HOME $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
TERN=${1:-target/release/tern}
N=77; while [ -e /tmp/.X$N-lock ]; do N=$((N + 1)); done
Xvfb :$N -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 & XV=$!
sleep 1; export DISPLAY=:$N
python3 - <<'PY' > $W/screen
import random
r=random.Random(4)
w=["compiled","crate","linking","test","ok","cache","miss","fetch","tern-core","wgpu","egui","parser"]
for i in range(60):
    t=(" ".join(r.choice(w) for _ in range(6))+" "*30)[:30]
    print(f"12:00:{i%60:02d}.00 \033[3{1+i%4}mINFO \033[0m {t} #{i:03d}")
PY
echo "()" > $W/tern.ron
$TERN --config $W/tern.ron -o cursor.blinking=false --cols 100 --rows 30 -e sh -c "cat $W/screen; printf '\033[H'; stty raw -echo; exec cat" >/dev/null 2>&1 &
T=$!; sleep 4
WIN=$(xdotool search --pid $T | tail -1); xdotool windowfocus $WIN || true
perf record -F 999 -g -p $T -o $W/perf.data -- sleep 12 >/dev/null 2>&1 &
P=$!
for i in $(seq 200); do xdotool key x; sleep 0.05; done
wait $P
echo "by thread:"
perf report -i $W/perf.data --no-children --sort comm --stdio -g none 2>/dev/null | grep -E "^ +[0-9]" | head
echo "by library:"
perf report -i $W/perf.data --no-children --sort dso --stdio -g none 2>/dev/null | grep -E "^ +[0-9]" | head
echo "by symbol:"
perf report -i $W/perf.data --no-children --sort dso,sym --stdio -g none 2>/dev/null | grep -E "^ +[0-9]" | head -25
kill $T; kill $XV; rm -rf $W
