#!/bin/bash
# Three themes side by side (Catppuccin Mocha, Gruvbox Light, Tokyo Night) in Xvfb:
# theme1..3.png in $OUT.
T=$(realpath "${TERN:-target/debug/tern}")
D=${OUT:-/tmp/tern-theme-screens}; rm -rf $D; mkdir -p $D/xdg; chmod 700 $D/xdg
export DISPLAY=:78 XDG_RUNTIME_DIR=$D/xdg TERN_CONFIG=$D/none.ron
Xvfb :78 -screen 0 900x400x24 -nolisten tcp >/dev/null 2>&1 & XV=$!
sleep 1
cat > $D/show.sh <<'EOS'
printf '\033[1mtern\033[0m with a theme: '; echo "$1"
for i in 0 1 2 3 4 5 6 7; do printf "\033[4${i}m  \033[0m"; done; echo
for i in 0 1 2 3 4 5 6 7; do printf "\033[10${i}m  \033[0m"; done; echo
printf '\033[31merror\033[0m \033[32mok\033[0m \033[33mwarn\033[0m \033[34minfo\033[0m \033[35mnote\033[0m \033[36mhint\033[0m\n'
git --no-pager log --oneline --color=always -3 | cut -c1-90
sleep 30
EOS
i=0
for th in "Catppuccin Mocha" "Gruvbox Light" "Tokyo Night"; do
  i=$((i+1))
  $T --cols 80 --rows 8 -o "theme.name=$th" -e sh $D/show.sh "$th" 2>$D/err$i & TP=$!
  sleep 4
  import -window root -crop 720x200+0+0 $D/theme$i.png
  kill $TP; sleep 0.5
done
kill $XV
cat $D/err*
