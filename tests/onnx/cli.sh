#!/bin/sh
# cli.sh: gptop on ONNX models, through the command line.  The models are
# written by test-onnx-read --write (one per error the reader refuses):
# --check on each exits with status 2 and one line naming the file and the
# fault; the dtypes gptop cannot compute with are reported by --check (exit
# 0) and refused when asked to run; a valid model's summary shows its
# inputs with symbolic dims by name, its initializers and op types; a valid
# model runs (its output checked by hand: x + w with x from a .npy file),
# with the run's errors (dims, inputs) each one line and status 2; and a
# .onnx file is never read as JSON.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp onnx
d=$tmp/models
"$top_builddir/tests/onnx/test-onnx-read" --write "$d" || exit 99

# expect_fail FILE TEXT [gptop options]: status 2, one line, FILE: TEXT
expect_fail() {
	f=$1 want=$2
	shift 2
	"$GPTOP" "$@" "$d/$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	    grep -qF "gptop: $d/$f: " "$tmp/err" && grep -qF -- "$want" "$tmp/err"
	ok $? "$* $f: status 2 ($rc), $want"
	[ $rc -eq 2 ] || cat "$tmp/err" "$tmp/out" | sed 's/^/# /'
}

expect_fail garbage.onnx "not an ONNX model: the protobuf does not decode" --check
expect_fail truncated.onnx "the protobuf does not decode" --check
expect_fail nograph.onnx "an ONNX model with no graph" --check
expect_fail opset21.onnx "opset 21 of the default domain is newer than gptop supports (at most 20)" --check
expect_fail reduce18.onnx "node 0 'rm' (ReduceMean, opset 18): not supported: ReduceMean is supported from opset 1 to 17 only" --batch
expect_fail missing-input.onnx "node 0 'add0' (Add): input 1 'b' is neither a graph input, an initializer nor an earlier node's output" --check
expect_fail later-output.onnx "node 0 'first' (Relu): input 0 't' is neither" --check
expect_fail dup-output.onnx "node 1 'second' (Neg): output 0 'y' is already defined (duplicate output name)" --check
expect_fail ext-absolute.onnx "initializer 'w': external data location '/etc/hostname' is an absolute path" --check
expect_fail ext-dotdot.onnx "leaves the model's folder (..)" --check
expect_fail ext-symlink.onnx "initializer 'w': external data location 'link.bin' leaves the model's folder" --check
expect_fail ext-missing.onnx "external data: $d/missing.bin: cannot open: No such file or directory" --check
expect_fail ext-fifo.onnx "external data: $d/fifo.bin: is a FIFO, not a regular file (expected external tensor data)" --check
expect_fail huge.onnx "initializer 'big': float32 [1048576,1048576] needs 4398046511104 bytes, over the memory limit" --check
expect_fail good.onnx "initializer 'w': float32 [2,3] needs 24 bytes, over the memory limit of 16 bytes (flag memory_limit)" --check --flags memory_limit=16
expect_fail float16-input.onnx "input 'x': dtype float16 is not supported"
expect_fail complex-const.onnx "node 0 'c' (Constant): attribute 'value': dtype complex64 is not supported"

