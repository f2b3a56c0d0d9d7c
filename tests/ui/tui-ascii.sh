#!/bin/sh
# tui-ascii.sh: outside a UTF-8 locale every glyph falls back to ASCII
# (sparkline, share bars, sort arrow); NO_COLOR leaves colors out
# (attributes only) while the default uses the terminal's colors.
. "$top_srcdir/tests/ui/tui-lib.sh"

screen_esc() {
	tx capture-pane -p -e -t t
}
ascii_only() {
	! tui_screen | LC_ALL=C grep -q '[^ -~]'
}
has_colors() {
	screen_esc | grep -Eq "$(printf '\033')\\[([0-9;]*;)?(3[0-7]|4[0-7])(;[0-9;]*)?m"
}
no_colors() {
	! has_colors && screen_esc | grep -q "$(printf '\033')\\["
}

echo "1..7"
tui_shell 120 40 C
tui_run -d 2 "$GRAPHS/add3.json"
check "in the C locale: a sparkline of ASCII levels" \
    tui_wait 'recent [_.:=+*#-]{8,}'
check "... share bars of '|' and a 'v' sort arrow" \
    tui_wait_all '^%timev ' '^100\.0% +100\.0% \|{8} '
check "... and nothing but ASCII on the screen" ascii_only
check "colors by default" has_colors
tui_keys q
tui_terminal_restored >/dev/null
tx send-keys -t t -l "export NO_COLOR=1"
tx send-keys -t t Enter
tui_run -d 2 "$GRAPHS/add3.json"
tui_wait 'recent' >/dev/null
check "NO_COLOR: no colors, attributes only" no_colors
tui_keys q
check "q restores the terminal" tui_terminal_restored
check "... exit status 0, no sanitizer report" tui_exited 0
tui_done
