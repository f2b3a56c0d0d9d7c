#!/bin/sh
# conformance.sh: the ONNX front-end judged by ONNX's own backend tests
# (Debian's libonnx-testdata: node/, pytorch-converted/, pytorch-operator/,
# simple/; or $ONNX_TESTDATA).  gptop --conformance builds each case's
# model with its input_K.pb, runs it once and compares every output with
# output_K.pb (rtol 1e-3, atol 1e-7 for floats; exact for the rest).
# Every case whose ops gptop supports must pass: one FAIL fails the test.
# It runs twice: with the default rewrites (fusion, the JIT, in-place) and
# with optimizer=None (the ops as the front-end built them).  The number of
# cases that pass may not fall below the count this commit reached (a
# supported op wrongly refused as unsupported would hide there).  The
# counts and the table by op type go to the log.  A FAIL line names the
# worst element, counts the elements outside the tolerance and gives the
# largest difference against the output's largest value.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}
# the cases that pass today: raise it with the ops that come
min_pass=788

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
if [ ! -d "$data/node" ]; then
	echo "1..0 # SKIP $data/node missing (Debian package libonnx-testdata)"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp conformance

dirs="$data/node $data/pytorch-converted $data/pytorch-operator $data/simple"
for flags in "" "optimizer=None"; do
	what=${flags:-default rewrites}
	# shellcheck disable=SC2086
	"$GPTOP" --conformance $dirs ${flags:+--flags "$flags"} \
	    >"$tmp/out" 2>"$tmp/err"
	rc=$?
	summary=$(grep '^conformance: ' "$tmp/out")
	echo "# $what: $summary"
	[ $rc -eq 0 ] && ! grep -q '^FAIL' "$tmp/out"
	ok $? "$what: no case fails (status $rc)"
	grep '^FAIL' "$tmp/out" | sed 's/^/# /'
	pass=$(echo "$summary" | sed -n 's/.*: \([0-9]*\) pass,.*/\1/p')
	[ -n "$pass" ] && [ "$pass" -ge $min_pass ]
	ok $? "$what: $pass cases pass (at least $min_pass)"
	total=$(echo "$summary" | sed -n 's/^conformance: \([0-9]*\) cases.*/\1/p')
	n_models=$(find $dirs -name model.onnx | wc -l)
	[ "$total" = "$n_models" ]
	ok $? "$what: every case ran ($total of $n_models)"
done
sed -n '/^by op type/,$p' "$tmp/out" | sed 's/^/# /'

# the runner's own errors (after cases ran: the sanitizer build checks
# that nothing leaks on the way out)
"$GPTOP" --conformance "$tmp" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && grep -qF "no test case" "$tmp/e"
ok $? "a folder with no case: status 2"
"$GPTOP" --conformance "$data/node/test_add" "$tmp/none" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && grep -qF "$tmp/none: not a folder" "$tmp/e" &&
    [ "$(wc -l <"$tmp/e")" -eq 1 ]
ok $? "a case, then a path that is no folder: status 2, one line"
sed 's/^/# /' "$tmp/e"
mkdir -p "$tmp/c/test_data_set_0"
cp "$data/node/test_add/model.onnx" "$tmp/c/"
cp "$data/node/test_add/test_data_set_0/"*.pb "$tmp/c/test_data_set_0/"
"$GPTOP" --conformance "$tmp/c" >"$tmp/o" 2>&1
ok $? "a copy of test_add passes"
# a wrong expected value is caught and located: output_0.pb of test_sub
# (x - y) stands in for test_add's (x + y)
cp "$data/node/test_sub/test_data_set_0/output_0.pb" "$tmp/c/test_data_set_0/"
"$GPTOP" --conformance "$tmp/c" >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL .*output 0 'sum': element \[[0-9,]*\]: got .*, expected " "$tmp/o"
ok $? "a wrong expected output: FAIL naming the output and the element, status 1"
sed 's/^/# /' "$tmp/o" | head -3
# every element is off there (numpy: max |x + y - (x - y)| 3.887 against
# max |x - y| 3.967)
grep -qF "; 60 of 60 elements outside, max |diff| 3.89 (0.98 of max |expected| 3.97)" "$tmp/o"
ok $? "the FAIL line counts the elements outside and scales the worst"
# one element off: test_add's output with the top byte of its last float
# made 0x40 (0.5594655 becomes 2.237862; numpy: max |diff| 1.678, max
# |expected| 3.758)
cp "$data/node/test_add/test_data_set_0/output_0.pb" "$tmp/c/test_data_set_0/"
chmod u+w "$tmp/c/test_data_set_0/output_0.pb"
printf '\100' | dd of="$tmp/c/test_data_set_0/output_0.pb" bs=1 seek=255 \
    conv=notrunc 2>/dev/null
"$GPTOP" --conformance "$tmp/c" >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -qF "element [2,3,4]: got 0.559465528, expected 2.23786211 (rtol 0.001, atol 1e-07); 1 of 60 elements outside, max |diff| 1.68 (0.447 of max |expected| 3.76)" "$tmp/o"
ok $? "one element off: FAIL on it, 1 of 60 outside"
sed 's/^/# /' "$tmp/o" | head -1

echo "1..$n"
exit $fail
