# tests/robust/robust-lib.sh: shared by the tmux-driven robustness tests
# (sourced after tests/ui/tui-lib.sh).  What tmux knows of the pane's
# terminal modes tells whether a program left it as it found it.

# The pane's modes: alternate screen, cursor shown, keypad (application)
# mode, mouse reporting, e.g. "alt=0 cursor=1 keypad=0 mouse=0".
term_modes() {
	tx display -p -t t 'alt=#{alternate_on} cursor=#{cursor_flag} keypad=#{keypad_flag} mouse=#{mouse_any_flag}'
}

# The pane is back to normal: main screen, cursor on, keypad and mouse
# reporting off, and (tui_terminal_restored) the prompt back with icanon
# and echo set.
term_modes_restored() {
	tui_terminal_restored || return 1
	[ "$(term_modes)" = "alt=0 cursor=1 keypad=0 mouse=0" ] || {
		echo "# modes: $(term_modes)"
		return 1
	}
}

# The interface holds the pane: alternate screen, cursor hidden, mouse on.
term_modes_held() {
	case $(term_modes) in
	"alt=1 cursor=0 "*" mouse=1") return 0 ;;
	esac
	echo "# modes: $(term_modes)"
	return 1
}

# Wait until the screen, with wrapped lines joined, matches the extended
# regex RE.
tui_wait_joined() {
	re=$1 tries=$(( ${2:-$TUI_TIMEOUT} * 10 ))
	while [ "$tries" -gt 0 ]; do
		if tx capture-pane -p -J -t t | grep -Eq -- "$re"; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}
