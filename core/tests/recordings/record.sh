#!/usr/bin/env bash
# record.sh - (re)record the terminal conformance fixtures in this folder.
#
# Each program is run inside a private tmux server (socket "tern-rec") whose
# only pane is exactly 80x24 (status line off), TERM=xterm-256color,
# LANG=C.UTF-8, with a bare /bin/dash shell (PS1='$ ') started under `env -i`.
# `tmux pipe-pane -O` copies the raw bytes the program writes to the pty
# (what a real terminal would receive) into NAME.bin.
#
# Sequence for every recording:
#   1. run `clear` (not recorded), type `clear; CMD` (the echo of the typed
#      text is NOT recorded),
#   2. start pipe-pane, press Enter  -> recording begins with "\r\n" (tty echo
#      of Enter) followed by clear's "\e[H\e[2J\e[3J", then the program output,
#   3. drive the program with `tmux send-keys`,
#   4. after it exits and the shell prints its "$ " prompt, stop the pipe.
# So every NAME.bin is self-contained: replaying it into a fresh 80x24
# terminal is meaningful (the clear puts the cursor at the top-left of a blank
# screen before the program's first byte).
#
# Beside NAME.bin:
#   NAME.tmux.txt          tmux's own rendering (capture-pane -p) of the final
#                          screen, after the program exited.
#   NAME.prequit.tmux.txt  (full-screen programs only) tmux's rendering just
#                          before the quit key was sent.
#
# Usage: ./record.sh [NAME...]    (default: all)
# Needs: tmux vim less htop man-db manpages dialog git (Debian: apt-get install -y ...)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE}
WORK=${WORK:-/tmp/tern-rec}
SOCK=tern-rec
PATHV=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

T() { tmux -L "$SOCK" "$@"; }
keys() { T send-keys -t rec "$@"; }          # named keys (Enter, Escape, Down, ...)
lit() { T send-keys -t rec -l -- "$1"; }      # literal text
pause() { sleep "$1"; }

# ---------------------------------------------------------------- workspace
setup_work() {
  rm -rf "$WORK"; mkdir -p "$WORK/home"
  cd "$WORK"

  cat > tmux.conf <<'CONF'
set -g status off
set -g default-terminal xterm-256color
set -g default-size 80x24
set -g history-limit 5000
set -g escape-time 0
CONF

  cat > shell.sh <<SH
#!/bin/sh
cd "$WORK"
exec env -i HOME="$WORK/home" PATH="$PATHV" LANG=C.UTF-8 TERM=xterm-256color \
  LESSHISTFILE=- PS1='\$ ' /bin/dash
SH
  chmod +x shell.sh

  # vim: small config with syntax highlighting, short key-code timeout
  cat > vimrc <<'VRC'
set nocompatible
syntax on
set ruler
set ttimeout ttimeoutlen=50
VRC

  cat > sample.rs <<'RS'
// sample.rs - a small file for the vim recording
use std::collections::HashMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Ident(String),
    Op(char),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "{}", n),
            Token::Ident(s) => write!(f, "{}", s),
            Token::Op(c) => write!(f, "{}", c),
        }
    }
}

/// Split the input into tokens.
pub fn tokenize(input: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = input.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_digit() {
            let mut s = String::new();
            while let Some(&d) = chars.peek() {
                if !d.is_ascii_digit() && d != '.' { break; }
                s.push(d);
                chars.next();
            }
            out.push(Token::Number(s.parse().unwrap_or(0.0)));
        } else if c.is_alphabetic() {
            out.push(Token::Ident(c.to_string()));
            chars.next();
        } else { out.push(Token::Op(c)); chars.next(); }
    }
    out
}

fn main() {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for t in tokenize("x = 3.14 * (y + 42)") {
        *counts.entry(format!("{:?}", t)).or_insert(0) += 1;
        println!("token: {}", t);
    }
}
RS

  # less: 200 numbered lines, "needle" on a few of them
  i=1
  while [ $i -le 200 ]; do
    case $i in
      75|130|181) printf 'line %03d: here is the needle you are looking for\n' $i ;;
      *) printf 'line %03d: the quick brown fox jumps over the lazy dog\n' $i ;;
    esac
    i=$((i+1))
  done > numbers.txt

  # htop: a recognisable process name to filter on
  ln -s "$(command -v sleep)" worker

  # progress bars
  cat > progress.sh <<'SH'
i=0
while [ $i -le 100 ]; do
  n=$((i / 5)); bar=''; pad=''; j=0
  while [ $j -lt 20 ]; do
    if [ $j -lt $n ]; then bar="$bar#"; else pad="$pad "; fi
    j=$((j+1))
  done
  printf '\r[%s%s] %3d%%\033[K' "$bar" "$pad" $i
  sleep 0.02
  i=$((i+2))
done
printf '\n'
echo done
SH

  cat > progress-color.sh <<'SH'
