#!/bin/sh
# tui-rewrite.sh: switching a rewriter and pressing r recompiles and opens
# the Diff view (baseline -> new); d changes the diff level; a failed
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
failed() {
	tui_wait 'recompile failed: .*required' ||
	    tui_wait 'Last recompile failed: .*required'
}

echo "1..12"
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
