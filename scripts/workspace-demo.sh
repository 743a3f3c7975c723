#!/usr/bin/env bash
# The workspace in the real window, under Xvfb (software rendering):
#   1. docs/screenshots/workspace.png: the sidebar with two repositories (one with two
#      worktrees), tabs with badges from hidden panes, a tab split three ways;
#   2. docs/screenshots/quick-switcher.png: Ctrl+Shift+O looking for a pane;
#   3. docs/screenshots/diagnostics-flood.png: the diagnostics panel while 12 panes
#      flood;
#   4. the cost of revealing a parked tab with 100k lines of history (trace
#      `reveal_frame`: tab switch -> the frame showing the pane drawn), printed.
# The layouts come from session files (how tern restores a workspace); each pane's
# shell is a small script that does something depending on its folder.
#   scripts/workspace-demo.sh [OUT_DIR]    (needs xvfb, xdotool, imagemagick, git)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath "${1:-docs/screenshots}")
[ -x target/release/tern ] || cargo build --release -p tern
tern=$(realpath target/release/tern)
work=$(mktemp -d)
export XDG_RUNTIME_DIR=$work/xdg; mkdir -m 700 "$XDG_RUNTIME_DIR"
n=90; while [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ]; do n=$((n+1)); done
Xvfb :$n -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 & xvfb=$!
pid=
trap 'kill $xvfb 2>/dev/null; [ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
export DISPLAY=:$n
until xdotool getmouselocation >/dev/null 2>&1; do sleep 0.05; done

export GIT_AUTHOR_NAME=dev GIT_AUTHOR_EMAIL=dev@example.com
export GIT_COMMITTER_NAME=dev GIT_COMMITTER_EMAIL=dev@example.com
repo() { # repo DIR COMMITS...
  local dir=$1; shift
  mkdir -p "$dir"; git -C "$dir" init -q -b main
  for msg in "$@"; do echo "$msg" >> "$dir/CHANGES"; git -C "$dir" add CHANGES; git -C "$dir" commit -qm "$msg"; done
}
repo "$work/alpha" "first commit" "parser: accept CRLF" "ui: tab badges" "docs: quick switcher"
git -C "$work/alpha" worktree add -q -b login "$work/alpha-login"
mkdir -p "$work/alpha/src" "$work/alpha/docs" "$work/alpha-login/tests"
printf 'fn main() {}\n' > "$work/alpha/src/main.rs"; printf 'wip\n' > "$work/alpha-login/auth.rs"
repo "$work/beta" "init" "add service"
mkdir -p "$work/beta/logs"

# Each pane's shell: a little scene by folder, then an interactive sh.
cat > "$work/demo-shell" <<'EOF'
#!/bin/sh
export PS1='$ '
case "$PWD" in
  */alpha) git log --oneline --graph --decorate ;;
  */alpha/src) ls -la ;;
  */alpha/docs) for t in parse_crlf tab_badges switcher_fuzzy reveal_snapshot; do
                  printf 'test %s ... \033[32mok\033[0m\n' "$t"; done
                printf '\ntest result: \033[32mok\033[0m. 4 passed; 0 failed\n' ;;
  */alpha-login) git status --short; sleep 2; printf 'needs review\a\n' ;;
  */alpha-login/tests) sleep 2; echo 'test login_flow ... FAILED'; printf '\033]133;D;1\007' ;;
  */beta) sleep 2; echo 'deploy finished'; printf '\033]9;beta: deploy finished\007' ;;
  */beta/logs) sleep 2; for i in $(seq 1 40); do echo "GET /health 200 ${i}ms"; done ;;
  */flood-*) while :; do cat "$0" "$0" "$0"; done ;;
  */history) seq 1 100000 ;;
esac
exec sh
EOF
chmod +x "$work/demo-shell"

leaf() { printf 'Leaf((cwd: "%s", last_screen: None))' "$1"; }
start() { # start SESSION_FILE [extra args]
  local session=$1; shift
  rm -f "$work/trace.jsonl"
  SHELL=$work/demo-shell TERN_SESSION=$session TERN_CONFIG=$work/none.ron \
    TERN_TRACE=$work/trace.jsonl "$tern" --cols 150 --rows 45 "$@" >/dev/null 2>"$work/tern.err" &
  pid=$!
  until grep -q first_frame "$work/trace.jsonl" 2>/dev/null; do sleep 0.05; done
  win=$(xdotool search --sync --class tern | tail -n 1)
  xdotool windowfocus --sync "$win"
}
stop() { kill $pid; wait $pid 2>/dev/null || true; pid=; }
shot() { import -window root -crop "$(xdotool getwindowgeometry --shell "$win" | awk -F= '/WIDTH/{w=$2}/HEIGHT/{h=$2}END{print w"x"h"+0+0"}')" "$out/$1"; echo "wrote $out/$1"; }

