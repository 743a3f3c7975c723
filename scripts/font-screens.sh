#!/bin/bash
# Fonts in Xvfb: Fira Code with ligatures on and off, the cursor splitting a ligature,
# bold / italic / bold italic faces (the family's, and named ones), padding with
# line_height and cell_width: fonts1..5.png and all of them in fonts.png in $OUT.
# Needs fonts-firacode.
T=$(realpath "${TERN:-target/debug/tern}")
D=${OUT:-/tmp/tern-font-screens}; rm -rf $D; mkdir -p $D/xdg; chmod 700 $D/xdg
export DISPLAY=:79 XDG_RUNTIME_DIR=$D/xdg TERN_CONFIG=$D/none.ron
Xvfb :79 -screen 0 900x400x24 -nolisten tcp >/dev/null 2>&1 & XV=$!
sleep 1
cat > $D/show.sh <<'EOS'
echo "$1"
echo 'a -> b => c != d === e !== f <= g >= h <!-- i --> j :: k |> l <$> m'
echo 'if (x != null && y >= 0 || z == 1) { return a->b; } // www 0xFF ..= ...'
printf '\033[1mbold -> != \033[0m \033[3mitalic -> != \033[0m \033[1;3mbold italic -> !=\033[0m\n'
printf 'the cursor on the > of ->\033[D'
sleep 30
EOS
shot() {
  i=$1; shift
  $T --cols 80 --rows 6 "$@" -e sh $D/show.sh "${*}" 2>$D/err$i & TP=$!
  sleep 5
  import -window root -crop 760x150+0+0 $D/fonts$i.png
  kill $TP; sleep 0.5
}
shot 1 -o 'font.family=Fira Code'
shot 2 -o 'font.family=Fira Code' -o font.ligatures=false
shot 3 -o 'font.family=Fira Code' -o 'font.features=["ss02", "-liga"]'
shot 4 -o padding=12 -o font.line_height=1.3 -o font.cell_width=1.1
shot 5 -o 'font.family=Fira Code' -o 'font.italic=/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Oblique.ttf' \
  -o 'font.bold_italic=/usr/share/fonts/truetype/dejavu/DejaVuSansMono-BoldOblique.ttf'
# All in one picture, for docs/screenshots/fonts.png.
convert $D/fonts1.png $D/fonts2.png $D/fonts3.png $D/fonts4.png $D/fonts5.png -append $D/fonts.png
kill $XV
cat $D/err*
