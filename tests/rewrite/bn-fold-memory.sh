#!/bin/sh
# tests/rewrite/bn-fold-memory.sh: after bn_fold, the weights it replaced
# are held once.  data/graphs/cnn.json's conv1 weights W1 (16x3x3x3
# float32, 1728 B), its bias b1 and the batch norm's gamma, beta, mu and
# var (16 float32 each, 64 B) are shared variables no function updates;
# folded, no apply reads them, so the running graph's copies share the
# pristine graph's storage (session.c share_idle) and "Outside the
# program" (the pristine copies the running graph does not share) drops
# from every shared variable, 6120 B (with optimizer_excluding=cnn), to
# the ones still read: Wd 576 + Wp 2048 + bp 128 + W3 1280 + b3 40 = 4072 B.
# The predicted peak must still equal the allocator's.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi

. "$top_srcdir/tests/tap.sh"
tap_tmp bnmem

for case in "profile_memory=True 4072" \
    "profile_memory=True,optimizer_excluding=cnn 6120"; do
	set -- $case
	env GPTOP_FLAGS= XDG_CACHE_HOME="$tmp/cache" "$GPTOP" --batch -n 3 \
	    --flags "$1" "$top_srcdir/data/graphs/cnn.json" >"$tmp/out" \
	    2>"$tmp/err"
	rc=$?
	got=$(sed -n 's/.*Outside the program: [^(]*(\([0-9]*\) B).*/\1/p' \
	    "$tmp/out")
	ok $([ "$rc" = 0 ] && [ "$got" = "$2" ]; echo $?) \
	    "cnn.json ($1): outside the program $2 B (got ${got:-none}, exit $rc)"
	ok $(grep -q "Measured peak.*equal to the predicted peak" "$tmp/out"
	    echo $?) "cnn.json ($1): measured peak equals the predicted peak"
done

echo "1..$n"
exit $fail
