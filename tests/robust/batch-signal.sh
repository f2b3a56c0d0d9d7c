#!/bin/sh
# batch-signal.sh: SIGINT, SIGTERM, SIGHUP and SIGQUIT cut a batch run
# short: gptop stops after the current round, prints the report of the
# rounds done, writes --save (a capture), --export-csv and
# --export-csv-ops of exactly those rounds, and exits with 128 + the
# signal.  The capture replaces the file that was there by a rename (a
# new inode, no temporary left next to it), and reads back with the same
# number of calls.  And -n 0 (no call at all) reports the outputs as not
# computed.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
graph=$top_srcdir/data/graphs/add3.json

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp bsig

# CPU ticks (user + system) process $1 has used, or nothing once gone.
ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" \
	    2>/dev/null
}

# Wait until process $1 has run for 0.3 s of CPU: loaded and calling.
wait_running() {
	tries=300
	while [ "$tries" -gt 0 ]; do
		t=$(ticks "$1")
		[ -z "$t" ] && return 1
		[ "$t" -ge 30 ] && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

# The "calls" column of the CSV file $1, one row a line (fields may be
# quoted and hold commas).
csv_calls() {
	awk '{
		nf = 0; f = ""; q = 0
		for (i = 1; i <= length($0); i++) {
			ch = substr($0, i, 1)
			if (ch == "\"") q = !q
			else if (ch == "," && !q) { fld[++nf] = f; f = "" }
			else f = f ch
		}
		fld[++nf] = f
		if (NR == 1) { for (i = 1; i <= nf; i++) if (fld[i] == "calls") c = i }
		else if (c) print fld[c]
	}' "$1"
}

echo "1..42"
for sig in INT TERM HUP QUIT; do
	case $sig in
	INT) want=130 ;;
	TERM) want=143 ;;
	HUP) want=129 ;;
	QUIT) want=131 ;;
	esac
	d=$tmp/$sig
	mkdir "$d"
	echo "an older file" >"$d/cap.json"
	ino0=$(ls -i "$d/cap.json" | awk '{ print $1 }')
	"$GPTOP" --batch -n 1000000000 --save "$d/cap.json" \
	    --export-csv "$d/applies.csv" --export-csv-ops "$d/ops.csv" \
	    --flags optimizer_excluding=fusion "$graph" \
	    >"$d/out" 2>"$d/err" &
	pid=$!
	wait_running "$pid"
	ok $? "SIG$sig: the run is under way"
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	ok $([ "$rc" = "$want" ]; echo $?) "SIG$sig: exit status $want (got $rc)"
	ok $([ ! -s "$d/err" ]; echo $?) "SIG$sig: nothing on stderr"
	rounds=$(sed -n 's/^gptop: \([0-9]*\) rounds of .*/\1/p' "$d/out")
	ok $([ -n "$rounds" ] && [ "$rounds" -gt 0 ] &&
	    [ "$rounds" -lt 1000000000 ]; echo $?) \
	    "SIG$sig: the report says $rounds rounds, fewer than asked"
	ok $(grep -q "Time in $rounds calls to Function.__call__" "$d/out";
	    echo $?) "SIG$sig: the report's profile has those $rounds calls"
	"$GPTOP" --check "$d/cap.json" >"$d/check" 2>&1
	ok $(grep -q "^  1 function, $rounds calls," "$d/check"; echo $?) \
	    "SIG$sig: the capture is valid and has $rounds calls"
	ino1=$(ls -i "$d/cap.json" | awk '{ print $1 }')
	ok $([ "$ino0" != "$ino1" ]; echo $?) \
	    "SIG$sig: the capture replaced the old file by a rename"
	left=$(ls -A "$d" | grep -v -x -e cap.json -e applies.csv \
	    -e ops.csv -e out -e err -e check)
	ok $([ -z "$left" ]; echo $?) "SIG$sig: no temporary left ($left)"
	# the CSVs: three applies, each called once per round
	ok $(csv_calls "$d/applies.csv" | awk -v r="$rounds" '$1 != r { bad = 1 }
	    END { exit !(NR == 3 && !bad) }'; echo $?) \
	    "SIG$sig: --export-csv: 3 applies with $rounds calls each"
	ok $(csv_calls "$d/ops.csv" | awk -v r="$rounds" '{ s += $1 }
	    END { exit !(NR >= 1 && s == 3 * r) }'; echo $?) \
	    "SIG$sig: --export-csv-ops: the op calls sum to 3 x $rounds"
done

# No call at all: the outputs were never computed.
"$GPTOP" --batch -n 0 "$graph" >"$tmp/out0" 2>"$tmp/err0"
rc=$?
ok $([ "$rc" = 0 ] && [ ! -s "$tmp/err0" ]; echo $?) \
    "-n 0: exit status 0 (got $rc), nothing on stderr"
ok $(grep -q '^  output out: not computed$' "$tmp/out0"; echo $?) \
    "-n 0: the output is reported as not computed"
exit "$fail"
