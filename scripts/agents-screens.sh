#!/bin/bash
# Screenshots of why panes wait: three tabs opened by `tern msg` (a question with 40%
# progress, failed progress at 70%, a notification), the sidebar, a tab tooltip and the
# quick switcher, in Xvfb. Writes sidebar.png, tooltip.png and switcher.png to $OUT.
set -u
T=$(realpath "${TERN:-target/debug/tern}")
D=${OUT:-/tmp/tern-agents-screens}; rm -rf $D; mkdir -p $D/xdg $D/a $D/b $D/c; chmod 700 $D/xdg
export DISPLAY=:77 XDG_RUNTIME_DIR=$D/xdg TERN_SESSION=$D/session.ron TERN_CONFIG=$D/none.ron SHELL=/bin/bash HOME=$D
Xvfb :77 -screen 0 1280x720x24 -nolisten tcp >/dev/null 2>&1 & XV=$!
sleep 1
(cd $D; $T --cols 110 --rows 30 2>$D/err) & TP=$!
for i in $(seq 50); do [ -S $D/xdg/tern/session.sock ] && break; sleep 0.2; done
S=$D/xdg/tern/session.sock
$T msg --socket $S new-tab --cwd $D/a --title agent-a -- sh -c "printf '\033]9;4;1;40\007'; printf 'Bash command: rm -rf target\r\nDo you want to proceed? [y/N] '; read x; sleep 600"
$T msg --socket $S new-tab --cwd $D/b --title build -- sh -c "printf '\033]9;4;2;70\007'; echo building; sleep 600"
$T msg --socket $S new-tab --cwd $D/c --title notes -- sh -c "sleep 1; printf '\033]9;Claude needs your permission to use Bash\007'; sleep 600"
sleep 4
W=$(xdotool search --sync --onlyvisible --class tern | tail -1)
xdotool windowfocus --sync $W
xdotool key --window $W ctrl+shift+b
sleep 1.5
import -window root $D/sidebar.png
xdotool mousemove 365 13; sleep 2; import -window root $D/tooltip.png; xdotool mousemove 600 400
xdotool key --window $W ctrl+shift+o
sleep 1.5
import -window root $D/switcher.png
xdotool key --window $W Escape
sleep 0.5
kill $TP; sleep 1; kill $XV
