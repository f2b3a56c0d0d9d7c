#!/bin/sh
# tui-signal.sh: SIGTERM, Ctrl-C (SIGINT) and SIGHUP while running end the
# interface cleanly: the terminal is restored (main screen, cursor, no
# keypad or mouse mode, canonical mode and echo) and the exit status is
# 128 + the signal.  Ctrl-C and SIGTERM during a batch run started from
# the terminal with --save: the capture of the rounds done is written and
# the status is 128 + the signal.  (Not under ThreadSanitizer, which
# holds a signal back until the thread makes an intercepted call, and the
# batch loop makes none.)
. "$top_srcdir/tests/ui/tui-lib.sh"
. "$top_srcdir/tests/robust/robust-lib.sh"

status_is() {
	tui_wait "^gptop-exit=$1"
}
running() {
	tui_wait '^100\.0%.*Elemwise' && term_modes_held
}
# The batch run's report line is on screen (after the ^C the terminal
# echoed); its rounds go to $rounds.
batch_done() {
	tui_wait '^(\^C)?gptop: [0-9]+ rounds of' || return 1
	rounds=$(tui_screen |
	    sed -n 's/^.*gptop: \([0-9]*\) rounds of.*/\1/p')
	[ -n "$rounds" ] && [ "$rounds" -gt 0 ]
}
capture_has_rounds() {
	"$GPTOP" --check "$1" 2>&1 | grep -q "^  1 function, $rounds calls," &&
	    grep -q "Time in $rounds calls to" "$2"
}
# Wait until the run in the pane has used 0.3 s of CPU.
batch_running() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		t=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' \
		    "/proc/$(tui_pid)/stat" 2>/dev/null)
		[ -n "$t" ] && [ "$t" -ge 30 ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

echo "1..17"
tui_shell 100 30
tui_run -d 2 "$GRAPHS/chain.json"
check "runs, holding the terminal" running
kill -TERM "$(tui_pid)"
check "SIGTERM restores the terminal" term_modes_restored
check "... and exits with 143" status_is 143
tui_run -d 2 "$GRAPHS/add3.json"
running >/dev/null
tui_keys C-c
check "Ctrl-C restores the terminal" term_modes_restored
check "... and exits with 130" status_is 130
tui_run -d 2 "$GRAPHS/add3.json"
running >/dev/null
kill -HUP "$(tui_pid)"
check "SIGHUP restores the terminal" term_modes_restored
check "... and exits with 129" status_is 129

# --save makes it a batch run, even on a terminal
if ldd "$GPTOP" 2>/dev/null | grep -q libtsan; then
	for i in 1 2 3 4 5 6 7 8 9 10; do
		TUI_N=$((TUI_N + 1))
		echo "ok $TUI_N # SKIP TSan defers signals in a batch run"
	done
	tui_done
fi
for c in "Ctrl-C 130" "SIGTERM 143"; do
	set -- $c
	rm -f "$TUI_TMP/pid"
	tui_run -n 1000000000 --save "$TUI_TMP/cap-$2.json" \
	    --flags "profiling__destination=$TUI_TMP/report-$2" \
	    "$GRAPHS/add3.json"
	check "$1 in a batch run with --save: it runs" batch_running
	if [ "$1" = Ctrl-C ]; then
		tui_keys C-c
	else
		kill -TERM "$(tui_pid)"
	fi
	check "... the report of the rounds done" batch_done
	check "... exits with $2" status_is "$2"
	check "... the terminal is as it was" term_modes_restored
	check "... the capture and the report have those rounds" \
	    capture_has_rounds "$TUI_TMP/cap-$2.json" "$TUI_TMP/report-$2"
	tui_keys -l clear
	tui_keys Enter
	tui_wait_gone '^gptop-exit='
done
tui_done
