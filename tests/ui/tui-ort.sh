#!/bin/sh
# tui-ort.sh: `gptop ORT_PROFILE CAPTURE` opens the Diff view with ONNX
# Runtime's profile of data/models/mlp as the baseline A and gptop's
# capture of the same model as B: the ops of the two sides as ONNX op
# types (ORT's FusedGemm and gptop's Gemm{tB} in one row Gemm), then (d)
# the applies, ORT's 3 nodes paired with gptop's applies by the source
# nodes they cover (ORT's fused /fc1/Gemm against gptop's Gemm, its
# transpose and allocation, and the Relu ORT fused), then (d) the
# classes, the ONNX front-end's families of both sides paired.  Then
# data/models/fire's profile against gptop's capture: each fire module's
# Concat and its two convs (which gptop's join_into runs as convs writing
# into one tensor) a group row named by the module's scope, none of ORT's
# nodes aside but its layout reorders.
. "$top_srcdir/tests/ui/tui-lib.sh"

mlp=$top_srcdir/data/models/mlp
gp=$TUI_TMP/gp.json

# No row only on one side on the screen.
no_lone() {
	! tui_has '^(added|removed) '
}

# The rows only on one side are ORT's ReorderOutput nodes, two of them.
only_reorders() {
	lone=$(tui_screen | grep -E '^(added|removed) ')
	[ "$(printf '%s\n' "$lone" | grep -c .)" = 2 ] &&
	    ! printf '%s\n' "$lone" | grep -Evq ' ReorderOutput[_a-z0-9]*$'
}

echo "1..9"
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
    '^[?~].* 3 +5 3 applies of /fc2/Gemm \(A: /fc2/Gemm \(1 source\)\)$' \
    '^[?~].* 3 +5 /Softmax$'
tui_keys d
check "d: the classes (the ONNX front-end's families) pair" \
    tui_wait_all 'Diff of classes' '^[?~].* 3 +5 BLAS$' \
    '^[?~].* 3 +5 Softmax$'
tui_keys q
check "q quits cleanly" tui_exited 0

fire=$top_srcdir/data/models/fire
fgp=$TUI_TMP/fire.json
"$GPTOP" --batch -n 5 --save "$fgp" "$fire/model.onnx" >/dev/null
tui_run -d 2 "$fire/ort-profile.json" "$fgp"
tui_keys d
check "the fire model: each module's Concat and convs one group, named by its scope" \
    tui_wait_all "Diff of applies .*, ONNX Runtime's nodes paired by" \
    '7 paired, 0 added, 2 removed' \
    '^[?~].* 3 +5 3 applies in /fire1/ \(A: 3 applies\)$' \
    '^[?~].* 3 +5 3 applies in /fire2/ \(A: 3 applies\)$'
check "... only ORT's layout reorders on one side" only_reorders
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
