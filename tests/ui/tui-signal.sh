#!/bin/sh
# tui-signal.sh: SIGTERM, Ctrl-C (SIGINT) and SIGHUP while running end the
# interface cleanly: the terminal is restored and the exit status is 128 +
# the signal.
. "$top_srcdir/tests/ui/tui-lib.sh"

status_is() {
	tui_wait "^gptop-exit=$1"
}
running() {
	tui_wait '^100\.0%.*Elemwise'
}

echo "1..7"
tui_shell 100 30
tui_run -d 2 "$GRAPHS/chain.json"
check "runs" running
kill -TERM "$(tui_pid)"
check "SIGTERM restores the terminal" tui_terminal_restored
check "... and exits with 143" status_is 143
tui_run -d 2 "$GRAPHS/add3.json"
running >/dev/null
tui_keys C-c
check "Ctrl-C restores the terminal" tui_terminal_restored
check "... and exits with 130" status_is 130
tui_run -d 2 "$GRAPHS/add3.json"
running >/dev/null
kill -HUP "$(tui_pid)"
check "SIGHUP restores the terminal" tui_terminal_restored
check "... and exits with 129" status_is 129
tui_done