# running: good.onnx is y = x + w, w = [[1, 2, 3], [4, 5, 6]] (float32);
# x all 0.5 from a .npy written here byte by byte (a version 1.0 header
# padded to 128 bytes, then six little-endian 0.5f: 00 00 00 3f)
npy_x() {
	hdr="{'descr': '<f4', 'fortran_order': False, 'shape': ($1), }"
	{
		printf '\223NUMPY\001\000\166\000'
		printf '%-117s\n' "$hdr"
		i=0
		while [ $i -lt "$2" ]; do
			printf '\000\000\000\077'
			i=$((i + 1))
		done
	} >"$3"
}
npy_x "2, 3" 6 "$tmp/x.npy"
"$GPTOP" --batch -n 2 --input "x=$tmp/x.npy" "$d/good.onnx" >"$tmp/out" 2>"$tmp/err"
ok $? "good.onnx --input x=x.npy runs (status 0)"
grep -qF "output y: float32(2, 3) sum=24 min=1.5 max=6.5 first=[1.5, 2.5, 3.5, 4.5, ...]" "$tmp/out"
ok $? "good.onnx: y = x + w = 1.5 ... 6.5"
grep -q "^function run:" "$tmp/out" && grep -q "Elemwise" "$tmp/out"
ok $? "good.onnx: the report names function run and the Elemwise class"
"$GPTOP" --batch -n 1 "$d/good.onnx" >"$tmp/out" 2>"$tmp/err"
ok $? "good.onnx runs with seeded random inputs"
"$GPTOP" --batch -n 1 "$d/good.onnx" >"$tmp/out2" 2>"$tmp/err"
grep "output y" "$tmp/out" >"$tmp/a"; grep "output y" "$tmp/out2" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && [ -s "$tmp/a" ]
ok $? "the random inputs are the same from run to run (seeded)"
GPTOP_FLAGS="onnx__inputs=x=$tmp/x.npy" "$GPTOP" --batch -n 1 "$d/good.onnx" >"$tmp/out" 2>"$tmp/err"
grep -qF "sum=24 min=1.5" "$tmp/out"
ok $? "GPTOP_FLAGS onnx__inputs gives x too"
npy_x "3, 2" 6 "$tmp/x32.npy"
expect_fail good.onnx "input 'x': $tmp/x32.npy holds float32 (3, 2), but the model's input is float32 (2, 3)" --batch --input "x=$tmp/x32.npy"
expect_fail good.onnx "--input nosuch: the model has no input of that name" --batch --input "nosuch=$tmp/x.npy"
expect_fail good.onnx "--input x: $tmp/none.npy: cannot open" --batch --input "x=$tmp/none.npy"
npy_x "4, 3" 12 "$tmp/x43.npy"
expect_fail good.onnx "--input x: $tmp/x43.npy" --batch --input "x=$tmp/x43.npy" --flags memory_limit=30
grep -qF "memory limit" "$tmp/err"
ok $? "an input file over memory_limit is refused as such"
expect_fail dims.onnx "2 symbolic dimensions not bound: batch, seq (bind each with --dim NAME=VALUE, e.g. --dim batch=1 --dim seq=1)" --batch
expect_fail dims.onnx "--dim time: the model has no symbolic dimension of that name" --batch --dim batch=2 --dim seq=3 --dim time=4
expect_fail dims.onnx "--dim batch=x: the value 'x' is not a positive integer" --batch --dim batch=x
"$GPTOP" --batch -n 1 --dim batch=2 --dim seq=3 "$d/dims.onnx" >"$tmp/out" 2>"$tmp/err"
grep -qF "output r: float32(2, 784)" "$tmp/out" && grep -qF "output s: int64(2, 3)" "$tmp/out"
ok $? "dims.onnx with --dim batch=2 --dim seq=3: r is (2, 784), s is (2, 3)"
GPTOP_FLAGS="onnx__dims=batch=4:seq=1" "$GPTOP" --batch -n 1 "$d/dims.onnx" >"$tmp/out" 2>"$tmp/err"
grep -qF "output r: float32(4, 784)" "$tmp/out"
ok $? "GPTOP_FLAGS onnx__dims=batch=4:seq=1 binds them too"

# --check reports the dtype gptop refuses, and the file is valid
"$GPTOP" --check "$d/float16-input.onnx" >"$tmp/out" 2>&1
ok $? "--check float16-input.onnx: status 0"
grep -qF "  not supported: input 'x': dtype float16 is not supported" "$tmp/out"
ok $? "--check float16-input.onnx: names the float16 input"

# the summary of a valid model (values written by test-onnx-read)
"$GPTOP" --check "$d/dims.onnx" >"$tmp/out" 2>&1
ok $? "--check dims.onnx: status 0"
cat >"$tmp/want" <<EOT
$d/dims.onnx: ONNX model is valid
  producer: test-onnx-read, ir_version 8
  opsets: ai.onnx 17
  inputs:
    x                        float32(batch, 784)
    y                        int64(batch, seq)
  outputs:
    r                        float32 (shape not given)
    s                        int64 (shape not given)
  symbolic dims: batch, seq
  initializers: 4 (64 bytes)
  nodes: 2
  op types: Add 1, Relu 1
  running: supported (gptop MODEL.onnx; symbolic dims need --dim NAME=VALUE)
EOT
diff "$tmp/want" "$tmp/out" >"$tmp/diff"
ok $? "--check dims.onnx: the summary"
sed 's/^/# /' "$tmp/diff"

