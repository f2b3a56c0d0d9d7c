#!/bin/sh
# tests/report/advice.sh: the tips at the end of the batch report
# (src/prof/advice.c).  Each rule is run on a graph that triggers it and on one
# that does not, and the figures a tip quotes are checked against values
# computed by hand from the graph: every apply of mlp.json is float64
# (100%); dot-strided.json slices every second column of a 64x256 float64
# matrix, so the operand has strides (2048, 16) and its copy is
# 64 x 128 x 8 B = 64.0KiB; reduce.json sums 512 x 512 float32 = 1.0MiB.
: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
. "$top_srcdir/tests/tap.sh"
tap_tmp advice
g=$top_srcdir/data/graphs
a=$top_srcdir/tests/data/advice

t() {
	if "$@"; then echo 0; else echo 1; fi
}

# The tips section of a batch run of GRAPH (more gptop arguments first).
tips() {
	env GPTOP_FLAGS= "$GPTOP" --batch -n 20 "$@" 2>&1 |
	    sed -n '/^Here are tips/,$p' | tr '\n' ' ' | tr -s ' '
}

tips "$g/mlp.json" >"$tmp/mlp"
tips "$g/mlp32.json" >"$tmp/mlp32"
tips --flags optimizer_excluding=fusion "$g/logreg.json" >"$tmp/unfused"
tips "$g/logreg.json" >"$tmp/fused"
tips "$a/dot-strided.json" >"$tmp/strided"
tips "$a/dot-slice.json" >"$tmp/slice"
tips "$a/reduce.json" >"$tmp/reduce"

ok $(t grep -q '\[float64\] 100% of the thunk time' "$tmp/mlp") \
    "float64: mlp (every apply float64) gets the tip, at 100%"
ok $(t grep -vq '\[float64\]' "$tmp/mlp32") "float64: mlp32 does not"
ok $(t grep -q 'No tip: none of the rules' "$tmp/mlp32") \
    "mlp32: no rule speaks, and the report says so"

ok $(t grep -q '\[unfused\] [0-9]* elementwise applies feed one another' \
    "$tmp/unfused") "unfused: logreg without fusion gets the tip"
ok $(t grep -vq '\[unfused\]' "$tmp/fused") \
    "unfused: logreg with fusion does not"

ok $(t grep -q '\[strided_blas\] Dot22(xs, W).*strides (2048, 16)) in a layout BLAS cannot address.*copies it (64.0KiB)' \
    "$tmp/strided") "strided_blas: a column step of 2 gets the tip, with its strides and copy size"
ok $(t grep -vq '\[strided_blas\]' "$tmp/slice") \
    "strided_blas: a step-1 slice does not"

ok $(t grep -q '\[reduction\] Reductions take [0-9]*% .*Sum{axis=\[0\]}(x), reads 1.0MiB' \
    "$tmp/reduce") "reduction: a dominating sum gets the tip, with the bytes it reads"
ok $(t grep -vq '\[reduction\]' "$tmp/mlp") "reduction: mlp does not"

echo "1..$n"
exit $fail
