#!/bin/sh
# bench/onnx-load.sh: the load time of an ONNX model of 100 MB of
# initializers (issue 20's goal: within 1.5x of the time to read the file
# once).  The model (one MatMul on a 5000 x 5000 float32 initializer in
# raw data) is written by a few lines of Python 3 (the protobuf encoded by
# hand: no onnx, no numpy) into bench/out/onnx-load/; then, interleaved,
# seven times each: Python reads the whole file into memory (one read()
# into a fresh buffer), and gptop loads the model (its report's "Load
# time": read, validate, build the graph; optimizer=None, one call).
# Prints the best of each and their ratio.
# Environment: top_builddir (the folder with gptop; default .).

b=${top_builddir:-.}
out=$b/bench/out/onnx-load
mkdir -p "$out" || exit 1
model=$out/big.onnx
if [ ! -s "$model" ]; then
	python3 - "$model" <<'PY' || exit 1
import os, sys
def varint(n):
    out = b''
    while True:
        b, n = n & 0x7f, n >> 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])
def key(f, w): return varint((f << 3) | w)
def ld(f, b): return key(f, 2) + varint(len(b)) + b
def vi(f, n): return key(f, 0) + varint(n)
def s(f, t): return ld(f, t.encode())
N = 5000
# TensorProto: dims (1), data_type (2, FLOAT = 1), name (8), raw_data (9)
w = vi(1, N) + vi(1, N) + vi(2, 1) + s(8, 'W') + ld(9, os.urandom(4 * N * N))
def vinfo(name, dims):
    shape = b''.join(ld(1, vi(1, d)) for d in dims)
    return s(1, name) + ld(2, ld(1, vi(1, 1) + ld(2, shape)))
node = s(1, 'x') + s(1, 'W') + s(2, 'y') + s(3, 'mm') + s(4, 'MatMul')
graph = (ld(1, node) + s(2, 'big') + ld(5, w) + ld(11, vinfo('x', [1, N])) +
    ld(12, vinfo('y', [1, N])))
# ModelProto: ir_version (1), graph (7), opset_import (8: version 13)
open(sys.argv[1], 'wb').write(vi(1, 8) + ld(8, vi(2, 13)) + ld(7, graph))
PY
fi
best_read= best_load=
i=0
while [ $i -lt 7 ]; do
	r=$(python3 -c 'import sys, time
t = time.perf_counter(); d = open(sys.argv[1], "rb").read()
print("%.1f" % ((time.perf_counter() - t) * 1e3))' "$model")
	l=$("$b/gptop" --batch -n 1 --flags optimizer=None "$model" |
	    awk '/Load time:/ {printf "%.1f", $3 * 1000}')
	[ -n "$l" ] || { echo "onnx-load: gptop did not run" >&2; exit 1; }
	best_read=$(echo "$r $best_read" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
	best_load=$(echo "$l $best_load" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
	i=$((i + 1))
done
echo "$best_load $best_read" | awk '{r = $1 / $2; printf "onnx-load  load %.1f ms  read %.1f ms  ratio %.2f  target 1.5  %s\n", $1, $2, r, r <= 1.5 ? "met" : "MISSED"}'
