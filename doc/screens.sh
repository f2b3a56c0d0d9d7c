#!/bin/sh
# doc/screens.sh: the terminal screens shown in README.md, doc/guide.md and
# doc/tui.md are real captures of gptop, taken by this script.  It runs the
# guide's walkthrough in a private tmux server (a 120x30 pane, a plain
# shell, C.UTF-8), types its commands and keys, and captures the pane at
# each step.
#
#   doc/screens.sh            write the captures into the documents, in
#                             place, between <!-- screen:NAME --> and
#                             <!-- /screen --> (the lead reruns this when
#                             a screen changes)
#   doc/screens.sh --check    compare each screen of the documents with a
#                             fresh capture and print TAP (the test
#                             tests/doc-guide.sh)
#
# Times, rates, percentages, bars, the sparkline and the Timeline's offender
# labels (which applies rank among the offenders, their ranks, and the cursor
# on the first) differ from run to run:
# the comparison masks them, squeezes blanks, reads the four header lines
# as one (their fields wrap by width), drops a histogram's bins, compares a
# line cut at the right edge up to its last word, and for screens whose
# rows are ordered by time compares the rows as a set.  Every run is bounded by -n
# so counts are exact and the screens are taken once gptop says "done".
#
# Run it from a build directory (cd build && ../doc/screens.sh): it uses
# ./gptop there.  It needs tmux and takes about 20 seconds.
#
# Environment: GPTOP (the binary; default ./gptop, else gptop on PATH),
# top_srcdir (default: the directory above this script), SCREENS_TIMEOUT
# (seconds a step may take, default 60: sanitizer builds are slow).
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(dirname "$here")}"
top_srcdir=$(cd "$top_srcdir" && pwd)
if [ -z "${GPTOP:-}" ]; then
	if [ -x ./gptop ]; then GPTOP=$(pwd)/gptop; else GPTOP=$(command -v gptop); fi
