#!/bin/bash
# The agents issue's "done when", walked through the binary a user installs (default:
# target/release/tern) in Xvfb with a fresh HOME per shell: bash, zsh and fish read the
# user's startup files and send marks (`tern msg list` shows last_command.exit_code 1
# after `false`); `tern msg new-tab -- claude` comes back as `claude --continue` after
# SIGTERM and a plain start. Prints one line per check and exits non-zero on a failure.
set -u
T=$(realpath "${TERN:-target/release/tern}")
[ -x "$T" ] || { echo "no binary at $T (cargo build --release -p tern)"; exit 2; }
D=${OUT:-/tmp/tern-agents-check}; rm -rf "$D"; mkdir -p "$D"
DISPLAY_N=${DISPLAY_N:-79}
export DISPLAY=:$DISPLAY_N
Xvfb :$DISPLAY_N -screen 0 1280x720x24 -nolisten tcp >/dev/null 2>&1 & XV=$!
trap 'kill $XV 2>/dev/null' EXIT
sleep 1
fail=0
wait_sock() { for _ in $(seq 150); do [ -S "$1" ] && return 0; sleep 0.2; done; return 1; }

for sh in bash zsh fish; do
  H=$D/$sh/home; X=$D/$sh/xdg; mkdir -p "$H/.local/bin" "$H/.config/fish" "$X"; chmod 700 "$X"
  printf '#!/bin/sh\necho probe-ran\n' > "$H/.local/bin/probe"; chmod +x "$H/.local/bin/probe"
  printf 'export FROM_LOGIN=yes\n[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n' > "$H/.profile"
  printf 'export FROM_RC=yes\nPATH="$HOME/.local/bin:$PATH"\n' > "$H/.bashrc"
  printf 'export FROM_LOGIN=yes\n' > "$H/.zprofile"
  printf 'export FROM_RC=yes\npath=("$HOME/.local/bin" $path)\n' > "$H/.zshrc"
  printf 'status is-login; and set -gx FROM_LOGIN yes\nset -gx FROM_RC yes\nset -gx PATH $HOME/.local/bin $PATH\n' > "$H/.config/fish/config.fish"
  ( cd "$H" && exec env -i DISPLAY=$DISPLAY HOME="$H" SHELL=/usr/bin/$sh PATH=/usr/bin:/bin \
      XDG_RUNTIME_DIR="$X" TERN_SESSION="$D/$sh/session.ron" "$T" 2>"$D/$sh/stderr" ) & TP=$!
  S=$X/tern/session.sock
  if ! wait_sock "$S"; then echo "FAIL $sh: no socket"; fail=1; kill $TP; continue; fi
  ID=$("$T" msg --socket "$S" list | grep -o '"id": [0-9]*' | head -1 | grep -o '[0-9]*$')
  "$T" msg --socket "$S" send-text --pane "$ID" "echo \"login=\$FROM_LOGIN rc=\$FROM_RC\" > $H/out.txt; probe >> $H/out.txt; false
"
  "$T" msg --socket "$S" wait --pane "$ID" --for done --timeout 30
  code=$("$T" msg --socket "$S" list | tr -d ' \n' | grep -o '"exit_code":[-0-9a-z]*' | head -1)
  got=$(tr '\n' ' ' < "$H/out.txt" 2>/dev/null)
  if [ "$code" = '"exit_code":1' ] && [ "$got" = "login=yes rc=yes probe-ran " ]; then
    echo "ok   $sh: read the user's files ($got) and marks say $code"
  else
    echo "FAIL $sh: out=[$got] $code"; fail=1
  fi
  kill $TP; wait $TP 2>/dev/null
done

# An agent's tab comes back resumed.
A=$D/agent; mkdir -p "$A/bin" "$A/work" "$A/xdg"; chmod 700 "$A/xdg"
printf '#!/bin/sh\necho "args=[$*] cwd=$(pwd)" >> %s/runs.txt\nexec sleep 600\n' "$A" > "$A/bin/claude"
chmod +x "$A/bin/claude"
start() { ( cd "$A" && exec env -i DISPLAY=$DISPLAY HOME="$A" SHELL=/bin/sh PATH="$A/bin:/usr/bin:/bin" \
  XDG_RUNTIME_DIR="$A/xdg" TERN_SESSION="$A/session.ron" "$T" 2>>"$A/stderr" ) & TP=$!; }
start; wait_sock "$A/xdg/tern/session.sock"
"$T" msg --socket "$A/xdg/tern/session.sock" new-tab --cwd "$A/work" -- claude >/dev/null
for _ in $(seq 50); do [ -s "$A/runs.txt" ] && break; sleep 0.2; done
kill $TP; wait $TP 2>/dev/null
start
for _ in $(seq 100); do [ "$(wc -l < "$A/runs.txt")" -ge 2 ] && break; sleep 0.2; done
kill $TP; wait $TP 2>/dev/null
if [ "$(sed -n 2p "$A/runs.txt")" = "args=[--continue] cwd=$A/work" ]; then
  echo "ok   claude came back as: $(sed -n 2p "$A/runs.txt")"
else
  echo "FAIL resume: $(cat "$A/runs.txt")"; fail=1
fi
exit $fail