# big-raw.onnx: y = x + w, w (128, 128) = 0 ... 16383 in 64 KiB of raw
# data (adopted by the front-end, not copied); x all 0.5: y = w + 0.5,
# sum 16383 * 16384 / 2 + 8192 = 134217728
npy_x "128, 128" 16384 "$tmp/x128.npy"
"$GPTOP" --batch -n 1 --input "x=$tmp/x128.npy" "$d/big-raw.onnx" >"$tmp/out" 2>"$tmp/err"
grep -qF "output y: float32(128, 128) sum=134217728 min=0.5 max=16383.5" "$tmp/out"
ok $? "big-raw.onnx: a 64 KiB initializer's values, adopted from the reader"
grep "output y\|^gptop" "$tmp/out" "$tmp/err" | sed 's/^/# /'

# the reader's errors stop a run as they stop --check
expect_fail garbage.onnx "not an ONNX model: the protobuf does not decode" --batch
expect_fail missing-input.onnx "node 0 'add0' (Add): input 1 'b' is neither" --batch
expect_fail ext-missing.onnx "external data: $d/missing.bin: cannot open" --batch
expect_fail huge.onnx "initializer 'big': float32 [1048576,1048576] needs 4398046511104 bytes, over the memory limit" --batch
# an op type gptop does not run: the node, its op type and the opset
expect_fail unsupported-op.onnx "node 0 'add0' (NoSuchOp, opset 13): not supported: op type NoSuchOp is not supported" --batch
# the spatial ops' refusals: a mode, a dtype, pads from an input's values
expect_fail pad-mode.onnx "node 0 'pad0' (Pad, opset 2): not supported: Pad mode 'symmetric' (gptop pads in modes constant, reflect, edge and wrap)" --batch
expect_fail resize-int.onnx "node 0 'up' (Resize, opset 13): not supported: Resize mode linear of int32 (gptop interpolates float32 and float64)" --batch
expect_fail pad-input.onnx "node 0 'pad1' (Pad, opset 13): not supported: the pads ('p') must be known when the model is built" --batch
# Dropout in training mode: a copy at ratio 0 (torch's export of swin_t),
# refused at any other ratio and when the ratio is not known
"$GPTOP" --batch -n 1 "$d/dropout-zero.onnx" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] &&
    grep -qF "output y: float32(2, 3) sum=21 min=1 max=6 first=[1, 2, 3, 4, ...]" "$tmp/out" &&
    grep -qF "output mask: bool(2, 3) sum=6 min=1 max=1" "$tmp/out"
ok $? "Dropout in training mode at ratio 0: x, and a mask all true"
grep "output\|^gptop" "$tmp/out" "$tmp/err" | sed 's/^/# /'
expect_fail dropout-half.onnx "node 0 'drop' (Dropout, opset 13): not supported: Dropout in training mode (training_mode=true) with a ratio other than 0: its random mask" --batch
expect_fail dropout-ratio-input.onnx "node 0 'drop' (Dropout, opset 13): not supported: the ratio ('r') must be known when the model is built" --batch
# opset 18's forms (values by hand): Pad of [[1 2 3] [4 5 6]] by (1, 2) in
# mode reflect along axes [-1] only: [[2 1 2 3 2 1] [5 4 5 6 5 4]], sum 40;
# Resize of [[1 2] [3 4]] to sizes (3, 5) for axes [2, 3] not_larger: one
# scale 1.5, so 3 x 3, half_pixel nearest rows and columns 0 0 1:
# [[1 1 2] [1 1 2] [3 3 4]], sum 18
"$GPTOP" --batch -n 1 "$d/pad18.onnx" >"$tmp/out" 2>&1
grep -qF "output y: float32(2, 6) sum=40 min=1 max=6 first=[2, 1, 2, 3, ...]" "$tmp/out"
ok $? "pad18.onnx: Pad's axes input (opset 18)"
"$GPTOP" --batch -n 1 "$d/resize18.onnx" >"$tmp/out" 2>&1
grep -qF "output y: float32(1, 1, 3, 3) sum=18 min=1 max=4 first=[1, 1, 2, 1, ...]" "$tmp/out"
ok $? "resize18.onnx: Resize's axes and keep_aspect_ratio_policy (opset 18)"
"$GPTOP" --check "$d/unsupported-op.onnx" >"$tmp/out" 2>&1
grep -qF "  op types not supported: NoSuchOp (at opset 13;" "$tmp/out" &&
    grep -qF "  running: not supported (see above)" "$tmp/out"
ok $? "--check unsupported-op.onnx: names NoSuchOp and says it cannot run"