fi
case $GPTOP in /*) ;; *) GPTOP=$(pwd)/$GPTOP ;; esac
TIMEOUT=${SCREENS_TIMEOUT:-60}
COLS=120
ROWS=30
DOCS="README.md doc/guide.md doc/tui.md"

mode='write'
case ${1:-} in
--check) mode=check ;;
'') ;;
*)
	echo "usage: doc/screens.sh [--check]" >&2
	exit 2
	;;
esac

if ! command -v tmux >/dev/null 2>&1; then
	if [ $mode = check ]; then
		echo "1..0 # SKIP tmux not found"
		exit 0
	fi
	echo "screens.sh: tmux not found" >&2
	exit 1
fi
if [ ! -f "$GPTOP" ] || [ ! -x "$GPTOP" ]; then
	echo "screens.sh: no gptop binary (set GPTOP)" >&2
	exit 1
fi

# One tmux server per part of the walkthrough, its socket in $W.
W=$(mktemp -d "${TMPDIR:-/tmp}/gptop-screens.XXXXXX") || exit 1
PART=0
SOCK=$W/tmux-$PART
cleanup() {
	tmux -S "$SOCK" kill-server >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The pane's working directory looks like the source tree to the commands
# typed in it: data/ is a link to the real one, gptop is on PATH.
mkdir "$W/bin" "$W/run" "$W/shots"
ln -s "$GPTOP" "$W/bin/gptop"
ln -s "$top_srcdir/data" "$W/run/data"

tx() {
	tmux -S "$SOCK" "$@"
}

screen() {
	tx capture-pane -p -t s
}

# Whether the screen (or file $2) matches every extended regex of the
# newline-separated list $1.
matches() {
	res=$1
	scr=${2:-}
	[ -n "$scr" ] || scr=$(screen)
	old_ifs=$IFS
	IFS='
'
	for re in $res; do
		if ! printf '%s\n' "$scr" | grep -Eq -- "$re"; then
			IFS=$old_ifs
			return 1
		fi
	done
	IFS=$old_ifs
	return 0
}

wait_for() {
	tries=$((TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		matches "$1" && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

FAILED=0
N=0
STEP_FAIL=

fail_step() {
	if [ $mode = write ]; then
		echo "screens.sh: $1" >&2
		screen >&2
		exit 1
	fi
	N=$((N + 1))
	echo "not ok $N - $1"
	screen | sed 's/^/# | /'
	FAILED=1
	STEP_FAIL=1
}

# The pane: a fresh shell for each part of the walkthrough.
start_shell() {
	tx kill-server >/dev/null 2>&1
	PART=$((PART + 1))
	SOCK=$W/tmux-$PART
	tx -f /dev/null new-session -d -s s -x "$1" -y "$ROWS" -c "$W/run" \
	    "env LC_ALL=C.UTF-8 GPTOP_FLAGS= NO_COLOR= PATH='$W/bin':\"\$PATH\" ENV=/dev/null PS1='\$ ' /bin/sh -i" ||
	    return 1
	tx set-option -t s status off >/dev/null
	STEP_FAIL=
	wait_for '^\$ ?$' || fail_step "the shell did not start"
}

# Type a command line at a cleared screen.
run() {
	[ -z "$STEP_FAIL" ] || return 0
	tx send-keys -t s -l clear
	tx send-keys -t s Enter
	tries=$((TIMEOUT * 10))
	while [ "$(screen | grep -c .)" != 1 ] || ! matches '^\$ ?$'; do
		tries=$((tries - 1))
		if [ $tries -le 0 ]; then
			fail_step "the screen did not clear"
			return 0
		fi
		sleep 0.1
	done
	tx send-keys -t s -l "$1"
	tx send-keys -t s Enter
}

keys() {
	[ -z "$STEP_FAIL" ] || return 0
	tx send-keys -t s "$@"
}

# shot NAME ORDER REGEX...: wait until the screen matches every REGEX,
# then take it as screen NAME.  ORDER is "rows" when the rows' order is
# deterministic, "set" when it depends on times (or on ties the program
# leaves unordered, as among the peak's buffers of equal size).
shot() {
	name=$1 order=$2
	shift 2
	res=$(printf '%s\n' "$@")
	[ -z "$STEP_FAIL" ] || return 0
	if ! wait_for "$res"; then
		fail_step "screen $name appears"
		return 0
	fi
	# Let a refresh in progress finish, then take it.
	sleep 0.3
	screen | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$W/shots/$name"
	if ! matches "$res" "$(cat "$W/shots/$name")"; then
		fail_step "screen $name holds still"
		return 0
	fi
	echo "$order $(tx display-message -p -t s '#{pane_width}')" \
	    >"$W/shots/$name.how"
}

# The walkthrough of doc/guide.md.  The interface's screens wait for the
# function-key bar: a message (after f or r) takes its place for a while.
FBAR='^F1Help'
walkthrough() {
	# 1. The slowest op of the logistic regression.
	start_shell $COLS
	run 'gptop -n 200 data/graphs/logreg.json'
	shot logreg-class set "$FBAR" 'done$' '^calls 400 ' 'sorted by %time'
	keys 2
	shot logreg-ops set "$FBAR" 'done$' '^ops of all functions' 'Gemv'
	keys Enter
	shot logreg-gemv-time set "$FBAR" '^Applies of op Gemv' '3 rows of 22'
	keys '<'
	shot logreg-gemv rows "$FBAR" '^Applies of op Gemv' 'sorted by Apply name'
	keys Home Enter
	shot logreg-details rows "$FBAR" '^Apply details' '^Apply 1 of function predict'
	keys F10
	wait_for '^\$ ?$' || fail_step "gptop quits on F10"

	# 2. The memory of the MLP.
	start_shell $COLS
	run 'gptop -n 20 data/graphs/mlp.json'
	keys 4
	shot mlp-memory rows "$FBAR" 'done$' '^calls 20 ' '^Live bytes, a later call: highest' \
	    'sorted by out bytes'
	keys Enter
	shot mlp-peak set "$FBAR" '^Buffers live' 'done$'
	keys F10
	wait_for '^\$ ?$' || fail_step "gptop quits on F10"

	# 3. Fusion on and off on the chain.
	start_shell $COLS
	run 'gptop -n 30 data/graphs/chain.json'
	keys 3
	shot chain-apply rows "$FBAR" 'done$' '^calls 30 ' '^applies of f'
	keys f 5 /
	keys -l fusion
	keys Enter
	shot chain-rewrites rows "$FBAR" '^Edited: optimizer_excluding=fusion' \
	    'fusion +off'
	keys r
	shot chain-diff set "$FBAR" 'done$' '^calls 30 ' '^A baseline' \
	    '0 paired, 9 added, 1 removed'
	keys F10
	wait_for '^\$ ?$' || fail_step "gptop quits on F10"

	# 3b. One call of the CNN drawn along time (README).
	start_shell $COLS
	run 'gptop -n 200 data/models/cnn/model.onnx'
	keys 8
	shot cnn-timeline rows "$FBAR" 'done$' '^calls 200 ' \
	    '^Last call of run \(timed call 200\)' '^ +7 /fc/Gemm ' \
	    '^Live bytes through the call'
	keys F10
	wait_for '^\$ ?$' || fail_step "gptop quits on F10"

	# 4. Captures from the command line (a wider pane: report lines are
	# long).
	start_shell 160
	run 'gptop --batch -n 30 --save fused.json data/graphs/chain.json >/dev/null'
	wait_for '^\$ ?$' || fail_step "the fused capture is written"
	run 'gptop --batch -n 30 --flags optimizer_excluding=fusion --save unfused.json data/graphs/chain.json >/dev/null'
	wait_for '^\$ ?$' || fail_step "the unfused capture is written"
	run "gptop --batch --diff fused.json unfused.json | sed -n '/^Ops/,/^\$/p'"
	shot batch-diff set '^Ops$' 'Elemwise\{tanh\}' '^\$ ?$'
	tx resize-window -t s -x $COLS
	run 'gptop fused.json unfused.json'
	shot capture-diff set "$FBAR" '^A baseline' 'capture' '0 paired, 9 added'
	keys F10
	wait_for '^\$ ?$' || fail_step "gptop quits on F10"

	# 5. A trace for Perfetto.
	run 'gptop --batch -n 20 --export-trace trace.json data/graphs/logreg.json >/dev/null'
	wait_for '^\$ ?$' || fail_step "the trace is written"
	run "head -n 8 trace.json | sed 's/,\"args\"/,\\n  \"args\"/'"
	shot trace rows '"traceEvents"' '"ns":' '^\$ ?$'
}

# The lines of a screen made comparable; $1 "rows" or "set", $2 the pane
# width (a line that fills it was cut by the terminal: its last word is
# compared as a prefix).  Out: one line per screen line, "text<TAB>C" for
# cut lines, "text<TAB>L" otherwise.
normalize() {
	LC_ALL=C awk -v cols="$2" '{
		s = $0; gsub(/[\200-\277]/, "", s)
		printf "%s\t%s\n", $0, (length(s) >= cols ? "C" : "L")
	}' | LC_ALL=C sed -E \
	    -e 's/(█|▉|▊|▋|▌|▍|▎|▏)( *)[0-9]+(\t)/\1\2N\3/' \
	    -e 's/▁|▂|▃|▄|▅|▆|▇|█|▉|▊|▋|▌|▍|▎|▏//g' \
	    -e 's/"(ts|dur|call_ns|thunk_ns|ns)":[0-9.]+/"\1":N/g' \
	    -e 's/[-+]?[0-9]+\.[0-9]+e[-+][0-9]+s?/T/g' \
	    -e 's/[-+]?[0-9]+(\.[0-9]+)?(ns|us|ms|s)\b/T/g' \
	    -e 's/[-+]?[0-9]+(\.[0-9]+)?%/P/g' \
	    -e 's/[0-9]+\.[0-9]+x\b/X/g' \
	    -e 's/p=[0-9.]+/p=F/g' \
	    -e 's/\b[0-9]+\.[0-9]+\b/F/g' \
	    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/D/g' \
	    -e 's/ *(> *)?\([1-9]\) T P//g' |
	    LC_ALL=C awk -F '\t' -v order="$1" '
	function squeeze(s) {
		gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
		return s
	}
	NR <= 4 { head = head " " $1; next }
	NR == 5 { print squeeze(head) "\tL" }
	{
		t = squeeze($1)
		# The bins of a histogram: how many depends on the times.
		if (t != "" && t !~ /^T - T N$/)
			print t "\t" $2
	}
	END { if (NR <= 4) print squeeze(head) "\tL" }' |
	    if [ "$1" = set ]; then LC_ALL=C sort; else cat; fi
}

# Compare normalized files $1 (the document's) and $2 (the capture's);
# print the differing lines as TAP comments.
compare() {
	LC_ALL=C awk -F '\t' '
	function strip(s) { sub(/ [^ ]*$/, "", s); return s }
	NR == FNR { a[FNR] = $1; af[FNR] = $2; na = FNR; next }
	{ b[FNR] = $1; bf[FNR] = $2; nb = FNR }
	END {
		bad = 0
		n = na > nb ? na : nb
		for (i = 1; i <= n; i++) {
			x = a[i]; y = b[i]
			if (x == y)
				continue
			if ((af[i] == "C" || bf[i] == "C") && i <= na && i <= nb) {
				x = strip(x); y = strip(y)
				if (index(x, y) == 1 || index(y, x) == 1)
					continue
			}
			print "#   doc:  " a[i]
			print "#   live: " b[i]
			bad = 1
		}
		exit bad
	}' "$1" "$2"
}

# The screens of document $1: "NAME" per line, in order.
screens_of() {
	sed -n 's/^<!-- screen:\([a-z0-9-]*\) -->$/\1/p' "$1"
}

# The block of screen $2 in document $1 (between the fences).
block_of() {
	awk -v name="$2" '
	$0 == "<!-- screen:" name " -->" { on = 1; next }
	on && /^<!-- \/screen -->$/ { exit }
	on && /^```/ { fence++; next }
	on && fence == 1 { print }' "$1"
}

# Write the captures into document $1.
write_doc() {
	doc=$1
	awk -v dir="$W/shots" '
	/^<!-- screen:[a-z0-9-]* -->$/ {
		print
		name = $0; sub(/^<!-- screen:/, "", name); sub(/ -->$/, "", name)
		file = dir "/" name
		if ((getline line < file) <= 0) {
			print "screens.sh: no capture named " name > "/dev/stderr"
			exit 1
		}
		print "```text"
		print line
		while ((getline line < file) > 0)
			print line
		close(file)
		print "```"
		skip = 1
		next
	}
	skip && /^<!-- \/screen -->$/ { skip = 0 }
	!skip { print }' "$top_srcdir/$doc" >"$W/doc.tmp" || exit 1
	if ! cmp -s "$W/doc.tmp" "$top_srcdir/$doc"; then
		cat "$W/doc.tmp" >"$top_srcdir/$doc"
		echo "screens.sh: updated $doc"
	fi
}

walkthrough

if [ $mode = write ]; then
	for doc in $DOCS; do
		write_doc "$doc"
	done
	exit 0
fi

for doc in $DOCS; do
	for name in $(screens_of "$top_srcdir/$doc"); do
		N=$((N + 1))
		if [ ! -f "$W/shots/$name.how" ]; then
			echo "not ok $N - $doc: screen $name was not taken: a step failed or none takes it"
			FAILED=1
			continue
		fi
		read -r order width <"$W/shots/$name.how"
		block_of "$top_srcdir/$doc" "$name" | normalize "$order" "$width" \
		    >"$W/doc.norm"
		normalize "$order" "$width" <"$W/shots/$name" >"$W/live.norm"
		if out=$(compare "$W/doc.norm" "$W/live.norm"); then
			echo "ok $N - $doc: screen $name matches gptop"
		else
			echo "not ok $N - $doc: screen $name matches gptop"
			printf '%s\n' "$out"
			FAILED=1
		fi
	done
done
echo "1..$N"
exit $FAILED
