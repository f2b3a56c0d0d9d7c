#!/bin/sh
# models.sh: the ONNX models torch exported into data/models/ (the MLP
# classifier, the small CNN, the one-layer transformer encoder and the
# two fire modules; data/models/README.md), against the
# outputs torch computed for them (test_data_set_0/output_K.pb).
#
# For each model: `gptop --check` reads it, with the inputs, outputs and
# op types the exporting script made (the input's name and shape also as
# the committed input_0.pb has them, decoded by tensor-stats with
# protobuf-c, not gptop's reader); `gptop --conformance` runs the folder as
# a backend test case (every element of every output against output_K.pb,
# rtol 1e-3, atol 1e-7); then gptop runs it once in batch mode on
# the committed inputs (--input NAME=input_K.pb) and each output's batch
# line (dtype, shape, sum, min, max, first values) must match the one
# tests/onnx/tensor-stats computes from output_K.pb: shape exactly, sum
# within 1e-4 of the sum of |x|, the others within 1e-4 of max |x| (+1e-6).
# gptop supports every op of the four models (the CNN's Conv and MaxPool
# since their mapping landed, the transformer's batched MatMul since
# ops/matmul.c), so a model it refuses to run is a failure,
# not a skip: the runs always compare.  The comparison itself is
# checked on lines made from the expected figures (equal, and one value
# off by 1e-3 of max |x|, which it must refuse).  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
stats=$top_builddir/tests/onnx/tensor-stats
models=$top_srcdir/data/models

if [ ! -x "$GPTOP" ] || [ ! -x "$stats" ]; then
	echo "1..0 # SKIP $GPTOP or $stats not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp models

# same GPTLINE STATSLINE: gptop's "  output NAME: DT(SHAPE) sum= min= max=
# first=[...]" against tensor-stats' "NAME DT(SHAPE) sum= ... first=a,b";
# prints what differs, status 1 when something does
same() {
	awk -v g="$1" -v s="$2" '
	function val(line, key,   i, r) {
		i = index(line, " " key "=")
		if (i == 0) return "none"
		r = substr(line, i + length(key) + 2)
		sub(/[ \]].*/, "", r)
		return r
	}
	function near(what, got, want, tol) {
		if (got == "none" || want == "none" || got - want > tol ||
		    want - got > tol) {
			printf "%s: gptop %s, expected %s (tolerance %g)\n",
			    what, got, want, tol
			bad = 1
		}
	}
	BEGIN {
		bad = 0
		gs = g; sub(/^ *output [^:]*: /, "", gs); sub(/\).*/, ")", gs)
		ss = s; sub(/^[^ ]* /, "", ss); sub(/ sum=.*/, "", ss)
		if (gs != ss) {
			printf "dtype(shape): gptop %s, expected %s\n", gs, ss
			bad = 1
		}
		sumabs = val(s, "sumabs"); maxabs = val(s, "maxabs")
		near("sum", val(g, "sum"), val(s, "sum"), 1e-4 * sumabs + 1e-6)
		tol = 1e-4 * maxabs + 1e-6
		near("min", val(g, "min"), val(s, "min"), tol)
		near("max", val(g, "max"), val(s, "max"), tol)
		gf = g; sub(/.*first=\[/, "", gf); sub(/(, \.\.\.)?\].*/, "", gf)
		sf = s; sub(/.*first=/, "", sf)
		ng = split(gf, a, /, /); ns = split(sf, b, /,/)
		if (ng != ns) {
			printf "first values: gptop [%s], expected [%s]\n", gf, sf
			bad = 1
		}
		for (i = 1; i <= ng && i <= ns; i++)
			near("value " i - 1, a[i], b[i], tol)
		exit bad
	}'
}

# a gptop line made from tensor-stats' figures, value 0 moved by DELTA
fake_line() {
	echo "$1" | awk -v d="$2" '{
		sub(/ sumabs=[^ ]* maxabs=[^ ]*/, "")
		n = index($0, "first="); f = substr($0, n + 6)
		split(f, v, /,/); v[1] += d
		out = v[1]; for (i = 2; i in v; i++) out = out ", " v[i]
		name = $1; sub(/^[^ ]* /, "")
		sub(/first=.*/, "")
		print "  output " name ": " $0 "first=[" out ", ...]"
	}'
}

