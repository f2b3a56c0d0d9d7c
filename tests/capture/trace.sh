#!/bin/sh
# tests/capture/trace.sh: the Chrome trace of `gptop --batch
# --export-trace` on every example graph, checked by trace-check against
# the Apply table the same run writes (--export-csv): every call slice
# lasts its call, holds one slice per apply in schedule order, none
# overlapping, each as long as the time the profile recorded for that
# execution; with sampling on (profiling__sample), with the first call
# ignored, and with more calls than the trace keeps.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
check=$top_builddir/tests/capture/trace-check

if [ ! -x "$GPTOP" ] || [ ! -x "$check" ]; then
	echo "1..0 # SKIP $GPTOP or $check not built"
	exit 0
fi

. "$top_srcdir/tests/tap.sh"
tap_tmp trace

# trace NAME CHECK-OPTS GPTOP-ARGS...: one run, then its check
trace() {
	name=$1
	opts=$2
	shift 2
	rm -f "$tmp/t.json" "$tmp/a.csv"
	if ! env GPTOP_FLAGS= "$GPTOP" --batch --allow-extern \
	    --export-trace "$tmp/t.json" --export-csv "$tmp/a.csv" "$@" \
	    >"$tmp/out" 2>"$tmp/err"; then
		ok 1 "$name: gptop failed: $(head -c 300 "$tmp/err")"
		return
	fi
	# shellcheck disable=SC2086
	"$check" $opts "$tmp/t.json" "$tmp/a.csv" >"$tmp/cout" 2>"$tmp/cerr"
	ok $? "$name: $(cat "$tmp/cout") $(head -c 600 "$tmp/cerr" |
	    tr '\n' ' ')"
}

for g in "$top_srcdir"/data/graphs/*.json; do
	b=$(basename "$g" .json)
	trace "$b, 1 call" "" -n 1 "$g"
	trace "$b, 6 calls" "" -n 6 "$g"
	trace "$b, 6 calls, profiling__sample=3" "" -n 6 \
	    --flags profiling__sample=3 "$g"
done
g=$top_srcdir/data/graphs/mlp.json
trace "mlp, the first call ignored" --first-ignored -n 4 \
    --flags profiling__ignore_first_call=True "$g"
trace "mlp, 12 calls, the last 5 kept" "" -n 12 --trace-calls 5 "$g"
if grep -q '"traced":5}' "$tmp/t.json" &&
    grep -q '"seen":12,"timed":12,"untimed":0' "$tmp/t.json"; then
	ok 0 "otherData: 12 calls seen and timed, 5 traced"
else
	ok 1 "otherData: 12 calls seen and timed, 5 traced: $(grep -o \
	    '"calls":{[^}]*}' "$tmp/t.json")"
fi

echo "1..$n"
exit $fail
