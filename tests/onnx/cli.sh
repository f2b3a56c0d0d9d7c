#!/bin/sh
# cli.sh: gptop on ONNX models, through the command line.  The models are
# written by test-onnx-read --write (one per error the reader refuses):
# --check on each exits with status 2 and one line naming the file and the
# fault; the dtypes gptop cannot compute with are reported by --check (exit
# 0) and refused when asked to run; a valid model's summary shows its
# inputs with symbolic dims by name, its initializers and op types; running
# a valid model says it is not supported yet (status 2), and a .onnx file
# is never read as JSON.  TAP output.

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
expect_fail opset18.onnx "opset 18 of the default domain is newer than gptop supports (at most 17)" --check
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
expect_fail good.onnx "running ONNX models is not supported yet"
expect_fail good.onnx "running ONNX models is not supported yet" --batch -n 1

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
  running: not supported yet (this gptop reads and checks ONNX models; see doc/onnx.md)
EOT
diff "$tmp/want" "$tmp/out" >"$tmp/diff"
ok $? "--check dims.onnx: the summary"
sed 's/^/# /' "$tmp/diff"

# a .onnx file holding JSON is read as ONNX, not as a graph
cp "$top_srcdir/data/graphs/add3.json" "$tmp/add3.onnx"
"$GPTOP" --check "$tmp/add3.onnx" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "gptop: $tmp/add3.onnx: not an ONNX model" "$tmp/err"
ok $? "a JSON graph named .onnx is refused as ONNX"

echo "1..$n"
exit $fail
