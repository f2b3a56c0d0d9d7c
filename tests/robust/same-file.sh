#!/bin/sh
# same-file.sh: an output is never the same file as an input or as
# another output.  --save, --export-csv, --export-csv-ops, --export-trace
# and profiling__destination naming the graph (also through ./, a symbolic
# link or a hard link: files are compared by device and inode), two
# outputs naming one file (existing or not), a capture report saved over
# its capture and `gptop merge` writing over one of its captures: exit
# status 2, one line naming both, and the files are untouched (nothing
# created).  An output that cannot be written (in a folder that does not
# exist, or naming a folder) is refused the same way before the run or
# the merge, not after it.  --save /dev/stdout into a redirected standard
# output writes there.  And an output that is an existing device node
# is written in place, not replaced (only where mknod works, as root).
# TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp same
case $GPTOP in
/*) ;;
*) GPTOP=$PWD/$GPTOP ;;	# the runs below are in $tmp
esac

cp "$top_srcdir/data/graphs/add3.json" "$tmp/g.json"
cp "$tmp/g.json" "$tmp/orig.json"
ln -s g.json "$tmp/link.json"
ln "$tmp/g.json" "$tmp/hard.json"
"$GPTOP" --batch -n 1 --save "$tmp/cap.json" "$tmp/g.json" >/dev/null 2>&1
cp "$tmp/cap.json" "$tmp/cap-orig.json"
mkdir "$tmp/sub"

# refused DESC EXPECTED-LINE-RE GPTOP-ARGS...: exit 2, one line on stderr
# matching the RE, nothing on stdout, the graph and the capture unchanged
# and no file added.
refused() {
	desc=$1 re=$2
	shift 2
	before=$(ls -A "$tmp")
	(cd "$tmp" && "$GPTOP" "$@" >"$tmp/../same-out.$$" \
	    2>"$tmp/../same-err.$$")
	rc=$?
	ok $([ "$rc" = 2 ] && [ "$(wc -l <"$tmp/../same-err.$$")" -eq 1 ] &&
	    grep -Eq -- "$re" "$tmp/../same-err.$$" &&
	    [ ! -s "$tmp/../same-out.$$" ] &&
	    cmp -s "$tmp/g.json" "$tmp/orig.json" &&
	    cmp -s "$tmp/cap.json" "$tmp/cap-orig.json" &&
	    [ "$(ls -A "$tmp")" = "$before" ]; echo $?) \
	    "$desc: refused, exit 2 (got $rc)"
	[ "$rc" = 2 ] || sed 's/^/# stderr: /' "$tmp/../same-err.$$"
	rm -f "$tmp/../same-out.$$" "$tmp/../same-err.$$"
}

echo "1..21"
same='is the same file as'
refused "--save over the graph" \
    "^gptop: --save g.json $same the input g.json" \
    --batch -n 1 --save g.json g.json
refused "--export-csv over the graph" \
    "^gptop: --export-csv g.json $same the input g.json" \
    --batch -n 1 --export-csv g.json g.json
refused "--export-csv-ops over the graph, as ./g.json" \
    "^gptop: --export-csv-ops ./g.json $same the input g.json" \
    --batch -n 1 --export-csv-ops ./g.json g.json
refused "--export-trace over the graph" \
    "^gptop: --export-trace g.json $same the input g.json" \
    --batch -n 1 --export-trace g.json g.json
refused "profiling__destination over the graph" \
    "^gptop: profiling__destination g.json $same the input g.json" \
    --batch -n 1 --flags profiling__destination=g.json g.json
refused "--save over a symbolic link to the graph" \
    "^gptop: --save link.json $same the input g.json" \
    --batch -n 1 --save link.json g.json
refused "--save over a hard link to the graph" \
    "^gptop: --save hard.json $same the input g.json" \
    --batch -n 1 --save hard.json g.json
refused "--save and --export-trace naming one new file" \
    "^gptop: --export-trace X $same --save X" \
    --batch -n 1 --save X --export-trace X g.json
refused "--export-csv and --export-csv-ops naming one existing file" \
    "^gptop: --export-csv-ops ./orig.json $same --export-csv orig.json" \
    --batch -n 1 --export-csv orig.json --export-csv-ops ./orig.json g.json
refused "a capture's report saved over the capture" \
    "^gptop: --save cap.json $same the input cap.json" \
    --batch --save cap.json cap.json
refused "merge -o over one of its captures" \
    "^gptop: -o ./cap.json $same the input cap.json" \
    merge cap.json -o ./cap.json

# outputs that cannot be written: refused before the run (a run would
# print its report: refused checks that nothing went to stdout)
nodir='nodir/x: cannot create: No such file or directory$'
refused "--save in a folder that does not exist" \
    "^gptop: --save: $nodir" \
    --batch -n 1000000 --save nodir/x g.json
refused "--export-trace in a folder that does not exist" \
    "^gptop: --export-trace: $nodir" \
    --batch -n 1000000 --export-trace nodir/x g.json
refused "--export-csv naming a folder" \
    "^gptop: --export-csv: sub: is a directory \\(expected a file to write\\)$" \
    --batch -n 1000000 --export-csv sub g.json
refused "profiling__destination in a folder that does not exist" \
    "^gptop: profiling__destination: $nodir" \
    --batch -n 1000000 --flags profiling__destination=nodir/x g.json
refused "a capture's report saved in a folder that does not exist" \
    "^gptop: --save: $nodir" \
    --batch --save nodir/x cap.json
refused "merge -o in a folder that does not exist" \
    "^gptop merge: -o: $nodir" \
    merge cap.json -o nodir/x

# different files are fine
(cd "$tmp" && "$GPTOP" --batch -n 1 --save new.json --export-csv new.csv \
    g.json >/dev/null 2>&1)
ok $? "different outputs are written"

# /dev/stdout redirected to a file: the capture goes there, and the link
# stays a link (a rename through a temporary would have replaced it)
if [ -L /dev/stdout ]; then
	(cd "$tmp" && "$GPTOP" --batch -n 1 --save /dev/stdout g.json \
	    >"$tmp/../same-stdout.$$" 2>/dev/null)
	ok $(grep -q '"format": "gptop-capture/' "$tmp/../same-stdout.$$" &&
	    [ -L /dev/stdout ]; echo $?) \
	    "--save /dev/stdout into a redirected standard output: written there"
	rm -f "$tmp/../same-stdout.$$"
else
	ok 0 "# SKIP /dev/stdout is not a link here"
fi

# a device node: written in place (as root: mknod a null device here)
if mknod "$tmp/nul" c 1 3 2>/dev/null; then
	(cd "$tmp" && "$GPTOP" --batch -n 1 --export-csv nul --save nul \
	    g.json >/dev/null 2>&1)
	ok $([ -c "$tmp/nul" ]; echo $?) \
	    "an output on a device node leaves it a device"
	ok $(ls -A "$tmp" | grep -q '^\.nul\.'; [ $? = 1 ]; echo $?) \
	    "... and no temporary beside it"
else
	ok 0 "# SKIP mknod needs root"
	ok 0 "# SKIP mknod needs root"
fi
exit "$fail"