# shape-fold.onnx: y = Relu(Reshape(x, Concat(Unsqueeze(Gather(Shape(x),
# 0)), [2, 3]))) and z = Gemm(a, b, transB=1) (test-onnx-read.c).  With x
# (4, 6), a and b (2, 3) all 0.5: y is (4, 2, 3) of 0.5 (sum 12), z is
# (2, 2) of 3 * 0.5 * 0.5 = 0.75 (sum 3); the shape subgraph is computed
# when the model is built, so only reshape, relu, the gemm and its
# transpose run (4 applies), named by the ONNX nodes
npy_x "4, 6" 24 "$tmp/x46.npy"
"$GPTOP" --batch -n 2 --flags optimizer=None --input "x=$tmp/x46.npy" \
    --input "a=$tmp/x.npy" --input "b=$tmp/x.npy" "$d/shape-fold.onnx" \
    >"$tmp/out" 2>"$tmp/err"
ok $? "shape-fold.onnx runs, batch bound from the input file"
grep -qF "output y: float32(4, 2, 3) sum=12 min=0.5 max=0.5" "$tmp/out" &&
    grep -qF "output z: float32(2, 2) sum=3 min=0.75 max=0.75" "$tmp/out"
ok $? "shape-fold.onnx: y = 0.5 (4, 2, 3), z = 0.75 (2, 2)"
grep -qF "Number of Apply nodes: 4" "$tmp/out"
ok $? "shape-fold.onnx: the shape subgraph is folded (4 applies)"
sed -n '/^Apply$/,/^Here/p' "$tmp/out" | awk '$1 ~ /^[0-9.]+%$/ {print $NF}' | sort >"$tmp/names"
printf 'fc\nfc/transpose\nrelu\nreshape\n' >"$tmp/want"
cmp -s "$tmp/names" "$tmp/want"
ok $? "shape-fold.onnx: the applies are named by the ONNX nodes"
sed 's/^/# /' "$tmp/names"
grep -q "  Gemm{tB}$" "$tmp/out" && grep -q "BLAS .* Gemm{tB}$" "$tmp/out"
ok $? "shape-fold.onnx: the Op column says Gemm{tB}, the Class BLAS"
# the CNN ops' Op column: the kernel, then what is not the default
"$GPTOP" --batch -n 1 "$top_srcdir/data/models/cnn/model.onnx" >"$tmp/out" 2>"$tmp/err"
# (a float32 conv's type: C, the blocked gemm of src/ops/conv-gemm.c, on
# a CPU with AVX2 and FMA; BLAS, im2col + sgemm, on others)
grep -qE "(C|BLAS) .* Conv\{3x3,p1,relu\}$" "$tmp/out" &&
    grep -q "C .* MaxPool{2x2,s2}$" "$tmp/out" &&
    grep -qE "(C|BLAS) +2 +2 +Conv$" "$tmp/out" && grep -qE "C +2 +2 +Pool$" "$tmp/out"
ok $? "cnn model: Op column Conv{3x3,p1,relu} (the Relu fused) and MaxPool{2x2,s2}, Classes Conv and Pool"
"$GPTOP" --batch -n 1 --dim batch=3 --flags optimizer=None "$d/shape-fold.onnx" >"$tmp/out" 2>"$tmp/err"
grep -qF "output y: float32(3, 2, 3)" "$tmp/out"
ok $? "shape-fold.onnx --dim batch=3: y is (3, 2, 3)"

# captures, diff and exports take an ONNX model as they take a graph
"$GPTOP" --batch -n 3 --dim batch=2 --save "$tmp/cap.json" \
    --export-csv "$tmp/ap.csv" "$d/shape-fold.onnx" >"$tmp/out" 2>"$tmp/err"
ok $? "--save and --export-csv of an ONNX run"
"$GPTOP" --batch "$tmp/cap.json" >"$tmp/out" 2>"$tmp/err" &&
    grep -q "Gemm{tB}" "$tmp/out" && grep -q "^fc\|,fc," "$tmp/ap.csv"
ok $? "the capture reports the ONNX names; the CSV holds them"
"$GPTOP" --batch -n 3 --diff --dim batch=2 "$d/shape-fold.onnx" "$d/shape-fold.onnx" >"$tmp/out" 2>"$tmp/err"
ok $? "--diff of two runs of an ONNX model"

# a .onnx file holding JSON is read as ONNX, not as a graph
cp "$top_srcdir/data/graphs/add3.json" "$tmp/add3.onnx"
"$GPTOP" --check "$tmp/add3.onnx" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "gptop: $tmp/add3.onnx: not an ONNX model" "$tmp/err"
ok $? "a JSON graph named .onnx is refused as ONNX"

echo "1..$n"
exit $fail
