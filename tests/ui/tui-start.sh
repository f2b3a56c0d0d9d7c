#!/bin/sh
# tui-start.sh: the interface starts on a graph, shows the header and the
# Class, Ops and Apply tables with data, every view by its number key,
# the help screen, and q restores the terminal.
. "$top_srcdir/tests/ui/tui-lib.sh"

echo "1..13"
tui_shell 120 40
tui_run -d 2 "$GRAPHS/chain.json"
check "starts on the Class view with data" \
    tui_wait '^100\.0%.*Elemwise'
check "the header shows the graph, calls and compile times" \
    tui_wait_all 'graph chain' '^calls [0-9]+' 'compile: load'
tui_keys 2
check "2 shows the Ops view" tui_wait 'Op name'
tui_keys 3
check "3 shows the Apply view with the applies" \
    tui_wait '[0-9]+ rows? \| sorted by'
tui_keys 4
check "4 shows the Memory view" tui_wait 'Measured peak: '
tui_keys 5
check "5 shows the Rewrites view" tui_wait 'Running program flags'
tui_keys 6
check "6 shows the Diff view, with how to make a baseline" \
    tui_wait 'No baseline yet'
tui_keys 7
check "7 shows the global summary" tui_wait 'Function profiling'
tui_keys 8
check "8 shows the Timeline of the last call" \
    tui_wait_all '^Last call of f \(timed call [0-9]+\)' '^ +0 Elemwise'
tui_keys Tab
check "Tab goes round to the Class view" tui_wait 'Class name'
tui_keys '?'
check "? shows the help, its keys from the key table" \
    tui_wait 'F6 > \. < , +sort by another column'
tui_keys q q
check "q leaves help, q quits, and the terminal is restored" \
    tui_terminal_restored
check "... exit status 0, no sanitizer report" tui_exited 0
tui_done
