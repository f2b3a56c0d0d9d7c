#!/bin/sh
# tui-capture.sh: `gptop CAPTURE` opens the interface on a saved capture
# without running anything; `gptop A B` opens the Diff view with A as the
# baseline (two captures, or a capture and a graph run live); and after a
# recompile in a live run the Diff view pairs applies by structure and
# groups the rewritten ones by source nodes (provenance); Enter expands a
# group row to its members.
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

# the members of an expanded group row (Diff view, applies): 10 rows of A
# (each of chain.json's nodes unfused, its source #0..#9) and 1 of B (the
# Composite doing the work of all ten), under the group row
members_shown() {
	scr=$(tui_screen)
	[ "$(printf '%s\n' "$scr" | grep -c '^in A .*  A: Elemwise.*  <- #[0-9]$')" \
	    -eq 10 ] &&
	[ "$(printf '%s\n' "$scr" | grep -c '^in B .*  B: Elemwise{Composite{')" \
	    -eq 1 ] &&
	[ "$(tui_line_of '^[-+~?] .*Elemwise\{Composite')" -lt \
	    "$(tui_line_of '^in A ')" ]
}
poll() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

echo "1..21"
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
check "... the Composite against the 10 applies it fused: one group row" \
    tui_wait_all '^[-+~?] .*Elemwise\{Composite' '1 paired, 0 added, 0 removed'
tui_keys Enter
check "Enter expands the group row: its 10 applies of A and 1 of B under it" \
    poll members_shown
tui_keys Enter
check "Enter again folds it" tui_wait_gone '^in A '
tui_keys q
check "q quits cleanly" tui_exited 0

tui_terminal_restored >/dev/null
tui_run -d 2 "$GRAPHS/logreg.json"
tui_wait '^calls [1-9]' >/dev/null
tui_keys f r
check "f and r in a live run open the Diff view" tui_wait 'Diff of ops'
tui_keys d
check "... the applies are paired by structure, the rewritten ones grouped by source nodes" \
    tui_wait_all '[1-9][0-9]* paired, 0 added, 0 removed' \
    '[0-9]+ applies \(A: Elemwise\{Composite'
tui_keys q
check "q quits cleanly" tui_exited 0

tui_terminal_restored >/dev/null
tui_run -d 2 "$nofuse" "$GRAPHS/chain.json"
check "a capture and a graph: the graph runs live against it" \
    diff_opened
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
