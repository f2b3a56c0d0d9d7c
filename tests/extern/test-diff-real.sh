#!/bin/sh
# tests/extern/test-diff-real.sh: a real change through the whole chain
# (runs, captures, diff): one op of a graph really gets 4x slower (an
# extern op, testlib's gpt_spin, doing four times the work: GPT_SPIN=600
# against 150, some hundred microseconds a call, short enough that a
# loaded machine seldom preempts it), the graph and its other ops
# unchanged.  The diff of the two captures, taken one after the other,
# flags that op slower by +100% or more and, the other way round, faster
# by 50% or more (up to three pairs taken: see below); the noise verdicts of captures taken apart (the common
# factor, the capture-level test) must not hide it.  (4x, not 2x: on a
# loaded 2-core machine a CPU-bound op's time moves by up to 2x from one
# capture to the next, when another process shares its core.)  TAP
# output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
lib=$top_builddir/tests/extern/libgptest.so

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
if [ ! -f "$lib" ]; then
	echo "1..0 # SKIP $lib not built"
	exit 0
fi

. "$top_srcdir/tests/tap.sh"
tap_tmp diffreal

cp "$lib" "$tmp/libgptest.so"
cat >"$tmp/g.json" <<'JSON'
{
  "format": "gptop-graph/1",
  "name": "spin",
  "variables": {
    "x": {"kind": "input", "dtype": "float64", "shape": [200], "init": {"uniform": [0, 1], "seed": 1}},
    "y": {"kind": "input", "dtype": "float64", "shape": [200], "init": {"uniform": [1, 2], "seed": 2}}
  },
  "nodes": [
    {"op": "extern", "inputs": ["x"], "outputs": ["s"],
     "params": {"lib": "./libgptest.so", "symbol": "gpt_sq", "signature": "double(double)"}},
    {"op": "mul", "inputs": ["s", "y"], "outputs": ["m"]},
    {"op": "extern", "inputs": ["m"], "outputs": ["w"],
     "params": {"lib": "./libgptest.so", "symbol": "gpt_spin", "signature": "double(double)"}},
    {"op": "add", "inputs": ["w", "y"], "outputs": ["a"]},
    {"op": "exp", "inputs": ["a"], "outputs": ["e"]},
    {"op": "sqrt", "inputs": ["e"], "outputs": ["r"]},
    {"op": "tanh", "inputs": ["r"], "outputs": ["out"]}
  ],
  "functions": {"f": {"outputs": ["out"]}}
}
JSON

cap() {	# spin, capture
	GPT_SPIN=$1 GPTOP_FLAGS= "$GPTOP" --batch -n 40 --allow-extern \
	    --flags optimizer_excluding=fusion --save "$2" "$tmp/g.json" \
	    >/dev/null 2>"$tmp/err"
}
# the Apply row of gpt_spin in a diff: its mark and change ("+297% p=0.000")
spin_row() {	# A, B
	"$GPTOP" --batch --diff "$1" "$2" 2>"$tmp/err" |
	    sed -n '/^Apply$/,$p' | grep -F 'Extern{gpt_spin'
}
change() {	# the row's relative change in %, without its sign, if judged
	sed -n 's/.* [-+]\([0-9][0-9]*\)% p=.*/\1/p'
}
# A capture's times move with the load (another process on the core
# halves a CPU-bound op's speed for a whole capture): the pair is taken
# again, up to three times, until both diffs tell.
try=0
while [ $try -lt 3 ]; do
	try=$((try + 1))
	cap 150 "$tmp/a.json" || break
	cap 600 "$tmp/b.json" || break
	up=$(spin_row "$tmp/a.json" "$tmp/b.json")
	down=$(spin_row "$tmp/b.json" "$tmp/a.json")
	cu=$(echo "$up" | change)
	cd=$(echo "$down" | change)
	echo "# try $try: $up"
	echo "# try $try: $down"
	[ -n "$cu" ] && [ -n "$cd" ] && echo "$up" | grep -q ' +[0-9]*% p=' &&
	    echo "$down" | grep -q ' -[0-9]*% p=' && [ "$cu" -ge 100 ] &&
	    [ "$cd" -ge 50 ] && break
done
ok $([ -s "$tmp/b.json" ] && [ -n "$up" ]; echo $?) \
    "captures with GPT_SPIN=150 and 600, diffed ($(head -c 300 "$tmp/err"))"
ok $([ -n "$cu" ] && echo "$up" | grep -q ' +[0-9]*% p=' &&
    [ "$cu" -ge 100 ]; echo $?) \
    "gpt_spin, 4x the work: slower beyond noise, by +100% or more (try $try)"
ok $([ -n "$cd" ] && echo "$down" | grep -q ' -[0-9]*% p=' &&
    [ "$cd" -ge 50 ]; echo $?) \
    "the other way: faster, by -50% or more (try $try)"

echo "1..$n"
exit $fail