i=0
while [ $i -le 100 ]; do
  n=$((i / 5)); bar=''; pad=''; j=0
  while [ $j -lt 20 ]; do
    if [ $j -lt $n ]; then bar="$bar#"; else pad="$pad-"; fi
    j=$((j+1))
  done
  if [ $i -lt 100 ]; then st='\033[38;5;208m'; else st='\033[1;38;2;0;200;80m'; fi
  printf "\r\033[1mBuilding\033[0m [\033[32m%s\033[0m\033[2m%s\033[0m] ${st}%3d%%\033[0m\033[K" "$bar" "$pad" $i
  sleep 0.02
  i=$((i+2))
done
printf '\n'
printf '\033[42;30m DONE \033[0m finished\n'
SH

  # CJK / emoji / combining marks at the right margin (80 columns)
  cat > cjk-margin.sh <<'SH'
R=12345678901234567890123456789012345678901234567890123456789012345678901234567890
a() { printf '%.*s' "$1" "$R"; }   # first N columns of the ruler
printf 'cjk-margin: wide chars, emoji, combining marks at column 79/80\n'
a 80; printf '\n'                       # exactly 80 cols, then newline
a 78; printf '你好\n'                   # 你 at 79-80, 好 wraps
a 79; printf '世界\n'                   # 世 cannot fit in col 80 -> wraps
a 76; printf '日本語\n'                 # 日 77-78, 本 79-80, 語 wraps
a 77; printf '日本語\n'                 # 日 78-79, 本 wraps
a 78; printf '\360\237\230\200\360\237\232\200\n'   # 😀 at 79-80, 🚀 wraps
a 79; printf '\360\237\230\200\360\237\232\200\n'   # 😀 wraps
a 80; printf 'more text after exactly 80 columns\n' # pending wrap, then text
a 79; printf 'e\314\201xyz\n'           # e+U+0301 at col 80, xyz wraps
a 80; printf '\314\201|\n'              # U+0301 right after col 80 (pending wrap)
printf 'combining: e\314\201 cafe\314\201 n\314\203 a\314\210\314\204 wide+mark: 你\314\201|\n'
printf 'mixed: 你好世界 日本語 \360\237\230\200 \360\237\232\200 end\n'
SH

  make_git_repo
}

make_git_repo() {
  local r="$WORK/repo" n=0
  rm -rf "$r"; mkdir -p "$r"
  (
    cd "$r"
    export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
    export GIT_AUTHOR_NAME="Ada Lovelace" GIT_AUTHOR_EMAIL=ada@example.com
    export GIT_COMMITTER_NAME="Ada Lovelace" GIT_COMMITTER_EMAIL=ada@example.com
    g() { git -c init.defaultBranch=main -c commit.gpgsign=false "$@"; }
    tick() { n=$((n+1)); export GIT_AUTHOR_DATE="$((1700000000 + n*3600)) +0000" GIT_COMMITTER_DATE="$((1700000000 + n*3600)) +0000"; }
    c() { tick; echo "$1" >> "${2:-log.txt}"; g add -A; g commit -q -m "$1"; }
    m() { tick; g merge -q --no-ff -m "$2" "$1"; }
    g init -q
    c "Initial commit" README
    c "Add parser skeleton" parser.txt
    c "Add lexer" lexer.txt
    g checkout -q -b feature/colors
    c "Parse SGR colors" colors.txt
    c "Support 256-color palette" colors.txt
    g checkout -q main
    c "Fix typo in README" README
    g checkout -q -b feature/wide
    c "Add wcwidth table" wide.txt
    g checkout -q main
    m feature/colors "Merge branch 'feature/colors'"
    g checkout -q feature/wide
    c "Handle wide chars at margin" wide.txt
    c "Handle combining marks" wide.txt
    g checkout -q main
    c "Bump version to 0.2" version.txt
    g tag v0.2
    m feature/wide "Merge branch 'feature/wide'"
    g checkout -q -b fix/scroll
    c "Fix scroll region off-by-one" scroll.txt
    g checkout -q main
    g checkout -q -b feature/alt-screen
    c "Alt screen: save cursor" alt.txt
    g checkout -q fix/scroll
    c "Add scroll region tests" scroll.txt
    g checkout -q feature/alt-screen
    c "Alt screen: 1049 mode" alt.txt
    g checkout -q main
    m fix/scroll "Merge branch 'fix/scroll'"
    c "Update changelog" CHANGES
    g checkout -q feature/alt-screen
    m main "Merge branch 'main' into feature/alt-screen"
    c "Alt screen: clear on enter" alt.txt
    g checkout -q main
    m feature/alt-screen "Merge branch 'feature/alt-screen'"
    g tag v0.3
    g checkout -q -b feature/mouse
    c "Mouse: X10 mode" mouse.txt
    c "Mouse: SGR 1006 encoding" mouse.txt
    g checkout -q main
    g checkout -q -b feature/osc
    c "OSC 0/2 window title" osc.txt
    c "OSC 8 hyperlinks" osc.txt
    g checkout -q main
    c "Refactor grid storage" grid.txt
    m feature/osc "Merge branch 'feature/osc'"
    c "Speed up line wrapping" grid.txt
    g checkout -q -b wip/sixel
    c "WIP: sixel decoder" sixel.txt
    g checkout -q main
    c "Document escape sequence support" DOCS
    c "Release 0.4" version.txt
    g tag v0.4
  )
}

