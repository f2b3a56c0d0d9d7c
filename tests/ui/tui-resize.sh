#!/bin/sh
# tui-resize.sh: a resize relays the screen out at once; below 80x24 a
# short message replaces the screen; back above, the views return.
. "$top_srcdir/tests/ui/tui-lib.sh"

fits() {
	# every line of the screen fits the new width, and the bottom line
	# is the function-key bar
	tui_wait 'F10Quit' || return 1
	widest=$(tui_screen | awk '{ if (length($0) > m) m = length($0) }
	    END { print m + 0 }')
	[ "$widest" -le "$1" ]
}
bar_on_line() {
	# poll: the resize reaches the program a moment after tmux applies it
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		if tui_has 'F10Quit' &&
		    [ "$(tui_line_of 'F10Quit')" = "$1" ]; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

views_back() {
	tui_wait 'Class name' && bar_on_line 29
}

echo "1..7"
tui_shell 120 40 C
tui_run -d 2 "$GRAPHS/chain.json"
check "starts at 120x40, bar on the last line" bar_on_line 39
tx resize-window -t t -x 80 -y 24
check "shrunk to 80x24: relaid out, bar on line 23" bar_on_line 23
check "... every line fits 80 columns" fits 80
tx resize-window -t t -x 60 -y 20
check "60x20: terminal too small" tui_wait 'terminal too small \(need 80x24\)'
tx resize-window -t t -x 100 -y 30
check "100x30: the views are back" views_back
tui_keys q
check "q quits and restores the terminal" tui_terminal_restored
check "... exit status 0, no sanitizer report" tui_exited 0
tui_done
