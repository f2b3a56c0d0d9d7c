#!/bin/sh
# run-fuzz.sh NAME SECONDS: run the libFuzzer target tests/fuzz/fuzz-NAME
# (built by --enable-fuzzing) for SECONDS on its corpus and seeds, with its
# dictionary.  New inputs go to tests/tmp/fuzz/NAME (in the build folder),
# crashes to tests/tmp/fuzz/NAME-crash-*; copy the ones worth keeping to
# $top_srcdir/tests/fuzz/corpus/NAME.  The whole log is kept in
# tests/tmp/fuzz/NAME.log; libFuzzer's final figures are printed
# (stat::number_of_executed_units ...).  Exit status: libFuzzer's.
# Environment: top_srcdir (set by make fuzz).

name=$1
secs=${2:-60}
srcdir=${top_srcdir:-$(dirname "$0")/../..}
prog=./tests/fuzz/fuzz-$name
f=$srcdir/tests/fuzz
out=tests/tmp/fuzz

case $name in
load) dict=graph.dict seeds="$srcdir/data/graphs $srcdir/tests/invalid" ;;
rewrite) dict=graph.dict seeds="$srcdir/data/graphs" ;;
npy) dict=npy.dict seeds="$srcdir/tests/data/npy" ;;
capture) dict=capture.dict
	seeds="$srcdir/tests/capture $srcdir/tests/capture/bad" ;;
flags) dict=flags.dict seeds= ;;
onnx) dict=onnx.dict seeds= ;;
*) echo "run-fuzz.sh: unknown target '$name'" >&2; exit 2 ;;
esac
if [ ! -x "$prog" ]; then
	echo "run-fuzz.sh: $prog is not built (configure --enable-fuzzing)" >&2
	exit 2
fi
mkdir -p "$out/$name"
echo "fuzz-$name: $secs s"
GPTOP_FUZZ_DIR=$srcdir/tests/data/npy \
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$prog" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -dict="$f/$dict" -artifact_prefix="$out/$name-" \
    "$out/$name" "$f/corpus/$name" $seeds >"$out/$name.log" 2>&1
rc=$?
grep -E '^(stat::|Done |SUMMARY|==[0-9]+==ERROR|.*Test unit written)' \
    "$out/$name.log"
[ $rc -eq 0 ] || echo "fuzz-$name: exit status $rc (log: $out/$name.log)"
exit $rc
