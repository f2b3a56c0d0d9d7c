#!/bin/sh
# tui-table.sh: the table keys: sorting (I, >, F6, a click on a header and
# a second click), filtering, incremental search, Enter drilling down from
# a Class row (its ops) to an Op row (its applies) to an Apply row
# (details), Esc back step by step, lazy order.
. "$top_srcdir/tests/ui/tui-lib.sh"

HDR='Apply name'
details_of_exp() {
	# all at once, polled: a screen read half drawn lacks the last lines
	tui_wait_all 'Apply details' 'Elemwise\{exp\}' 'Histogram' \
	    'Inputs' 'Outputs' 'median'
}
# The %time column of the rows shown is sorted: "desc" or "asc".
pct_sorted_now() {
	tui_screen | awk -v hdr="$HDR" -v dir="$1" '
	    f && /^ *[0-9.]+%/ { v = $1 + 0; n++
		if (n > 1 && ((dir == "desc" && v > prev) ||
		    (dir == "asc" && v < prev))) bad = 1
		prev = v; next }
	    f { exit }
	    $0 ~ hdr { f = 1 }
	    END { exit !(n >= 10 && !bad) }'
}
pct_sorted() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		pct_sorted_now "$1" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}
back_and_lazy() {
	tui_wait 'Class name' && tui_wait 'lazy order'
}

echo "1..18"
tui_shell 120 40
# ten applies of very different costs: fusion off
tui_run -d 2 --flags optimizer_excluding=fusion "$GRAPHS/chain.json"
tui_wait 'Elemwise' >/dev/null
tui_keys 3
check "the Apply view lists the ten applies" \
    tui_wait '10 rows \| sorted by %time'
check "sorted by time, the slowest first" pct_sorted desc
tui_keys I
tui_wait 'sorted by %time(\^|▲)' >/dev/null
check "I inverts the order" pct_sorted asc
tui_keys I '>'
check "> moves the sort to the next column" tui_wait 'sorted by sum%'
tui_keys F6
check "F6 moves it again" tui_wait 'sorted by share'
y=$(tui_line_of "$HDR")
x=$(tui_col_of "$HDR" ' id ')
tui_click $((x + 2)) "$y"
check "a click on the id header sorts by id" tui_wait 'sorted by id(\^|▲)'
check "... ascending: apply 0 first" \
    tui_wait_first "$HDR" 'Elemwise\{mul\}\(x,'
tui_click $((x + 2)) "$y"
check "a second click inverts it" tui_wait 'sorted by id(v|▼)'
tui_keys '\' t a n h Enter
check "\\ filters the rows by name" tui_wait '1 row of 10.*filter "tanh"'
tui_keys Escape
check "Esc clears the filter" tui_wait '10 rows \| sorted'
# the details show the first call's histogram: wait for one (slow under
# TSan on a loaded machine)
tui_wait '^calls [1-9]' >/dev/null
tui_keys / e x p Enter Enter
check "/ finds a row and Enter opens its details" details_of_exp
tui_keys Escape 1
tui_wait 'Class name' >/dev/null
tui_keys Enter
check "Enter on a Class row lists its ops" \
    tui_wait 'Ops of class Elemwise \(Esc: back\).* 9 rows'
tui_keys Enter
check "Enter on an Op row lists its applies" \
    tui_wait 'Applies of op Elemwise\{'
tui_keys Enter
check "Enter on an Apply row opens its details" \
    tui_wait '> Ops > Apply > Details'
tui_keys Escape Escape Escape L
check "Esc goes back; L turns lazy order on" back_and_lazy
tui_wait 'F10Quit' >/dev/null	# not a message in its place
tui_click 2 39
check "a click on F1Help in the function-key bar opens help" \
    tui_wait 'Essential keys'
tui_keys Escape
y=$(tui_line_of ' 1 Class  2 Ops')
x=$(tui_col_of ' 1 Class  2 Ops' '2 Ops')
tui_click "$x" "$y"
check "a click on a tab switches view" tui_wait 'Op name'
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
