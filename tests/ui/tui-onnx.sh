#!/bin/sh
# tui-onnx.sh: the interface runs an ONNX model as it runs a graph.json
# (the model is the shape-subgraph one test-onnx-read writes, committed as
# a fuzz seed: y = Relu(Reshape(x, <shape subgraph>)), z = Gemm(a, b,
# transB=1)): the Class view shows the ONNX families, the Ops view the
# ONNX op types with their attributes (Gemm{tB}), the Apply view the ONNX
# node names; q quits cleanly.
. "$top_srcdir/tests/ui/tui-lib.sh"

model=$top_srcdir/tests/fuzz/corpus/onnx/gen-shape-fold.onnx
echo "1..6"
tui_shell 120 40
tui_run -d 2 --dim batch=4 "$model"
check "starts on the Class view with the ONNX families" \
    tui_wait '^ *[0-9.]+%.* BLAS *$'
check "the header names the model" tui_wait_all 'gen-shape-fold\.onnx'
tui_keys 2
tui_wait 'Gemm\{tB\}'
check "2: the Ops view shows Gemm{tB} and Relu" \
    tui_wait_all 'Gemm\{tB\}' ' Relu *$'
tui_keys 3
tui_wait ' fc *$'
check "3: the Apply view names the applies by the ONNX nodes" \
    tui_wait_all ' fc *$' ' relu *$' ' reshape *$'
tui_keys q
check "q quits, and the terminal is restored" tui_terminal_restored
check "... exit status 0, no sanitizer report" tui_exited 0
tui_done
