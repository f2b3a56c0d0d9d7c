#!/bin/sh
# tui-timeline.sh: the Timeline view (8): one call drawn along time.  On
# mlp.json in the C locale (bars of '#', counted): a lane per apply in
# schedule order, the three offenders labelled (1) (2) (3) with times in
# descending order, bar lengths ordered like those times (within the one
# cell a bar's rounding may add) and close to time / span x the axis,
# bars that follow each other along time, the memory line under them,
# nothing but ASCII; Enter opens the selected lane's apply (the first
# offender's at first, then Home, End, Down); M the median call.  On
# chain.json: the one fused apply takes the whole call, f r (fusion off)
# gives its ten applies; colors by default, none with NO_COLOR; a
# capture draws the last call it stored, one saved by an earlier gptop
# (tests/capture/v2.capture.json) says it holds no timeline.
. "$top_srcdir/tests/ui/tui-lib.sh"

# The lanes: the lines between the axis and the memory line.
lanes() {
	tui_screen | awk '/apply \\ time/ { on = 1; next }
	    /^Live bytes/ { on = 0 } on && /^ *[0-9]+ /'
}
# "id length first-column rank" of each lane (C locale: bars are '#';
# the bar area starts at column 31 on 120 columns).
bars() {
	lanes | awk '{
		s = substr($0, 32); n = gsub(/#/, "#", s)
		x = index(s, "#") - 1; r = 0
		if (match(s, /\([1-3]\) /)) r = substr(s, RSTART + 1, 1)
		print $1, n, x, r }'
}
# "1.5 ms" as ns.
to_ns() {
	awk '{ m = 1; if ($2 == "s") m = 1e9; if ($2 == "ms") m = 1e6
	    if ($2 == "us") m = 1e3; printf "%.0f\n", $1 * m }'
}
# The time in ns of the label "(K) TIME" on the screen.
label_ns() {
	tui_screen | sed -n "s/.*($1) \\([0-9.]*\\)\\([mun]*s\\) .*/\\1 \\2/p" |
	    to_ns
}
span_ns() {
	tui_screen | sed -n 's/.*, applies \([0-9.]*\)\([mun]*s\), .*/\1 \2/p' |
	    to_ns
}
lane_ids_are() {
	[ "$(lanes | awk '{ printf "%s ", $1 }')" = "$1" ]
}
one_label_each() {
	for k in 1 2 3; do
		[ "$(bars | awk -v k=$k '$4 == k' | wc -l)" -eq 1 ] || return 1
	done
}
times_descend() {
	t1=$(label_ns 1) t2=$(label_ns 2) t3=$(label_ns 3)
	echo "# offender times: $t1 $t2 $t3 ns"
	[ -n "$t1" ] && [ "$t1" -ge "$t2" ] && [ "$t2" -ge "$t3" ]
}
# a longer time never gets a bar shorter by more than one cell
bars_order_like_times() {
	bars | awk '$4 > 0 { len[$4] = $2 } $4 == 0 && $2 > other { other = $2 }
	    END { printf "# bar lengths: (1) %d (2) %d (3) %d, others at most %d\n",
	        len[1], len[2], len[3], other
	        exit !(len[1] >= len[2] - 1 && len[2] >= len[3] - 1 &&
	        len[3] >= other - 1 && len[1] > 0) }'
}
# each offender's bar is its time's share of the 88-cell axis, +-2 cells
bars_scaled() {
	span=$(span_ns)
	for k in 1 2 3; do
		t=$(label_ns $k)
		len=$(bars | awk -v k=$k '$4 == k { print $2 }')
		awk -v t="$t" -v s="$span" -v l="$len" -v k=$k 'BEGIN {
		    e = t / s * 88; printf "# (%d): %d cells for %.1f\n", k, l, e
		    exit !(l >= e - 2 && l <= e + 2) }' || return 1
	done
}
# lane i + 1 starts no earlier than lane i
bars_follow() {
	bars | awk 'NR > 1 && $3 < prev { bad = 1 } { prev = $3 }
	    END { exit bad }'
}
ascii_only() {
	! tui_screen | LC_ALL=C grep -q '[^ -~]'
}
screen_esc() {
	tx capture-pane -p -e -t t
}
has_colors() {
	screen_esc | grep -Eq "$(printf '\033')\\[([0-9;]*;)?(3[0-7]|4[0-7])(;[0-9;]*)?m"
}
no_colors() {
	! has_colors && screen_esc | grep -q "$(printf '\033')\\["
}
first_offender() {
	bars | awk '$4 == 1 { print $1 }'
}

