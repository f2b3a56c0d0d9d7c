#!/bin/sh
# tests/models/npy-variant.sh: every example graph runs the same from .npy
# inputs.  bench/dump-inputs writes each graph's variables as .npy files
# and a copy of the graph whose inits read them; gptop --batch must then
# print exactly the same outputs and shared variables (dtype, shape, sum,
# min, max, first elements) for the copy as for the original after 3
# rounds.  Also: dump-inputs refuses to overwrite the graph it reads, and
# names that are not plain file names get var-N.npy.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
dump=$top_builddir/bench/dump-inputs

for p in "$GPTOP" "$dump"; do
	if [ ! -x "$p" ]; then
		echo "1..0 # SKIP $p not built"
		exit 0
	fi
done

. "$top_srcdir/tests/tap.sh"
tap_tmp models

# batch GRAPH OUT: the outputs gptop prints, without the first line (which
# names the file)
batch() {
	"$GPTOP" --batch -n 3 --flags profile=False "$1" >"$2.raw" 2>"$2.err" &&
	    sed 1d "$2.raw" >"$2"
}

for g in add3 chain logreg mlp mlp32 cnn; do
	src=$top_srcdir/data/graphs/$g.json
	"$dump" "$src" "$tmp/$g" 2>"$tmp/$g.dump.err"
	ok $? "$g: dump-inputs writes the .npy files and the copy"
	missing=0
	for v in $(sed -n 's/^ *"\([A-Za-z0-9_]*\)": {"kind".*/\1/p' "$src"); do
		[ -s "$tmp/$g/$v.npy" ] || missing=1
	done
	ok $missing "$g: every declared variable has its .npy file"
	grep -q '"npy": "x.npy"' "$tmp/$g/$g.json"
	ok $? "$g: the copy reads x from x.npy"
	batch "$src" "$tmp/$g.orig"
	ok $? "$g: gptop runs the original"
	batch "$tmp/$g/$g.json" "$tmp/$g.npy"
	ok $? "$g: gptop runs the .npy copy"
	if cmp -s "$tmp/$g.orig" "$tmp/$g.npy"; then
		ok 0 "$g: same outputs and shared variables from .npy inputs"
	else
		diff "$tmp/$g.orig" "$tmp/$g.npy" | sed 's/^/# /'
		ok 1 "$g: same outputs and shared variables from .npy inputs"
	fi
done

# the copy in its own folder is the graph itself: refused
"$dump" "$tmp/add3/add3.json" "$tmp/add3" 2>"$tmp/self.err"
rc=$?
[ $rc = 1 ] && grep -q 'is the graph itself' "$tmp/self.err"
ok $? "dump-inputs refuses to overwrite its graph (exit $rc)"

"$dump" "$top_srcdir/data/graphs/add3.json" >/dev/null 2>&1
rc=$?
[ $rc = 2 ]
ok $? "dump-inputs without OUTDIR: usage, exit 2 (got $rc)"

# a name that is no file name
cat >"$tmp/odd.json" <<'GRAPH'
{"format": "gptop-graph/1",
 "variables": {"a/b": {"kind": "input", "dtype": "float32", "shape": [3],
                       "init": {"arange": [0, 1]}},
               "var-0": {"kind": "shared", "dtype": "int32", "shape": [],
                         "init": {"fill": 7}}},
 "nodes": [{"op": "add", "inputs": ["a/b", "var-0"], "outputs": ["s"]}],
 "functions": {"f": {"outputs": ["s"]}}}
GRAPH
"$dump" "$tmp/odd.json" "$tmp/odd" 2>"$tmp/odd.err" &&
    [ -s "$tmp/odd/var-0.npy" ] && [ -s "$tmp/odd/var-0-2.npy" ] &&
    grep -q '"npy": "var-0-2.npy"' "$tmp/odd/odd.json"
ok $? "dump-inputs: 'a/b' is written as var-0-2.npy (var-0 is taken)"
batch "$tmp/odd.json" "$tmp/odd.orig" && batch "$tmp/odd/odd.json" \
    "$tmp/odd.npy" && cmp -s "$tmp/odd.orig" "$tmp/odd.npy"
ok $? "dump-inputs: the copy of that graph computes the same"

echo "1..$n"
exit $fail
