#!/bin/sh
# cases.sh: the backend-style test cases of tests/onnx/cases/ (made by
# make-cases.py there, with the outputs torch computed): the ops of
# opsets 18 to 20 that Debian's libonnx-testdata (opset 17) has no case
# for, Gelu (approximate "none" and "tanh") and Mish, in float32 and
# float64, and torch's own export of torch.nn.GELU (opset 13: Div, Erf,
# Add, Mul, Mul).  Every case must pass, with the default rewrites and
# with optimizer=None; the Op column shows Gelu's attribute, and the
# exported Gelu runs as one fused Composite.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
cases=$top_srcdir/tests/onnx/cases

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp cases

k=$(find "$cases" -name model.onnx | wc -l)
[ "$k" -eq 9 ]
ok $? "9 cases ($k)"
for flags in "" "optimizer=None"; do
	what=${flags:-default rewrites}
	# shellcheck disable=SC2086
	"$GPTOP" --conformance "$cases" ${flags:+--flags "$flags"} \
	    >"$tmp/out" 2>"$tmp/err"
	rc=$?
	grep -q "^conformance: $k cases: $k pass, 0 FAIL, 0 unsupported" \
	    "$tmp/out" && [ $rc -eq 0 ]
	ok $? "$what: every case passes (status $rc)"
	grep -v '^pass' "$tmp/out" | sed 's/^/# /'
done
"$GPTOP" --batch -n 1 "$cases/test_gelu_tanh_float32/model.onnx" \
    --flags optimizer=None >"$tmp/out" 2>"$tmp/err"
grep -qF 'Gelu{approximate=tanh}' "$tmp/out"
ok $? "the Op column shows Gelu{approximate=tanh}"
"$GPTOP" --batch -n 1 "$cases/test_gelu_torch_export_float32/model.onnx" \
    >"$tmp/out" 2>"$tmp/err"
grep -q 'Number of Apply nodes: 1$' "$tmp/out" &&
    grep -qF 'Elemwise{Composite{((i0 * (erf((i0 / 1.4142135)) + 1)) * 0.5)}}' \
    "$tmp/out"
ok $? "torch's exported Gelu (Div, Erf, Add, Mul, Mul) is one Composite"
echo "1..$n"
exit $fail