echo "1..28"
tui_shell 120 50 C
tui_run -d 2 -n 30 "$GRAPHS/mlp.json"
tui_wait 'done$' >/dev/null
tui_keys 8
check "mlp: 8 opens the Timeline of the last call, its axis and memory line" \
    tui_wait_all '^Last call of train \(timed call 30\): ' \
    'apply \\ time \|0 ' '^ +29 Elemwise' \
    '^Live bytes through the call \(memory profile\): [0-9.]+[KMG]?i?B to '
check "... one lane per apply, in schedule order" lane_ids_are \
    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 "
check "... the three offenders labelled, once each" one_label_each
check "... their times in descending order" times_descend
check "... bar lengths ordered like the times" bars_order_like_times
check "... each offender's bar its share of the axis" bars_scaled
check "... bars follow each other along time" bars_follow
check "... a memory line of ASCII levels under the lanes" \
    tui_wait '^ +[0-9.]+[KMG]?i?B [_.:=+*#-]{40,}'
check "... nothing but ASCII on the screen" ascii_only
off=$(first_offender)
tui_keys Enter
check "Enter: the first offender's details (apply $off)" \
    tui_wait "^Apply $off of function train: "
tui_keys Escape
tui_wait '^Last call of train' >/dev/null
tui_keys End Enter
check "End, Enter: the last apply's details" \
    tui_wait '^Apply 29 of function train: Elemwise'
tui_keys Escape
tui_wait '^Last call of train' >/dev/null
tui_keys Home Down Down Enter
check "Home, Down, Down, Enter: apply 2's details" \
    tui_wait '^Apply 2 of function train: '
name=$(tui_screen | sed -n 's/^Apply 2 of function train: //p')
tui_keys Escape
check "... the name its lane shows" \
    tui_wait "^  2 $(printf '%s' "$name" | cut -c1-20 | sed 's/[][(){}.*+?^$|\\]/\\&/g')"
tui_keys M
check "M: the median call" tui_wait_all '^Median call of train \(timed call [0-9]+\)' \
    '\(1\) [0-9.]+[mun]?s '
tui_keys q
check "q quits, exit status 0, no sanitizer report" tui_exited 0
tx send-keys -t t -l "export LC_ALL=C.UTF-8"
tx send-keys -t t Enter
tui_run -d 2 -n 20 "$GRAPHS/chain.json"
tui_wait 'done$' >/dev/null
tui_keys 8
check "chain: one lane, the fused apply, taking the whole call" \
    tui_wait_all '^Last call of f .*, 1 applies' \
    '^ +0 Elemwise\{Composite.*█+.*\(1\) [0-9.]+[mun]?s (99|100)%' \
    '^Live bytes through the call'
check "... colors by default" has_colors
tui_keys f r
tui_wait_all '^A baseline: ' 'done$' >/dev/null
tui_keys 8
check "f r (fusion off): ten lanes, the offenders labelled" \
    tui_wait_all '^Last call of f .*, 10 applies' '^ +9 Elemwise\{neg\}' \
    '\(1\) [0-9.]+[mun]?s ' '\(2\) ' '\(3\) '
check "... in schedule order" tui_wait_all '^ +0 Elemwise\{mul\}' \
    '^ +2 Elemwise\{tanh\}' '^ +8 Elemwise\{exp\}'
tui_keys q
check "... exit status 0" tui_exited 0

tx send-keys -t t -l "export NO_COLOR=1"
tx send-keys -t t Enter
tui_run -d 2 -n 20 "$GRAPHS/chain.json"
tui_wait 'done$' >/dev/null
tui_keys 8
tui_wait '^Live bytes through the call' >/dev/null
check "NO_COLOR: no colors, attributes only" no_colors
tui_keys q
check "... exit status 0" tui_exited 0

cap=$TUI_TMP/chain-capture.json
"$GPTOP" --batch -n 3 --save "$cap" "$GRAPHS/chain.json" >/dev/null
tui_run -d 2 "$cap"
tui_wait 'capture$' >/dev/null
tui_keys 8
check "a capture: the last call it stored, the fused apply's lane" \
    tui_wait_all '^Last call of f \(timed call 3\): .*, 1 applies' \
    '^ +0 Elemwise\{Composite.*\(1\) [0-9.]+[mun]?s (99|100)%' \
    '^Live bytes through the call'
tui_keys Enter
check "... Enter: its details" tui_wait '^Apply 0 of function f: '
tui_keys q
tui_wait '^Last call of f' >/dev/null
tui_keys q
check "... exit status 0" tui_exited 0
tui_run -d 2 "$top_srcdir/tests/capture/v2.capture.json"
tui_wait 'capture$' >/dev/null
tui_keys 8
check "a capture of an earlier gptop: the view says it holds no timeline" \
    tui_wait 'This capture holds no timeline'
tui_keys Enter
check "... and Enter says there is no call" tui_wait 'no call drawn'
tui_keys q
check "... exit status 0" tui_exited 0
tui_done
