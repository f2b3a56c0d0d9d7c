#!/bin/sh
# tui-ort.sh: `gptop ORT_PROFILE CAPTURE` opens the Diff view with ONNX
# Runtime's profile of data/models/mlp as the baseline A and gptop's
# capture of the same model as B: the ops of the two sides as ONNX op
# types (ORT's FusedGemm and gptop's Gemm{tB} in one row Gemm), then (d)
# the applies, ORT's 3 nodes paired with gptop's applies by the source
# nodes they cover (ORT's fused /fc1/Gemm against gptop's Gemm, its
# transpose and allocation, and the Relu ORT fused), then (d) the
# classes, the ONNX front-end's families of both sides paired.
. "$top_srcdir/tests/ui/tui-lib.sh"

mlp=$top_srcdir/data/models/mlp
gp=$TUI_TMP/gp.json

# No row only on one side on the screen.
no_lone() {
	! tui_has '^(added|removed) '
}

echo "1..6"
"$GPTOP" --batch -n 5 --save "$gp" "$mlp/model.onnx" >/dev/null
check "gptop's capture of the mlp model is written" test -s "$gp"

tui_shell 130 40
tui_run -d 2 "$mlp/ort-profile.json" "$gp"
check "an ORT profile and a capture open the Diff view, ops as ONNX op types" \
    tui_wait_all 'Diff of ops' '^[?~].* 3 +5 Gemm$' '^[?~].* 3 +5 Softmax$'
check "... no op only on one side" no_lone
tui_keys d
check "d: the applies, ORT's 3 nodes grouped with gptop's by provenance" \
    tui_wait_all "Diff of applies .*, ONNX Runtime's nodes paired by" '3 paired, 0 added, 0 removed' \
    '^[?~].* 3 +5 4 applies \(A: /fc1/Gemm \(2 sources\)\)$' \
    '^[?~].* 3 +5 3 applies \(A: /fc2/Gemm \(1 source\)\)$' \
    '^[?~].* 3 +5 /Softmax$'
tui_keys d
check "d: the classes (the ONNX front-end's families) pair" \
    tui_wait_all 'Diff of classes' '^[?~].* 3 +5 BLAS$' \
    '^[?~].* 3 +5 Softmax$'
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
