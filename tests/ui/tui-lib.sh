# tests/ui/tui-lib.sh: shared by the tmux-driven tests of the interactive
# interface (sourced, not run).  Each test gets a private tmux server
# (-L gptop-test-PID, no config) whose one pane runs a plain shell; the
# test types commands into it, polls the screen for text with a timeout
# instead of sleeping, and prints TAP.  The server is killed on exit.
#
# Environment: GPTOP (the binary), top_srcdir; TUI_TIMEOUT (seconds a
# wait may take, default 20: sanitizer builds are slow).

TUI_TIMEOUT=${TUI_TIMEOUT:-20}
TUI_SOCK=gptop-test-$$
TUI_N=0
TUI_FAILED=0

if ! command -v tmux >/dev/null 2>&1; then
	echo "1..0 # SKIP tmux not found"
	exit 0
fi
: "${GPTOP:?GPTOP must name the gptop binary}"
: "${top_srcdir:?top_srcdir must be set}"
GRAPHS=$top_srcdir/data/graphs
TUI_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gptop-tui.XXXXXX")

tui_cleanup() {
	tmux -L "$TUI_SOCK" kill-server >/dev/null 2>&1
	# a server that exited with its last session leaves its socket
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$TUI_SOCK"
	rm -rf "$TUI_TMP"
}
trap tui_cleanup EXIT
trap 'exit 1' INT TERM HUP

# tmux on the private server.
tx() {
	tmux -L "$TUI_SOCK" "$@"
}

# Start the server with a shell in a COLSxROWS pane; LC is the pane's
# locale.
tui_shell() {
	cols=${1:-120} rows=${2:-40} lc=${3:-C.UTF-8}
	tx -f /dev/null new-session -d -s t -x "$cols" -y "$rows" \
	    "env LC_ALL=$lc ENV=/dev/null PS1='tsh\$ ' /bin/sh -i" || return 1
	tx set-option -t t status off >/dev/null
	tui_wait 'tsh\$'
}

# Run gptop in the pane with ARGS; its pid goes to $TUI_TMP/pid, and
# "gptop-exit=STATUS" is printed when it ends.
tui_run() {
	run="sh -c 'echo \$\$ > $TUI_TMP/pid; exec \"$GPTOP\" $*'"
	tx send-keys -t t -l "clear; $run; echo gptop-exit=\$?"
	tx send-keys -t t Enter
}

tui_pid() {
	cat "$TUI_TMP/pid" 2>/dev/null
}

# The screen as text.
tui_screen() {
	tx capture-pane -p -t t
}

# Wait until the screen matches the extended regex RE.
tui_wait() {
	re=$1 tries=$(( ${2:-$TUI_TIMEOUT} * 10 ))
	while [ "$tries" -gt 0 ]; do
		if tui_screen | grep -Eq -- "$re"; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# Wait until the screen does not match RE.
tui_wait_gone() {
	re=$1 tries=$(( ${2:-$TUI_TIMEOUT} * 10 ))
	while [ "$tries" -gt 0 ]; do
		if ! tui_screen | grep -Eq -- "$re"; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# Whether the screen matches every extended regex given, now.
tui_has() {
	scr=$(tui_screen)
	for re in "$@"; do
		printf '%s\n' "$scr" | grep -Eq -- "$re" || return 1
	done
	return 0
}

# Wait until the screen matches every extended regex given at once: a
# screen of several lines may be caught half drawn when the machine is
# busy, so a first line seen says nothing yet of the ones below it.
tui_wait_all() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		if tui_has "$@"; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# Wait until the first row under the header matching HRE matches RE.
tui_wait_first() {
	hre=$1 re=$2 tries=$(( ${3:-$TUI_TIMEOUT} * 10 ))
	while [ "$tries" -gt 0 ]; do
		if tui_first_row "$hre" | grep -Eq -- "$re"; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# The screen line (0-based) matching RE, and the column of TEXT in it.
tui_line_of() {
	tui_screen | awk -v re="$1" '$0 ~ re { print NR - 1; exit }'
}
tui_col_of() {
	tui_screen | sed 's/▼/v/g; s/▲/^/g' | awk -v re="$1" -v t="$2" \
	    '$0 ~ re { print index($0, t) - 1; exit }'
}

# A left click at screen column X, line Y (an xterm X10 mouse report, as
# ncurses expects it for TERM=screen).
tui_click() {
	tx send-keys -t t -H 1b 5b 4d 20 "$(printf '%x' $(($1 + 33)))" \
	    "$(printf '%x' $(($2 + 33)))"
	tx send-keys -t t -H 1b 5b 4d 23 "$(printf '%x' $(($1 + 33)))" \
	    "$(printf '%x' $(($2 + 33)))"
}

# Send keys (tmux key names: Enter, Escape, F6, C-c ...).
tui_keys() {
	tx send-keys -t t "$@"
}

# The first data row of the table under the header line matching RE.
tui_first_row() {
	tui_screen | awk -v re="$1" 'found { print; exit } $0 ~ re { found = 1 }'
}

# The number after "calls " in the header.
tui_calls() {
	tui_screen | sed -n 's/^calls \([0-9][0-9]*\).*/\1/p' | head -n 1
}

# TAP: check DESCRIPTION COMMAND...
check() {
	desc=$1
	shift
	TUI_N=$((TUI_N + 1))
	if "$@"; then
		echo "ok $TUI_N - $desc"
	else
		echo "not ok $TUI_N - $desc"
		TUI_FAILED=1
		tui_screen 2>/dev/null | sed 's/^/# | /'
	fi
}

# gptop ended with STATUS and no sanitizer spoke.
tui_exited() {
	tui_wait "^gptop-exit=[0-9]+" || return 1
	tui_has "^gptop-exit=$1\$" || return 1
	! tui_has 'Sanitizer|runtime error:'
}

# The terminal is back to normal: the shell prompt shows and stty reports
# canonical mode and echo.
tui_terminal_restored() {
	tui_wait 'tsh\$ *$' || return 1
	tx send-keys -t t -l "stty -a | tr ' ;' '\\n\\n' |"
	tx send-keys -t t -l " grep -Ex -- '-?(icanon|echo)' | tr '\\n' ' '; echo END"
	tx send-keys -t t Enter
	tui_wait '^icanon echo END|^echo icanon END' || return 1
}

tui_done() {
	exit "$TUI_FAILED"
}