# ---------------------------------------------------------------- tmux
start_tmux() {
  T kill-server 2>/dev/null || true
  env -i PATH="$PATHV" HOME="$WORK/home" LANG=C.UTF-8 \
    tmux -L "$SOCK" -f "$WORK/tmux.conf" new-session -d -s rec -x 80 -y 24 "$WORK/shell.sh"
  pause 1
  # sanity checks: pane size as seen by programs, TERM
  lit "clear; stty size > $WORK/stty-size.txt; echo \$TERM > $WORK/term.txt; tput cols >> $WORK/stty-size.txt; tput lines >> $WORK/stty-size.txt"
  keys Enter; pause 1
  echo "pane: $(T display -p -t rec '#{pane_width}x#{pane_height}'), stty size/tput cols/lines: $(tr '\n' ' ' < "$WORK/stty-size.txt"), TERM=$(cat "$WORK/term.txt")" >&2
}

stop_tmux() { T kill-server 2>/dev/null || true; }

# begin NAME CMD: type "clear; CMD", start piping, press Enter
begin() {
  local name=$1 cmd=$2
  CUR=$name
  lit "clear"; keys Enter; pause 0.7
  lit "clear; $cmd"; pause 0.5
  rm -f "$OUT/$name.bin" "$OUT/$name.tmux.txt" "$OUT/$name.prequit.tmux.txt"
  T pipe-pane -O -t rec "cat >> '$OUT/$name.bin'"
  pause 0.5
  keys Enter
}

prequit() { T capture-pane -p -t rec > "$OUT/$CUR.prequit.tmux.txt"; }

# finish: wait for the prompt, snapshot the screen, stop piping
finish() {
  pause "${1:-1}"
  T capture-pane -p -t rec > "$OUT/$CUR.tmux.txt"
  T pipe-pane -t rec          # no command: close the pipe
  pause 0.5
  printf '%-16s %7d bytes\n' "$CUR.bin" "$(stat -c %s "$OUT/$CUR.bin")" >&2
}

# ---------------------------------------------------------------- recordings
rec_vim() {
  begin vim "vim -N -u vimrc -i NONE -n sample.rs"
  pause 2
  for k in j j j j j; do keys "$k"; pause 0.15; done
  for k in w w w; do keys "$k"; pause 0.15; done
  keys G; pause 0.4          # jump to end: scrolls
  keys g g; pause 0.4        # back to top
  keys 2 3 G; pause 0.4      # line 23
  keys C-d; pause 0.4        # half page down
  keys o; pause 0.3          # open line below, insert mode
  for w in "    let answer " "= 42; " "// typed " "in insert mode"; do lit "$w"; pause 0.2; done
  keys Escape; pause 0.5
  prequit
  lit ":q!"; pause 0.3; keys Enter
  finish 1
}

rec_less() {
  begin less "less numbers.txt"
  pause 1
  keys Space; pause 0.5
  keys Space; pause 0.5
  lit "/needle"; pause 0.3; keys Enter; pause 0.7
  prequit
  keys q
  finish 1
}

rec_htop() {
  # Only show a few "worker" processes (a symlink to sleep(1)) started for the
  # purpose, so the process list doesn't depend on / expose whatever else runs
  # on the host. The meters (CPU, memory, uptime, tasks) are still live.
  begin htop "sh -c 'for i in 1 2 3 4 5 6; do ./worker 30 & done; exec htop -F worker'"
  pause 2.5
  prequit
  keys q
  finish 1
}

rec_git_log_graph() {
  begin git-log-graph "git --no-pager -C repo -c color.ui=always log --graph --oneline --all --decorate"
  finish 1.5
}

rec_git_log_less() {
  begin git-log-less "git -C repo -c color.ui=always log --graph --oneline --all --decorate | less -R"
  pause 1
  keys Space; pause 0.7
  prequit
  keys q
  finish 1
}

rec_man() {
  begin man "MANPAGER=less man ls"
  pause 3
  keys Space; pause 0.7
  prequit
  keys q
  finish 1
}

rec_dialog() {
  begin dialog "dialog --checklist 'Choose toppings:' 15 50 6 1 Cheese on 2 Tomato off 3 Basil off 4 Olives off 5 Mushrooms off"
  pause 1.5
  keys Down; pause 0.4
  keys Down; pause 0.4
  prequit
  keys Escape
  finish 2
}

rec_progress()       { begin progress "sh progress.sh"; finish 3; }
rec_progress_color() { begin progress-color "sh progress-color.sh"; finish 3; }
rec_cjk_margin()     { begin cjk-margin "sh cjk-margin.sh"; finish 1.5; }

ALL="vim less htop git-log-graph git-log-less man dialog progress progress-color cjk-margin"

main() {
  local names=${*:-$ALL}
  setup_work
  trap stop_tmux EXIT
  start_tmux
  for n in $names; do
    "rec_${n//-/_}"
  done
}

main "$@"
