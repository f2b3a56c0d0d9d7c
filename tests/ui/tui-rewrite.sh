#!/bin/sh
# tui-rewrite.sh: switching a rewriter and pressing r recompiles and opens
# the Diff view (baseline -> new), the old program kept and run in turn
# with the new one (its rounds grow); d changes the diff level; a failed
# recompile shows its error and the old program keeps running.
. "$top_srcdir/tests/ui/tui-lib.sh"

diff_rows() {
	tui_wait 'removed' && tui_wait 'added'
}
diff_header() {
	tui_wait 'A baseline: \(default flags\).*B current: optimizer_excluding=fusion'
}
back_to_default() {
	tui_wait 'A baseline: optimizer_excluding=fusion.*B current: \(default flags\)'
}
# The rounds A and B ran in turn, from the Diff view's second line.
ab_rounds() {
	tui_screen | sed -n 's/.*A and B run in turn, \([0-9][0-9]*\) rounds each.*/\1/p' |
	    head -n 1
}
both_run() {
	tui_wait 'A and B run in turn, [0-9]+ rounds each' || return 1
	r1=$(ab_rounds)
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		sleep 0.1
		r2=$(ab_rounds)
		[ -n "$r2" ] && [ "$r2" -gt "$r1" ] && return 0
		tries=$((tries - 1))
	done
	return 1
}
failed() {
	tui_wait 'recompile failed: .*required' ||
	    tui_wait 'Last recompile failed: .*required'
}

echo "1..13"
tui_shell 120 40
tui_run -d 2 "$GRAPHS/chain.json"
tui_wait '^100\.0%.*Elemwise' >/dev/null
tui_keys f
check "f switches fusion off in the edited flags" \
    tui_wait 'fusion: off in the edited flags'
tui_keys 5
check "the Rewrites view shows the pending change" \
    tui_wait 'Edited: optimizer_excluding=fusion'
tui_keys r
check "r recompiles and opens the Diff view" tui_wait 'Diff of ops'
check "... baseline (default flags) -> new (fusion off)" diff_header
check "... with the fused op removed and the unfused ones added" diff_rows
check "... the baseline program still running, in turn with the new one" \
    both_run
tui_keys d
check "d compares applies" tui_wait 'Diff of applies'
tui_keys d
check "d again compares classes" tui_wait 'Diff of classes'
tui_keys f r
check "f and r again: the new baseline is the fusion-off program" \
    back_to_default
tui_keys q
check "q quits cleanly" tui_exited 0
# a recompile the flags forbid
tui_terminal_restored >/dev/null
tui_run -d 2 --flags optimizer_requiring=fusion "$GRAPHS/chain.json"
tui_wait '^100\.0%.*Elemwise' >/dev/null
tui_keys f r
check "a failed recompile shows the runtime's error" failed
tui_keys 5
check "... the Rewrites view keeps it, the program runs on" \
    tui_wait 'Last recompile failed'
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
