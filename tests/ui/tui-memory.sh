#!/bin/sh
# tui-memory.sh: the Memory view's live-bytes chart at 80x24 (the peak
# labelled with its bytes and apply, the bytes scale), Enter on the peak's
# row (selected first) listing the buffers live at the peak, Enter there
# the peak apply's details, Esc back; and the chart in ASCII.
. "$top_srcdir/tests/ui/tui-lib.sh"

PEAK='Live bytes, a later call: highest [0-9.]+[KMG]?i?B at apply [0-9]+ \(Enter on its row'
echo "1..7"
tui_shell 80 24
tui_run -d 2 "$GRAPHS/mlp.json"
tui_wait 'Class name' >/dev/null
tui_keys 4
check "4 shows the Memory view with the chart's peak label" \
    tui_wait "$PEAK"
check "the chart has a bytes scale and block bars" \
    tui_wait_all '^ *[0-9.]+[KMG]?i?B │' '[▁▂▃▄▅▆▇█]' \
    'Apply outputs \(c created'
tui_keys Enter
check "Enter on the peak's row lists the buffers live at the peak" \
    tui_wait 'Buffers live at the memory peak'
check "... with a known buffer, its bytes, kind and how it was made" \
    tui_wait_all '^  a1 +[0-9.]+[KMG]?i?B +new +created' '^  x +.*input' \
	'^  W1 +[0-9.]+[KMG]?i?B +shared'
tui_keys Enter
check "Enter there opens the peak apply's details" \
    tui_wait 'Apply details'
tui_keys Escape Escape
check "Esc, Esc: back to the Memory view" tui_wait "$PEAK"
tui_keys q
tui_exited 0 >/dev/null
tui_wait 'tsh\$ *$' >/dev/null
tui_keys -l 'export LC_ALL=C'
tui_keys Enter
tui_run -d 2 "$GRAPHS/mlp.json"
tui_wait 'Class name' >/dev/null
tui_keys 4
check "in ASCII the chart uses ASCII glyphs" \
    tui_wait '^ *[0-9.]+[KMG]?i?B \|[ _.:=+*#-]*#'
tui_keys q
tui_exited 0 >/dev/null
tui_done
