#!/bin/sh
# tui-cnn.sh: b switches the CNN rewrites (the tag cnn) in the edited
# flags; the Rewrites view lists bn_fold, conv_bias, conv_act and
# layer_norm_fuse with that key; r recompiles data/graphs/cnn.json without
# them, and the Diff view groups the fused conv with the conv, batch norm
# and relu that come back (provenance).
. "$top_srcdir/tests/ui/tui-lib.sh"

# the diff groups by provenance (doc/capture-format.md, "Diff"): the
# fused conv of A against the 3 applies of B doing the same source nodes'
# work (the conv, the batch norm, the relu), nothing added or removed
fused_grouped() {
	tui_wait_all \
	    '^[-+~?] .* 3 applies \(A: Conv\{3x3, pads=\[1, 1, 1, 1\], relu\}\(x, ' \
	    ' 0 added, 0 removed'
}

echo "1..6"
tui_shell 140 40
tui_run -d 2 "$GRAPHS/cnn.json"
tui_wait 'Conv\{3x3, pads=\[1, 1, 1, 1\], relu\}' >/dev/null
tui_keys 5
check "the Rewrites view lists the CNN rewriters, key b" \
    tui_wait_all '\[x\] +b +bn_fold +on +specialize' \
    '\[x\] +b +conv_bias' '\[x\] +b +conv_act' '\[x\] +b +layer_norm_fuse'
tui_keys b
check "b switches the CNN rewrites off in the edited flags" \
    tui_wait 'cnn: off in the edited flags'
check "... the Rewrites view shows the pending change" \
    tui_wait 'Edited: optimizer_excluding=cnn'
tui_keys r
check "r recompiles without them: the Diff view opens" \
    tui_wait 'B current: optimizer_excluding=cnn'
tui_keys d
check "... the fused conv grouped with the 3 applies it replaced" \
    fused_grouped
tui_keys q
check "q quits cleanly" tui_exited 0
tui_done
