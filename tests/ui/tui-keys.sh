#!/bin/sh
# tui-keys.sh: the interface as a person meets it on an 80x24 terminal
# under NO_COLOR: the function bar's items read apart; the help's first
# page shows the essential keys; no "calls/s 0.0" while running; Left and
# Right scroll the name column so two Gemm rows can be told apart, and v
# shows a row's whole name; in details, Down selects an input and Enter
# opens the apply that made it; Space pauses in the Rewrites view too and
# t switches the selected rewriter; after R while paused the header's
# figures keep their lines and no peak is shown for no call; the Diff view
# follows the function F8 picks.
. "$top_srcdir/tests/ui/tui-lib.sh"

FBAR='^F1Help F3Search F4Filter F5Pause F6SortBy F7Invert F8Func F9Rerun F10Quit *$'

# The number of the screen line matching RE (empty: none).
line_no() {
	tui_screen | awk -v re="$1" '$0 ~ re { print NR; exit }'
}
first_frame_rate() {
	tui_wait 'running' && ! tui_has 'calls/s 0\.0'
}
# Two Gemm rows, told apart once scrolled: their first inputs W1, W2.
gemm_rows_cut() {
	tui_wait '[0-9] Gemm\{inplace\}\[\(0, *$' || tui_wait \
	    '[0-9] Gemm\{inplace\}\[\(0,'
}
gemm_rows_apart() {
	tui_wait 'Apply name \[\+16\]' && tui_wait '[0-9] , 0\)\]\(W1,' &&
	    tui_wait '[0-9] , 0\)\]\(W2,'
}
full_name() {
	tui_wait 'Full name \(any key closes\)' &&
	    tui_wait '^  Gemm\{inplace\}\[\(0, 0\)\]\(W2, [^)]*\) *$'
}
producer_details() {
	tui_wait '> Details > D' &&
	    tui_wait '^Apply [0-9]+ of function train: MatMul\{bias\}'
}
same_lines() {
	[ -n "$1" ] && [ -n "$2" ] && [ "$(line_no 'thunks')" = "$1" ] &&
	    [ "$(line_no 'measured peak')" = "$2" ]
}

echo "1..17"
tui_shell 80 24
tx send-keys -t t -l "export NO_COLOR=1"
tx send-keys -t t Enter
tui_run "$GRAPHS/mlp.json"
check "the first frame shows no 'calls/s 0.0' while running" first_frame_rate
check "NO_COLOR, 80 columns: the function bar's items read apart" \
    tui_wait "$FBAR"
tui_keys '?'
help_page() {
	tui_wait_all 'Essential keys' 'Enter +drill down' \
	    'Left Right +scroll the names' 'r F9 +recompile' 'w +write a capture'
}
check "help: the first page at 80x24 lists the essential keys" help_page
tui_keys Escape 3 '\' G e m m Enter
check "80 columns: the Gemm rows' names are cut alike" gemm_rows_cut
tui_keys Right Right
check "Right scrolls the names: the Gemm rows differ (W1, W2)" \
    gemm_rows_apart
tui_keys Left Left
check "Left scrolls back" tui_wait 'Apply name *$'
tui_keys Escape '\' '(' W 2 , Enter v
check "v shows the selected row's whole name" full_name
tui_keys x
check "any key closes it" tui_wait_gone 'Full name'
tui_keys Escape '\' S o f t m a x '(' Enter Enter Down Enter
check "details: Down selects an input, Enter opens the apply making it" \
    producer_details
tui_keys Escape Escape Escape 5 Space
check "Space pauses in the Rewrites view too" tui_wait 'paused *$'
tui_keys t
check "t switches the selected rewriter" \
    tui_wait ': (on|off) in the edited flags'
tui_wait 'thunks' >/dev/null
lt=$(line_no 'thunks') lp=$(line_no 'measured peak')
tui_keys R
check "R while paused: the counts go" tui_wait '^calls 0 '
check "... and the figures keep their lines" same_lines "$lt" "$lp"
check "... and no peak is claimed for no call" \
    tui_wait 'measured peak +-( |$)'
tui_keys q
check "q quits" tui_exited 0

tui_run -d 2 "$GRAPHS/logreg.json"
tui_wait 'running' >/dev/null
tui_keys f r
tui_wait 'Diff of' >/dev/null
tui_keys F8
check "F8 in the Diff view: the diff of train" \
    tui_wait 'Diff of ops of train.*paired by name'
tui_keys F8
check "F8 again: predict's ops only (five, none added)" \
    tui_wait 'Diff of ops of predict.*\| 5 rows'
tui_keys q
tui_wait 'gptop-exit' >/dev/null
tui_done
