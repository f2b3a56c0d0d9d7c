#!/bin/sh
# tui-ort.sh: `gptop ORT_PROFILE CAPTURE` opens the Diff view with ONNX
# Runtime's profile of data/models/mlp as the baseline A and gptop's
# capture of the same model as B: the ops of the two sides, then (d) the
# applies, ORT's 3 nodes paired with gptop's by ONNX node name, then (d)
# the classes, the ONNX front-end's families of both sides paired.
. "$top_srcdir/tests/ui/tui-lib.sh"

mlp=$top_srcdir/data/models/mlp
gp=$TUI_TMP/gp.json

echo "1..6"
"$GPTOP" --batch -n 5 --save "$gp" "$mlp/model.onnx" >/dev/null
check "gptop's capture of the mlp model is written" test -s "$gp"

tui_shell 130 40
tui_run -d 2 "$mlp/ort-profile.json" "$gp"
check "an ORT profile and a capture open the Diff view" \
    tui_wait_all 'Diff of ops' '^removed .* FusedGemm$' \
    '^added .* Gemm\{tB\}'
tui_keys d
check "d: the applies, ORT's 3 nodes paired by ONNX node name" \
    tui_wait_all 'Diff of applies' '3 paired, 5 added, 0 removed' \
    '^[?~].* 3 +5 /fc1/Gemm$' '^[?~].* 3 +5 /fc2/Gemm$' \
    '^[?~].* 3 +5 /Softmax$'
check "... gptop's Relu (ORT fused it into FusedGemm) added" \
    tui_has '^added .* /Relu$'
tui_keys d
check "d: the classes (the ONNX front-end's families) pair" \
    tui_wait_all 'Diff of classes' '^[?~].* 3 +5 BLAS$' \
    '^[?~].* 3 +5 Softmax$'
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
