#!/bin/sh
printf '16 colours:  '; for i in 0 1 2 3 4 5 6 7; do printf "\033[4${i}m  \033[0m"; done; printf '  '; for i in 0 1 2 3 4 5 6 7; do printf "\033[10${i}m  \033[0m"; done; printf '\n'
printf 'foreground:  '; for i in 0 1 2 3 4 5 6 7; do printf "\033[3${i}mAa\033[0m"; done; printf '  '; for i in 0 1 2 3 4 5 6 7; do printf "\033[9${i}mAa\033[0m"; done; printf '\n'
printf '256 colours:\n'
i=16; while [ $i -lt 256 ]; do printf "\033[48;5;${i}m \033[0m"; i=$((i+1)); if [ $(( (i-16) % 72 )) -eq 0 ]; then printf '\n'; fi; done; printf '\n'
printf 'truecolor:   '; i=0; while [ $i -lt 72 ]; do r=$((i*255/71)); g=$((255-i*255/71)); printf "\033[48;2;${r};${g};128m \033[0m"; i=$((i+1)); done; printf '\n'
printf '\033[1mbold\033[0m \033[2mdim\033[0m \033[3mitalic\033[0m \033[4munderline\033[0m \033[4:3mcurly\033[0m \033[21mdouble\033[0m \033[7minverse\033[0m \033[9mstrike\033[0m \033[58;5;196;4:3mred curl\033[0m\n'
printf 'box: ┌─┬─┐ │ │ │ ├─┼─┤ └─┴─┘  blocks: █▇▆▅▄▃▂▁ ▀▄▌▐ ░▒▓  wide: 日本語 😀 🚀  e\314\201 combining\n'
printf '┌──────────────────┐\n│ tern colour test │\n└──────────────────┘\n'
