#!/bin/sh
# ort.sh: ONNX Runtime's profile read as a capture (src/capture/ort.c).
# data/models/mlp/ort-profile.json (written by ONNX Runtime 1.30.0 through
# bench/onnx/ort-bench.js --profile: see data/models/README.md) holds 3
# runs of 3 nodes; the times below were added up by hand from its events
# (dur, microseconds):
#   fused /fc1/Gemm (FusedGemm): 169 + 86 + 50 = 305 us
#   /fc2/Gemm (Gemm):            14 + 12 + 9  = 35 us
#   /Softmax (Softmax):          21 + 11 + 7  = 39 us
#   model_run:                   6792 + 152 + 86 = 7030 us (first 6792)
# The diff against gptop's capture of the same model pairs the 3 nodes by
# their ONNX names (in both orders); gptop's applies ORT has no node for
# (the Relu ORT fused into its FusedGemm, gptop's transposes and output
# allocations of its Gemms) are the only rows added, none removed.  The
# error kinds are in tests/capture/bad/ort-*.json (run-bad.sh).  TAP
# output; skips while gptop is not built.
# Environment (set by make check): top_srcdir, GPTOP.

srcdir=${top_srcdir:-$(dirname "$0")/../..}
GPTOP=${GPTOP:-./gptop}
mlp=$srcdir/data/models/mlp
ort=$mlp/ort-profile.json

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP is not built"
	exit 0
fi

. "$srcdir/tests/tap.sh"
tap_tmp ort

# The Apply row of NAME in report file F (its first line).
row() {
	grep -E "^ .*[0-9] +$2\$" "$1" | head -n 1
}

echo "1..17"
"$GPTOP" --batch "$ort" >"$tmp/rep" 2>"$tmp/err"
ok $? "gptop --batch reads ONNX Runtime's profile as a capture"
grep -q 'Time in 3 calls to Function.__call__: 7.030000e-03s' "$tmp/rep"
ok $? "... 3 runs, 7030 us in model_run events"
grep -q 'First call: 6.792000e-03s' "$tmp/rep"
ok $? "... the first run's 6792 us"
grep -q 'Number of Apply nodes: 3$' "$tmp/rep"
ok $? "... one apply per node"
r=$(row "$tmp/rep" /fc1/Gemm)
echo "$r" | grep -Eq '^ +[0-9.]+% +[0-9.]+% +3\.050e-04s +1\.02e-04s .* 3 +0 +/fc1/Gemm$'
ok $? "/fc1/Gemm (ORT's 'fused /fc1/Gemm'): 305 us in 3 calls, first in schedule: $r"
r=$(row "$tmp/rep" /fc2/Gemm)
echo "$r" | grep -Eq ' 3\.500e-05s .* 3 +1 +/fc2/Gemm$'
ok $? "/fc2/Gemm: 35 us in 3 calls: $r"
r=$(row "$tmp/rep" /Softmax)
echo "$r" | grep -Eq ' 3\.900e-05s .* 3 +2 +/Softmax$'
ok $? "/Softmax: 39 us in 3 calls: $r"
grep -Eq ' 3\.050e-04s .* 3 +1 +FusedGemm$' "$tmp/rep" &&
    grep -Eq ' 3\.400e-04s .* 6 +2 +BLAS$' "$tmp/rep" &&
    grep -Eq ' 3\.900e-05s .* 3 +1 +Softmax$' "$tmp/rep"
ok $? "Op is ORT's op_name, Class the ONNX front-end's family (FusedGemm and Gemm: BLAS)"
grep -A1 '^ .*/fc1/Gemm$' "$tmp/rep" | grep -q 'input 0: dtype=float32, shape=(8, 784)'
ok $? "inputs from input_type_shape"

"$GPTOP" --batch -n 5 --save "$tmp/gp.json" "$mlp/model.onnx" >/dev/null 2>&1
ok $? "a gptop capture of the same model"
"$GPTOP" --batch --diff "$ort" "$tmp/gp.json" >"$tmp/diff" 2>"$tmp/err"
ok $? "gptop --batch --diff ORT_PROFILE CAPTURE"
grep -q 'Applies: 3 paired (0 by structure, 3 by apply name, 0 by shape, 0 by position), 5 added, 0 removed' "$tmp/diff"
ok $? "... the 3 ORT nodes pair by ONNX node name, none removed"
sed -n '/^Apply$/,$p' "$tmp/diff" | grep ' added ' |
    awk '{print $NF}' | sort >"$tmp/added"
printf '%s\n' /Relu /fc1/Gemm/alloc /fc1/Gemm/transpose /fc2/Gemm/alloc \
    /fc2/Gemm/transpose | sort >"$tmp/want"
cmp -s "$tmp/added" "$tmp/want"
ok $? "... added: only gptop's applies ORT has no node for ($(tr '\n' ' ' <"$tmp/added"))"
sed -n '/^Apply$/,$p' "$tmp/diff" | grep -Eq '^ +1\.017e-04s .* 3 +5 .*/fc1/Gemm$'
ok $? "... /fc1/Gemm's row: ORT's 101.7 us per call against gptop's, 3 and 5 calls"
sed -n '/^Class$/,/^Ops$/p' "$tmp/diff" | grep -Eq '^ +1\.133e-04s .* 3 +5 .*BLAS$' &&
    sed -n '/^Class$/,/^Ops$/p' "$tmp/diff" | grep -Eq '^ +1\.300e-05s .* 3 +5 .*Softmax$'
ok $? "... the Class rows (the ONNX families) pair: BLAS 340/3 us, Softmax 39/3 us per call, 3 and 5 rounds"
"$GPTOP" --batch --diff "$tmp/gp.json" "$ort" >"$tmp/diff2" 2>"$tmp/err"
grep -q 'Applies: 3 paired (0 by structure, 3 by apply name, 0 by shape, 0 by position), 0 added, 5 removed' "$tmp/diff2"
ok $? "the other way round: 3 paired, gptop's 5 removed"
"$GPTOP" --batch --diff "$srcdir/tests/capture/bad/ort-no-nodes.json" \
    "$tmp/gp.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q 'ort-no-nodes.json:1:1: an ONNX Runtime profile without node events' "$tmp/err"
ok $? "--diff with a profile without node events: exit 2, one line naming the file ($rc)"
exit $fail
