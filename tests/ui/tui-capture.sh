#!/bin/sh
# tui-capture.sh: `gptop CAPTURE` opens the interface on a saved capture
# without running anything; `gptop A B` opens the Diff view with A as the
# baseline (two captures, or a capture and a graph run live); and after a
# recompile in a live run the Diff view pairs applies by structure.
. "$top_srcdir/tests/ui/tui-lib.sh"

a=$TUI_TMP/a.json
nofuse=$TUI_TMP/chain-nofusion.json
fuse=$TUI_TMP/chain.json

added_removed() {
	tui_wait_all '^added ' '^removed '
}
diff_opened() {
	tui_wait 'Diff of ops' && added_removed
}

echo "1..18"
"$GPTOP" --batch -n 3 --save "$a" "$GRAPHS/add3.json" >/dev/null &&
"$GPTOP" --batch -n 3 --flags optimizer_excluding=fusion \
    --save "$nofuse" "$GRAPHS/chain.json" >/dev/null &&
"$GPTOP" --batch -n 3 --save "$fuse" "$GRAPHS/chain.json" >/dev/null
check "the captures are written" test -s "$a" -a -s "$nofuse" -a -s "$fuse"

tui_shell 120 40
tui_run -d 2 "$a"
check "a capture opens in the interface, nothing running" \
    tui_wait 'gptop +graph add3.*capture$'
check "... its Class table shows the capture's data" \
    tui_wait '^100\.0%.*Elemwise'
check "... with its 3 calls" tui_wait '^calls 3 '
tui_keys p
check "p: a capture is not running" tui_wait 'a capture is not running'
tui_keys f r
check "r: a capture is not running" tui_wait 'a capture is not running'
tui_keys 6
check "the Diff view has no baseline" tui_wait 'No baseline yet'
tui_keys q
check "q quits cleanly" tui_exited 0

tui_terminal_restored >/dev/null
tui_run -d 2 "$nofuse" "$fuse"
check "two captures open the Diff view" tui_wait 'Diff of ops'
check "... A (fusion off) is the baseline" \
    tui_wait 'A baseline: optimizer_excluding=fusion.*B current: \(default'
check "... with the fused op added and the unfused ones removed" \
    added_removed
tui_keys d
check "d compares applies, paired by structure" \
    tui_wait 'Diff of applies.*paired by structure'
tui_keys q
check "q quits cleanly" tui_exited 0

tui_terminal_restored >/dev/null
tui_run -d 2 "$GRAPHS/logreg.json"
tui_wait '^calls [1-9]' >/dev/null
tui_keys f r
check "f and r in a live run open the Diff view" tui_wait 'Diff of ops'
tui_keys d
check "... the applies are paired by structure, the rewritten ones" \
    tui_wait '[1-9][0-9]* paired, [1-9][0-9]* added, [1-9][0-9]* removed'
tui_keys q
check "q quits cleanly" tui_exited 0

tui_terminal_restored >/dev/null
tui_run -d 2 "$nofuse" "$GRAPHS/chain.json"
check "a capture and a graph: the graph runs live against it" \
    diff_opened
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
