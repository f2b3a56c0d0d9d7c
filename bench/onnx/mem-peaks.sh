#!/bin/sh
# bench/onnx/mem-peaks.sh: the memory profile's predicted peak against the
# allocator's measured peak on the real models (issue 21: "predicted peak
# equals the allocator's measured peak on every real model"), with GC on
# and off: bench/onnx/export.py's exports in bench/out/onnx/ (mlp,
# resnet18, mobilenet_v2, squeezenet1_0, transformer, those present) and
# the resnet18-shaped model tests/onnx/make-resnet18 writes.  One row per
# model and GC setting: both peaks in bytes, the largest kernel work space
# (ops/scratch.h) and its apply, and = or the difference.  Not a timing:
# no lock needed.  Exit status 1 when a row differs.
#   bench/onnx/mem-peaks.sh [MODEL...]
# Environment: top_builddir (the folder with gptop; default .), OUT (the
# exports' folder; default $top_builddir/bench/out/onnx).

b=${top_builddir:-.}
out=${OUT:-$b/bench/out/onnx}
gptop=$b/gptop
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-mem.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- mlp resnet18 mobilenet_v2 squeezenet1_0 transformer \
    make-resnet18
if [ -x "$b/tests/onnx/make-resnet18" ]; then
	"$b/tests/onnx/make-resnet18" "$tmp/make-resnet18.onnx" >/dev/null ||
	    exit 1
fi
# the bytes of the figure on the report line starting with $1: "X (N B)"
# or, under 1 KiB, "N B"
bytes() {
	sed -n "s/^    $1[^:]*: [^(]*(\([0-9]*\) B).*/\1/p;
	    s/^    $1[^:]*: \([0-9]*\) B.*/\1/p" "$2" | head -n 1
}
printf '%-14s %-3s %12s %12s %-6s %10s  %s\n' model gc predicted measured "" \
    "work max" "its apply"
fail=0
for m in "$@"; do
	model=$out/$m/model.onnx
	[ "$m" = make-resnet18 ] && model=$tmp/make-resnet18.onnx
	if [ ! -s "$model" ]; then
		echo "$m: no $model (bench/onnx/export.py makes it)" >&2
		continue
	fi
	for gc in True False; do
		"$gptop" --batch -n 3 --flags \
		    "profile_memory=True,allow_gc=$gc" "$model" \
		    >"$tmp/r.txt" 2>&1 || { echo "$m: gptop failed" >&2;
		    sed 's/^/  /' "$tmp/r.txt" | tail -n 5 >&2; fail=1;
		    continue; }
		p=$(bytes 'Predicted peak' "$tmp/r.txt")
		q=$(bytes 'Measured peak' "$tmp/r.txt")
		w=$(sed -n 's/.*Work space (kernels. scratch[^:]*: largest [^(]*(\([0-9]*\) B), apply [0-9]* (\(.*\)); [0-9]* appl.*/\1 \2/p' \
		    "$tmp/r.txt" | cut -c 1-60)
		[ -n "$w" ] || w="0 -"
		wb=${w%% *}
		wn=${w#* }
		if [ -n "$p" ] && [ "$p" = "$q" ]; then
			eq="="
		else
			eq="$((q - p))"
			fail=1
		fi
		printf '%-14s %-3s %12s %12s %-6s %10s  %s\n' "$m" \
		    "$( [ $gc = True ] && echo on || echo off)" "$p" "$q" \
		    "$eq" "$wb" "$wn"
	done
done
exit "$fail"
