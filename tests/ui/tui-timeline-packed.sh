#!/bin/sh
# tui-timeline-packed.sh: the Timeline's packed layout (P) and its mouse.
# On mlp.json in the C locale (bars of '#'): P packs the lanes, every
# apply's bar is labelled with its number exactly once, fewer lanes than
# applies and at least as many as the most bars one column of the
# one-lane-per-apply layout holds (those cannot share a lane), the
# offenders still labelled once each; the selection is an apply (the
# line under the lanes names it, its lane's name column too): Down, Home,
# End move it, Enter opens its details; on a short window its lane stays
# shown.  Clicks: on a lane of the unpacked layout and on a bar of the
# packed one, a click selects, a double click opens the details.  On
# chain.json: the fused apply alone in one lane; with fusion off the ten
# applies, one after another, pack into few lanes.  A chain of 300 tiny
# applies (bench/gen-graph) packs into more lanes than 80x24 shows,
# whatever their times: the lanes scroll to keep the selection shown
# (End, Home, Up).  A
# capture saved with --save draws the same (its last call, packed); with
# NO_COLOR no colors; in the C locale nothing but ASCII.
. "$top_srcdir/tests/ui/tui-lib.sh"

# The packed lanes: the lines between the axis and the selected line.
plines() {
	tui_screen | awk '/lane \\ time/ { on = 1; next } /^> / { on = 0 }
	    on && NF'
}
# The apply numbers labelled in the bar area (from column 32 on 120
# columns), sorted: bars and offender labels "(K) TIME PCT%" taken out.
pids() {
	plines | cut -c32- | sed -E 's/\([1-3]\)( [0-9.]+[mun]?s [0-9]+%)?/ /g;
	    s/#/ /g' | tr -s ' ' '\n' | grep -E '^[0-9]+$' | sort -n |
	    tr '\n' ' '
}
seq_ids() {
	i=0 s=
	while [ "$i" -lt "$1" ]; do
		s="$s$i "
		i=$((i + 1))
	done
	printf '%s' "$s"
}
every_apply_once() {
	got=$(pids)
	echo "# labels: $got"
	[ "$got" = "$(seq_ids "$1")" ]
}
# "(lane L of K)" of the selected line: K.
n_lanes() {
	tui_screen | sed -n 's/^> [0-9]* (lane [0-9]* of \([0-9]*\).*/\1/p'
}
sel_id() {
	tui_screen | sed -n 's/^> \([0-9]*\) .*/\1/p'
}
# The unpacked layout's lanes, and the most bars any column holds.
ulanes() {
	tui_screen | awk '/apply \\ time/ { on = 1; next }
	    /^Live bytes/ { on = 0 } on && /^ *[0-9]+ /'
}
max_overlap() {
	ulanes | awk '{ s = substr($0, 32)
		for (j = 1; j <= length(s); j++)
			if (substr(s, j, 1) == "#") c[j]++ }
	    END { m = 0; for (j in c) if (c[j] > m) m = c[j]; print m }'
}
packed_lanes_between() {
	k=$(n_lanes) rows=$(plines | wc -l)
	echo "# $k lanes ($rows shown), at least $1, fewer than $2"
	[ -n "$k" ] && [ "$k" -ge "$1" ] && [ "$k" -lt "$2" ] &&
	    [ "$rows" -eq "$k" ]
}
# More lanes than are shown, at least $1, and the line under them says
# "scrolled".
scrolled_lanes() {
	k=$(n_lanes) rows=$(plines | wc -l)
	echo "# $k lanes, $rows shown, at least $1 needed"
	[ -n "$k" ] && [ "$k" -ge "$1" ] && [ "$k" -gt "$rows" ] &&
	    tui_screen | grep -Eq '^> [0-9]+ \(lane [0-9]+ of [0-9]+, scrolled\)'
}
# The first lane shown is (not) lane 0: its row reads "lane 0: ", or
# names apply 0 when it is selected.
top_is_lane0() {
	plines | head -n 1 | grep -Eq '^ *(lane 0: | 0 [A-Z])'
}
not_top_lane0() {
	! top_is_lane0
}
# After End: the selected apply's lane L (from the line under the lanes)
# against the R lane rows shown.  A lane past the rows that fit from lane
# 0 scrolls them (lane 0 no longer first); one within them does not (a
# slow apply late in the call can put the last apply in an early lane: a
# TSan run put apply 299 in lane 3 of 181).
scrolled_to_sel() {
	l=$(tui_screen | sed -n 's/^> [0-9]* (lane \([0-9]*\) of .*/\1/p')
	rows=$(plines | wc -l)
	echo "# selected apply in lane $l, $rows lane rows shown"
	[ -n "$l" ] || return 1
	if [ "$l" -ge "$rows" ]; then
		not_top_lane0
	else
		top_is_lane0
	fi
}
# The lanes a chain of applies 0 to n-1 needs at least on an axis of bw
# cells, whatever their times: each takes at least its label's cells (its
# number; offenders' " (k)" aside) and a cell of gap from the next in its
# lane, so a lane holds at most bw + 1 of those.
min_lanes() {
	awk -v n="$1" -v bw="$2" 'BEGIN { c = 0
		for (i = 0; i < n; i++) c += length(i "") + 1
		print int((c + bw) / (bw + 1)) }'
}
one_label_each() {
	for k in 1 2 3; do
		[ "$(plines | grep -c "($k)")" -eq 1 ] || return 1
	done
}
ascii_only() {
	! tui_screen | LC_ALL=C grep -q '[^ -~]'
}
screen_esc() {
	tx capture-pane -p -e -t t
}
no_colors() {
	! screen_esc | grep -Eq "$(printf '\033')\\[([0-9;]*;)?(3[0-7]|4[0-7])(;[0-9;]*)?m" &&
	    screen_esc | grep -q "$(printf '\033')\\["
}
# The screen line of the apply's unpacked lane, and of the packed lane
# whose label is N (its column then in $lx).
line_of_lane() {
	tui_line_of "^ +$1 "
}
label_at() {
	tui_screen | awk -v id="$1" '/lane \\ time/ { on = 1; next }
	    /^> / { on = 0 }
	    on { s = substr($0, 32); gsub(/#/, " ", s)
		if (match(" " s " ", " " id " ")) {
			print NR - 1, 31 + RSTART; exit } }'
}

echo "1..34"
tui_shell 120 50 C
tui_run -d 2 -n 30 "$GRAPHS/mlp.json"
tui_wait 'done$' >/dev/null
tui_keys 8
tui_wait '^Last call of train' >/dev/null
over=$(max_overlap)
echo "# the most bars in one column, one lane per apply: $over"
tui_keys P
check "mlp: P packs the lanes, the selected apply named under them" \
    tui_wait_all 'lane \\ time \|0 ' '^> [0-9]+ \(lane [0-9]+ of [0-9]+\) .*: [0-9.]+[mun]?s, [0-9]+% of the call, from ' \
    '^Live bytes through the call' 'Timeline: packed'
check "... every apply's bar labelled with its number, once" \
    every_apply_once 30
check "... fewer lanes than applies, no fewer than the overlaps need" \
    packed_lanes_between "$over" 30
check "... the three offenders labelled, once each" one_label_each
check "... nothing but ASCII on the screen" ascii_only
sel=$(sel_id)
check "... the selection kept (apply $sel), its lane names it" \
    tui_wait "^ +$sel [A-Z].*>"
tui_keys Home
check "Home: apply 0 selected" tui_wait '^> 0 '
tui_keys Down
check "Down: apply 1" tui_wait '^> 1 '
tui_keys Enter
check "Enter: apply 1's details" tui_wait '^Apply 1 of function train: '
tui_keys Escape
tui_wait '^> 1 ' >/dev/null
tui_keys End
check "End: apply 29" tui_wait '^> 29 '

# a short window: the selected apply's lane stays shown
tx resize-window -t t -x 80 -y 24
tui_wait '^> 29 \(lane [0-9]+ of [0-9]+' >/dev/null
check "a small window: the selected apply's lane on the screen" \
    tui_wait "^ +29 [A-Z].*>"
tui_keys Home
check "... Home: apply 0's lane shown" tui_wait_all '^> 0 ' "^ +0 [A-Z].*>"
tx resize-window -t t -x 120 -y 50
# the redrawn 120-column screen: its time axis is longer than 80 columns
# allow (the 80x24 screen also has a Live bytes line: a slow build, TSan,
# could be read before its redraw)
tui_wait 'lane \\ time \|0.{75,}' >/dev/null

# clicks, packed: on a bar's label
set -- $(label_at 7)
check "a click on the bar labelled 7 (line ${1:-?}, column ${2:-?}) selects apply 7" \
    sh -c "[ -n '$2' ]"
if [ -n "${2:-}" ]; then
	tui_click "$2" "$1"
	tui_wait '^> 7 ' >/dev/null
	tui_click "$2" "$1"
fi
check "... a double click on it opens its details" \
    tui_wait '^Apply 7 of function train: '
tui_keys Escape
tui_wait '^> 7 ' >/dev/null
# unpacked: on a lane
tui_keys P
tui_wait 'apply \\ time' >/dev/null
y=$(line_of_lane 4)
tui_click 60 "$y"
check "unpacked: a click on apply 4's lane selects it" \
    tui_wait "^ +4 [A-Z].*>"
tui_click 60 "$y"
tui_click 60 "$y"
check "... a double click opens its details" \
    tui_wait '^Apply 4 of function train: '
tui_keys q
tui_wait '^Last call of train' >/dev/null
tui_keys q
check "q quits, exit status 0, no sanitizer report" tui_exited 0

tui_run -d 2 -n 20 "$GRAPHS/chain.json"
tui_wait 'done$' >/dev/null
tui_keys 8 P
check "chain: the fused apply alone, in one lane" \
    tui_wait '^> 0 \(lane 0 of 1\) Elemwise\{Composite'
tui_keys f r
tui_wait_all '^A baseline: ' 'done$' >/dev/null
tui_keys 8
tui_wait '^Last call of f .*, 10 applies' >/dev/null
check "f r (fusion off): the ten applies labelled once each" \
    every_apply_once 10
check "... one after another, in few lanes" packed_lanes_between 1 5
tui_keys q
check "... exit status 0" tui_exited 0

# 300 tiny applies, one after another (fusion off): on 80x24 the packed
# lanes cannot all be shown, whatever the applies' times
"$(dirname "$GPTOP")/bench/gen-graph" -k chain -s 16 300 \
    >"$TUI_TMP/chain300.json"
tx resize-window -t t -x 80 -y 24
tui_run -d 2 -n 20 --flags optimizer=None "$TUI_TMP/chain300.json"
tui_wait 'done$' >/dev/null
tui_keys 8 P
tui_wait '^> [0-9]+ \(lane ' >/dev/null
bw=$(tui_screen | awk '/lane \\ time \|/ { print length($0) - index($0, "|"); exit }')
need=$(min_lanes 300 "${bw:-80}")
tui_keys Home
tui_wait '^> 0 ' >/dev/null
check "chain of 300 on 80x24: more lanes than shown (at least $need on ${bw:-?} cells), the line says scrolled" \
    scrolled_lanes "$need"
check "... Home: apply 0 selected, the lanes shown from lane 0" \
    top_is_lane0
tui_keys End
check "... End: apply 299 selected, its lane shown" \
    tui_wait_all '^> 299 \(lane [0-9]+ of [0-9]+, scrolled\)' '^ *299 [A-Z].*>'
check "... the lanes scrolled as far as its lane needs (lane 0 first only if its lane fits)" \
    scrolled_to_sel
tui_keys Home
check "... Home again: back to lane 0" \
    tui_wait_all '^> 0 \(lane 0 of' '^ +0 [A-Z].*>'
tui_keys q
check "... exit status 0" tui_exited 0
tx resize-window -t t -x 120 -y 50

cap=$TUI_TMP/mlp-capture.json
"$GPTOP" --batch -n 20 --save "$cap" "$GRAPHS/mlp.json" >/dev/null
tui_run -d 2 "$cap"
tui_wait 'capture$' >/dev/null
tui_keys 8 P
check "a capture: its last call, packed" \
    tui_wait_all '^Last call of train \(timed call [0-9]+\)' \
    'lane \\ time' '^> [0-9]+ '
check "... every apply labelled once" every_apply_once 30
tui_keys Home Enter
check "... Home, Enter: apply 0's details" \
    tui_wait '^Apply 0 of function train: '
tui_keys Escape
tui_wait '^> 0 ' >/dev/null
tui_keys M
check "... M: its median call" tui_wait_all \
    '^Median call of train \(timed call [0-9]+\)' '^> 0 '
tui_keys q
check "... exit status 0" tui_exited 0

tx send-keys -t t -l "export LC_ALL=C.UTF-8 NO_COLOR=1"
tx send-keys -t t Enter
tui_run -d 2 -n 20 "$GRAPHS/mlp.json"
tui_wait 'done$' >/dev/null
tui_keys 8 P
tui_wait '^> [0-9]+ ' >/dev/null
check "NO_COLOR, packed: no colors, attributes only" no_colors
tui_keys q
check "... exit status 0" tui_exited 0
tui_done
