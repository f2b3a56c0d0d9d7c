#!/bin/sh
# tui-runtime.sh: the runtime keys: p pauses (the call counter stops) and
# resumes, R resets the statistics (tested while paused, so that the
# counter cannot run past its old value between two looks at the screen),
# w writes a capture, F says the graph has one function.
. "$top_srcdir/tests/ui/tui-lib.sh"

calls_grow_past() {
	n=$1 tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		c=$(tui_calls)
		if [ -n "$c" ] && [ "$c" -gt "$n" ]; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}
calls_drop_below() {
	n=$1 tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		c=$(tui_calls)
		if [ -n "$c" ] && [ "$c" -lt "$n" ]; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}
counter_stopped() {
	# the last published counts may still arrive: wait until the counter
	# holds still for a second (ten refreshes), then for two more
	tries=$TUI_TIMEOUT
	while [ "$tries" -gt 0 ]; do
		a=$(tui_calls)
		sleep 1
		b=$(tui_calls)
		if [ -n "$a" ] && [ "$a" = "$b" ]; then
			sleep 2
			[ "$(tui_calls)" = "$a" ]
			return
		fi
		tries=$((tries - 1))
	done
	return 1
}

written() {
	tui_wait 'capture written to' &&
	    grep -q '"format": *"gptop-capture/' "$TUI_TMP/cap.json"
}

echo "1..12"
tui_shell 120 40
tui_run -d 1 "$GRAPHS/add3.json"
check "the call counter runs" calls_grow_past 1000
tui_keys p
check "p pauses the runtime" tui_wait 'paused *$'
check "... and the call counter stops" counter_stopped
n=$(tui_calls)
tui_keys p
check "p again resumes it" calls_grow_past "$n"
calls_grow_past $((n + 100000)) >/dev/null
tui_keys p
check "p pauses it again" counter_stopped
n=$(tui_calls)
tui_keys R
check "R resets the statistics" calls_drop_below "$n"
check "... to no calls, while paused" tui_wait '^calls 0 '
tui_keys p
check "... and the runtime counts again" calls_grow_past 0
tui_keys w
check "w asks where to write a capture" \
    tui_wait 'Write capture to: gptop-add3-[0-9]{8}-[0-9]{6}\.json'
tui_keys C-u
tx send-keys -t t -l "$TUI_TMP/cap.json"
tui_keys Enter
check "... and writes it there" written
tui_keys F
check "F with one function says so" tui_wait 'the graph has one function'
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