# model  op-types-line
for spec in "mlp|Gemm 2, Relu 1, Softmax 1" \
    "cnn|Conv 2, MaxPool 2, Relu 2, Flatten 1, Gemm 1" \
    "fire|Conv 7, Relu 7, Concat 2, Flatten 1, GlobalAveragePool 1" \
    "transformer|Constant 17, Add 10, Transpose 6, MatMul 5, Mul 5, Reshape 5, Div 4, ReduceMean 4, Identity 3, Slice 3, Pow 2, Sqrt 2, Sub 2, Gather 1, Gemm 1, Relu 1, Shape 1, Softmax 1"; do
	m=${spec%%|*} ops=${spec#*|}
	d=$models/$m
	"$GPTOP" --check "$d/model.onnx" >"$tmp/check" 2>&1
	ok $? "$m: gptop --check reads data/models/$m/model.onnx"
	grep -qxF "  op types: $ops" "$tmp/check"
	ok $? "$m: op types $ops"
	[ $? -eq 0 ] || sed 's/^/# /' "$tmp/check"
	grep -qxF "  opsets: ai.onnx 13" "$tmp/check"
	ok $? "$m: opset 13"

	# the inputs: each input_K.pb names a graph input of that shape
	args= status=0
	for f in "$d"/test_data_set_0/input_*.pb; do
		line=$("$stats" "$f") || status=1
		name=${line%% *}
		shape=$(echo "$line" | cut -d' ' -f2- | sed 's/ sum=.*//')
		grep -qE "^    $name +$(echo "$shape" | sed 's/[()]/\\&/g')\$" \
		    "$tmp/check" || {
			status=1
			echo "# $f: $name $shape is not among the inputs"
		}
		args="$args --input $name=$f"
	done
	ok $status "$m: the committed inputs match the model's inputs"

	# the comparison refuses a wrong value and accepts the right ones
	status=0
	for f in "$d"/test_data_set_0/output_*.pb; do
		want=$("$stats" "$f") || status=1
		maxabs=$(echo "$want" | sed 's/.*maxabs=\([^ ]*\).*/\1/')
		same "$(fake_line "$want" 0)" "$want" >"$tmp/same" || status=1
		bad=$(awk -v m="$maxabs" 'BEGIN { print 1e-3 * m }')
		same "$(fake_line "$want" "$bad")" "$want" >"$tmp/same" &&
		    status=1
	done
	ok $status "$m: the comparison accepts the expected figures, refuses one off by 1e-3"

	if grep -q "^  running: not supported" "$tmp/check"; then
		why=$(sed -n 's/^  \(op types not supported: .*\)/\1/p' \
		    "$tmp/check")
		[ -n "$why" ] || why=$(sed -n 's/^  running: //p' "$tmp/check")
		ok 1 "$m: gptop runs it (every committed model's ops are" \
		    "supported): $why"
		continue
	fi
	# every element, by gptop's conformance runner (ONNX's tolerances)
	"$GPTOP" --conformance "$d" >"$tmp/conf" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^pass  *$d\$" "$tmp/conf"; then
		ok 0 "$m: gptop --conformance: every element as torch's"
	else
		ok 1 "$m: gptop --conformance: every element as torch's (status $rc)"
		sed 's/^/# /' "$tmp/conf"
	fi
	# shellcheck disable=SC2086 # $args is a list of options
	"$GPTOP" --batch -n 1 --flags profile=False $args "$d/model.onnx" \
	    >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		ok 1 "$m: gptop runs it (status $rc)"
		sed 's/^/# /' "$tmp/err"
		continue
	fi
	for f in "$d"/test_data_set_0/output_*.pb; do
		want=$("$stats" "$f")
		name=${want%% *}
		got=$(grep -m1 "^  output $name: " "$tmp/out")
		same "$got" "$want" >"$tmp/same"
		ok $? "$m: output $name matches torch's ($(basename "$f"))"
		sed 's/^/# /' "$tmp/same"
		[ -n "$got" ] || sed 's/^/# /' "$tmp/out"
	done
done

# the fire modules' joins: the rewrite join_into has the convs write their
# channels of one tensor in place (no Concat apply left), and the outputs
# are those of the joins it replaces, to the last printed digit
d=$models/fire
args="--input image=$d/test_data_set_0/input_0.pb"
# shellcheck disable=SC2086 # $args is a list of options
"$GPTOP" --batch -n 1 $args "$d/model.onnx" >"$tmp/on" 2>&1 &&
    "$GPTOP" --batch -n 1 --flags optimizer_excluding=join_into $args \
    "$d/model.onnx" >"$tmp/off" 2>&1
ok $? "fire: gptop runs it with and without join_into"
! grep -q "Concat" "$tmp/on" && grep -q "Concat{axis=1}" "$tmp/off" &&
    [ "$(grep -c 'AllocEmpty()' "$tmp/on")" -ge 2 ]
ok $? "fire: join_into leaves no Concat apply (two alloc_empty instead)"
[ "$(grep '^  output ' "$tmp/on")" = "$(grep '^  output ' "$tmp/off")" ] &&
    [ "$(grep -c '^  output ' "$tmp/on")" -eq 2 ]
ok $? "fire: the same outputs with and without join_into"

# the committed probabilities are probabilities: each of the 8 rows sums to 1
p=$("$stats" "$models/mlp/test_data_set_0/output_1.pb")
echo "$p" | awk '{ sub(/.*sum=/, ""); sub(/ .*/, "")
	exit !($0 > 8 - 1e-5 && $0 < 8 + 1e-5) }'
ok $? "mlp: the 8 rows of probs sum to 8 ($p)"

echo "1..$n"
exit $fail
