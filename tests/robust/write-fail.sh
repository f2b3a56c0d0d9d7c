#!/bin/sh
# write-fail.sh: writes that fail are failures.  stdout on /dev/full (the
# batch report, --check, --list-ops, --help, --version, --flags help, a
# capture's report, merge): exit status 1 and one line naming the
# standard output and the reason.  Outputs over `ulimit -f` (--save, the
# exports, profiling__destination): SIGXFSZ is ignored, so the write fails
# with EFBIG: exit status 2, the file and "File too large" named, no
# temporary or partial file left.  Out of memory under `ulimit -v`: "out
# of memory", exit status 1, no crash (not under the sanitizers, which
# need the address space).  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
graphs=$top_srcdir/data/graphs

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp wfail

# one_line FILE RE: FILE holds one line, matching RE.
one_line() {
	[ "$(wc -l <"$1")" -eq 1 ] && grep -Eq -- "$2" "$1" && return 0
	sed 's/^/# stderr: /' "$1"
	return 1
}

echo "1..25"

"$GPTOP" --batch -n 1 --save "$tmp/cap.json" "$graphs/add3.json" \
    >/dev/null 2>&1
if [ -w /dev/full ]; then
	full_re='^gptop: cannot write the standard output: No space left on device$'
	for c in "--batch -n 3 $graphs/mlp.json" "--check $graphs/mlp.json" \
	    "--list-ops" "--help" "--version" "--flags help" \
	    "--batch $tmp/cap.json" "merge $tmp/cap.json -o $tmp/merged.json"; do
		# shellcheck disable=SC2086
		"$GPTOP" $c >/dev/full 2>"$tmp/err"
		rc=$?
		ok $([ "$rc" = 1 ] && one_line "$tmp/err" "$full_re"; echo $?) \
		    "gptop ${c#"$graphs/"} >/dev/full: exit 1 (got $rc), says so"
	done
else
	for i in 1 2 3 4 5 6 7 8; do
		ok 0 "# SKIP no /dev/full"
	done
fi

# Over the file size limit (2 blocks: 1 or 2 KiB as the shell counts),
# each output alone, in a folder of its own.
for o in --save --export-trace --export-csv --export-csv-ops \
    profiling__destination; do
	d=$tmp/fsize$o
	mkdir "$d"
	case $o in
	profiling__destination)
		arg="--flags profiling__destination=$d/out" ;;
	*)
		arg="$o $d/out" ;;
	esac
	(ulimit -f 2 && exec "$GPTOP" --batch -n 20 $arg \
	    "$graphs/mlp.json" >/dev/null 2>"$d.err")
	rc=$?
	ok $([ "$rc" = 2 ]; echo $?) "$o over ulimit -f: exit 2 (got $rc)"
	ok $(one_line "$d.err" "^gptop: .*$d/out.*File too large"; echo $?) \
	    "$o over ulimit -f: one line names the file and EFBIG"
	left=$(ls -A "$d")
	ok $([ -z "$left" ]; echo $?) \
	    "$o over ulimit -f: no temporary or partial file left ($left)"
done

# Out of memory: a 3.2 GB input under a 1 GB address space.
cat >"$tmp/huge.json" <<EOG
{"format": "gptop-graph/1", "name": "huge",
 "variables": {"x": {"kind": "input", "dtype": "float64",
   "shape": [20000, 20000], "init": {"fill": 1}}},
 "nodes": [{"op": "add", "inputs": ["x", 1], "outputs": ["out"]}],
 "functions": {"f": {"outputs": ["out"]}}}
EOG
if ldd "$GPTOP" 2>/dev/null | grep -Eq 'lib(asan|tsan)'; then
	ok 0 "# SKIP out of memory: a sanitizer build"
	ok 0 "# SKIP out of memory: a sanitizer build"
else
	(ulimit -v 1000000 && exec "$GPTOP" --batch -n 1 "$tmp/huge.json" \
	    >/dev/null 2>"$tmp/oom.err") 2>/dev/null
	rc=$?
	ok $([ "$rc" = 1 ]; echo $?) "out of memory: exit status 1 (got $rc)"
	ok $(one_line "$tmp/oom.err" '^gptop: out of memory \([0-9]+ bytes\)$'
	    echo $?) "out of memory: one line says so, no crash"
fi
exit "$fail"
