#!/bin/sh
# Whole-process memory of `tern --headless` under two hostile programs (issue 16):
#   1. one OSC string of OSC_MB megabytes (default 100) whose ESC and `]` arrive in
#      separate writes, then a line of text: tern's peak RSS, and whether the line after
#      it is on the screen;
#   2. DA_MB megabytes (default 30) of `ESC [c` from a program that never reads its
#      input: the replies pile up until tern stops reading the program (backpressure),
#      which then blocks in write(). After HOLD seconds (default 5) blocked, another
#      process drains the pty's input: every reply must arrive (count = queries x 16
#      bytes, each `ESC [?65;1;6;22;28c`) and the program's last line must reach the
#      screen. tern's peak RSS over
#      the whole run, and its RSS while the program was blocked.
#
#   scripts/headless-hardening.sh [TERN_BINARY]   (default target/release/tern)
set -eu
tern=${1:-target/release/tern}
osc_mb=${OSC_MB:-100}
da_mb=${DA_MB:-30}
hold=${HOLD:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
rss() { grep -E '^VmRSS' "/proc/$1/status" | awk '{ print int($2 / 1024) }'; }
hwm() { grep -E '^VmHWM' "/proc/$1/status" | awk '{ print int($2 / 1024) }'; }

# 1. The split-ESC OSC.
cat >"$dir/osc.sh" <<CHILD
printf '\033'
sleep 0.2
printf ']0;'
head -c $((osc_mb * 1024 * 1024)) /dev/zero | tr '\0' a
printf '\007after the OSC\r\n'
stty raw -echo
printf '\033[6n'
while :; do
    c=\$(dd bs=1 count=1 2>/dev/null)
    [ "\$c" = R ] && break
done
stty sane
grep -E '^VmHWM' "/proc/\$PPID/status" >"$dir/osc-hwm"
CHILD
"$tern" --headless --dump-screen "$dir/osc-screen" -- sh "$dir/osc.sh" </dev/null >/dev/null
osc_peak=$(awk '{ print int($2 / 1024) }' "$dir/osc-hwm")
if grep -q 'after the OSC' "$dir/osc-screen"; then osc_after=yes; else osc_after=NO; fi
echo "1. ${osc_mb} MB split-ESC OSC: tern peak RSS ${osc_peak} MB; the line after it on screen: $osc_after"

# 2. ESC[c from a program that never reads.
queries=$((da_mb * 1024 * 1024 / 3 / 1024 * 1024))
cat >"$dir/da.sh" <<CHILD
stty raw -echo
echo \$\$ >"$dir/da-pid"
awk 'BEGIN { s = "\033[c"; for (i = 0; i < 10; i++) s = s s; for (n = 0; n < $queries / 1024; n++) printf "%s", s }'
printf 'all printed\r\n'
touch "$dir/da-printed"
# Time for the reader to take the last replies.
sleep 3
CHILD
"$tern" --headless --dump-screen "$dir/da-screen" -- sh "$dir/da.sh" </dev/null >/dev/null &
tern_pid=$!
until [ -s "$dir/da-pid" ]; do sleep 0.05; done
child=$(cat "$dir/da-pid")
sleep "$hold"
blocked_rss=$(rss "$tern_pid")
blocked_hwm=$(hwm "$tern_pid")
if [ -e "$dir/da-printed" ]; then blocked=NO; else blocked=yes; fi
# Drain the replies through the program's terminal (it never reads them itself).
cat "/proc/$child/fd/0" >"$dir/replies" &
reader=$!
until [ -e "$dir/da-printed" ]; do sleep 0.1; done
sleep 2.5 # the last replies (the program exits after 3 s)
peak=$(hwm "$tern_pid")
# The reader holds the terminal open: tern sees its end only once the reader is gone.
kill "$reader" 2>/dev/null || true
wait "$tern_pid" || true
got=$(wc -c <"$dir/replies")
kinds=$(fold -w 16 "$dir/replies" | sort -u | tr -d '\033' | tr '\n' ' ')
if grep -q 'all printed' "$dir/da-screen"; then printed=yes; else printed=NO; fi
echo "2. ${da_mb} MB of ESC[c ($queries queries), the program blocked after ${hold} s: $blocked; tern RSS then ${blocked_rss} MB (peak so far ${blocked_hwm} MB); peak over the run ${peak} MB"
echo "   replies read: $got bytes of $((queries * 16)) expected, all of them [$kinds]; the last line on screen: $printed"