# 1 and 2: two repositories, badges, splits, the quick switcher.
cat > "$work/workspace.ron" <<EOF
(version: 1, worktrees: [
  (repo: "$work/alpha", path: "$work/alpha", name: "main", active_tab: 0, tabs: [
    (title: None, custom_title: false, focused_pane: 0, layout: Split(dir: Horizontal, ratios: [0.55, 0.45], children: [
      $(leaf "$work/alpha"),
      Split(dir: Vertical, ratios: [0.5, 0.5], children: [$(leaf "$work/alpha/src"), $(leaf "$work/alpha/docs")]),
    ])),
    (title: Some("notes"), custom_title: true, focused_pane: 0, layout: $(leaf "$work/alpha")),
  ]),
  (repo: "$work/alpha", path: "$work/alpha-login", name: "login", active_tab: 0, tabs: [
    (title: None, custom_title: false, focused_pane: 0, layout: $(leaf "$work/alpha-login")),
    (title: None, custom_title: false, focused_pane: 0, layout: $(leaf "$work/alpha-login/tests")),
  ]),
  (repo: "$work/beta", path: "$work/beta", name: "main", active_tab: 0, tabs: [
    (title: None, custom_title: false, focused_pane: 0, layout: $(leaf "$work/beta")),
    (title: None, custom_title: false, focused_pane: 0, layout: $(leaf "$work/beta/logs")),
  ]),
], active_worktree: Some(0), loose_tabs: [], active_loose_tab: 0)
EOF
start "$work/workspace.ron"
sleep 4
shot workspace.png
xdotool key --window "$win" ctrl+shift+o; sleep 0.4
xdotool type --window "$win" "login"; sleep 0.6
shot quick-switcher.png
xdotool key --window "$win" Escape
stop

# 3: twelve flooding panes (four tabs of three), the panel open on the visible tab.
panes=""
for t in 0 1 2 3; do
  a=$(printf '%02d' $((t*3+1))); b=$(printf '%02d' $((t*3+2))); c=$(printf '%02d' $((t*3+3)))
  mkdir -p "$work/flood-$a" "$work/flood-$b" "$work/flood-$c"
  panes="$panes(title: None, custom_title: false, focused_pane: 0, layout: Split(dir: Horizontal, ratios: [0.34, 0.66], children: [$(leaf "$work/flood-$a"), Split(dir: Horizontal, ratios: [0.5, 0.5], children: [$(leaf "$work/flood-$b"), $(leaf "$work/flood-$c")])])),"
done
cat > "$work/flood.ron" <<EOF
(version: 1, worktrees: [(repo: "", path: "$work", name: "flood", active_tab: 0, tabs: [$panes])],
 active_worktree: Some(0), loose_tabs: [], active_loose_tab: 0)
EOF
start "$work/flood.ron"
sleep 2
xdotool key --window "$win" ctrl+shift+g
sleep 5
shot diagnostics-flood.png
stop

# 4: revealing a parked tab whose pane has 100k lines of history.
mkdir -p "$work/history" "$work/plain"
echo '(scrollback_lines: 200000)' > "$work/scrollback.ron"
cat > "$work/reveal.ron" <<EOF
(version: 1, worktrees: [(repo: "", path: "$work", name: "reveal", active_tab: 0, tabs: [
  (title: None, custom_title: false, focused_pane: 0, layout: $(leaf "$work/plain")),
  (title: None, custom_title: false, focused_pane: 0, layout: $(leaf "$work/history")),
])], active_worktree: Some(0), loose_tabs: [], active_loose_tab: 0)
EOF
start "$work/reveal.ron" --config "$work/scrollback.ron"
sleep 6
for i in $(seq 1 ${REVEALS:-20}); do
  xdotool key --window "$win" alt+2; sleep 0.4
  xdotool key --window "$win" alt+1; sleep 0.4
done
stop
grep reveal_frame "$work/trace.jsonl" | grep -v '"scrollback_lines":0' \
  | sed 's/.*"latency_us":\([0-9]*\).*"scrollback_lines":\([0-9]*\).*/\1 \2/' | sort -n > "$work/reveal.txt"
count=$(wc -l < "$work/reveal.txt")
pick() { awk -v q="$1" -v n="$count" 'NR == int((n - 1) * q) + 1 { print $1; exit }' "$work/reveal.txt"; }
echo "reveal of a parked tab with $(awk 'NR==1{print $2}' "$work/reveal.txt") history lines, $count reveals:"
echo "  tab switch -> frame showing it drawn (µs): p50 $(pick 0.5) p95 $(pick 0.95) p99 $(pick 0.99) max $(tail -n 1 "$work/reveal.txt" | cut -d' ' -f1)"
echo "  samples (µs): $(cut -d' ' -f1 "$work/reveal.txt" | tr '\n' ' ')"
