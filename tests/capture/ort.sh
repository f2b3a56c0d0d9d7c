#!/bin/sh
# ort.sh: ONNX Runtime's profile read as a capture (src/capture/ort.c).
# data/models/mlp/ort-profile.json (written by ONNX Runtime 1.30.0 through
# bench/onnx/ort-bench.js --profile: see data/models/README.md) holds 3
# runs of 3 nodes; the times below were added up by hand from its events
# (dur, microseconds):
#   fused /fc1/Gemm (FusedGemm): 169 + 86 + 50 = 305 us
#   /fc2/Gemm (Gemm):            14 + 12 + 9  = 35 us
#   /Softmax (Softmax):          21 + 11 + 7  = 39 us
#   model_run:                   6792 + 152 + 86 = 7030 us (first 6792)
# The diff against gptop's capture of the same model pairs them by
# provenance (src/capture/diff-peer.c): each ORT node covers the source
# nodes it names and what ORT fused into it (the Relu after /fc1/Gemm,
# found through gptop's data flow), so each is one group against gptop's
# applies of those sources (its Gemm{tB}, transpose, allocation, Relu),
# in both orders; nothing added or removed.  The expected group and Ops
# times are summed from the capture's applies by python3 in this script;
# ORT's from the figures above.  The Ops rows are ONNX op types on both
# sides (FusedGemm and Gemm{tB} both in Gemm).  Variants of the profile
# (no model_run events, no session_initialization, one run) are made here
# from the committed one.  The
# error kinds are in tests/capture/bad/ort-*.json (run-bad.sh).  TAP
# output; skips while gptop is not built.
# Environment (set by make check): top_srcdir, GPTOP.

srcdir=${top_srcdir:-$(dirname "$0")/../..}
GPTOP=${GPTOP:-./gptop}
mlp=$srcdir/data/models/mlp
ort=$mlp/ort-profile.json

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP is not built"
	exit 0
fi

. "$srcdir/tests/tap.sh"
tap_tmp ort
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1; then
		PY=$p
		break
	fi
done

# The python scripts' reader of a capture (python3, not gptop): its
# source nodes' names, decoded, and each apply's source indices.
cat >"$tmp/capread.py" <<'PYEOF'
import json
def read(path):
    """(capture, its source names, function 0, its calls)"""
    d = json.load(open(path))
    src, prev = [], ""
    for e in d["sources"]:  # gptop-capture/5: [n, rest] is prev[:n] + rest
        if isinstance(e, list):
            e = prev.encode()[:e[0]].decode() + e[1]
        src.append(e)
        prev = e if e is not None else prev
    f = d["functions"][0]
    return d, src, f, f["call"]["calls"]
def srcs(a):  # gptop-capture/4: a run [first, last] stands for its indices
    return {i for e in a["src"] for i in
            (range(e[0], e[1] + 1) if isinstance(e, list) else [e])}
def group(profile, capture, nodes, names):
    """ORT's seconds per run in the profile's nodes, gptop's per call in
    the capture's applies whose source nodes all lie in names, and how
    many such applies, as "A B N" """
    ev = json.load(open(profile))
    d, src, f, calls = read(capture)
    runs = sum(1 for e in ev if e["name"] == "model_run")
    a = sum(e["dur"] for e in ev if e.get("cat") == "Node" and
            e["name"] in [n + "_kernel_time" for n in nodes])
    ids = {src.index(n) for n in names}
    ap = [x for x in f["applies"] if srcs(x) and srcs(x) <= ids]
    b = sum(x["total"] for x in ap)
    # the diff's arithmetic (ns, per call, then seconds): a value ending
    # in 5 past the 4th digit rounds as it does there
    return "%.3e %.3e %d" % (a * 1000 / runs / 1e9, b / calls / 1e9,
                             len(ap))
PYEOF

# gptop's capture (5 calls) of data/models/$1's model.onnx, saved as
# $tmp/$2.json, diffed against its ORT profile into $tmp/$3, every Apply
# row printed (the checks look for rows whose delta may be small).
ort_diff() {
	"$GPTOP" --batch -n 5 --save "$tmp/$2.json" \
	    "$srcdir/data/models/$1/model.onnx" >/dev/null 2>&1 &&
	    "$GPTOP" --batch --diff --flags profiling__n_apply=100 \
	    "$srcdir/data/models/$1/ort-profile.json" "$tmp/$2.json" \
	    >"$tmp/$3" 2>"$tmp/err"
}

# n skipped checks (TAP "ok N # SKIP").
skip() {
	k=0
	while [ "$k" -lt "$1" ]; do
		n=$((n + 1))
		k=$((k + 1))
		echo "ok $n # SKIP $2"
	done
}

# The Apply row of NAME in report file F (its first line).
row() {
	grep -E "^ .*[0-9] +$2\$" "$1" | head -n 1
}

echo "1..39"
"$GPTOP" --batch "$ort" >"$tmp/rep" 2>"$tmp/err"
ok $? "gptop --batch reads ONNX Runtime's profile as a capture"
grep -q 'Time in 3 calls to Function.__call__: 7.030000e-03s' "$tmp/rep"
ok $? "... 3 runs, 7030 us in model_run events"
grep -q 'First call: 6.792000e-03s' "$tmp/rep"
ok $? "... the first run's 6792 us"
grep -q 'Number of Apply nodes: 3$' "$tmp/rep"
ok $? "... one apply per node"
r=$(row "$tmp/rep" /fc1/Gemm)
echo "$r" | grep -Eq '^ +[0-9.]+% +[0-9.]+% +3\.050e-04s +1\.02e-04s .* 3 +0 +/fc1/Gemm$'
ok $? "/fc1/Gemm (ORT's 'fused /fc1/Gemm'): 305 us in 3 calls, first in schedule: $r"
r=$(row "$tmp/rep" /fc2/Gemm)
echo "$r" | grep -Eq ' 3\.500e-05s .* 3 +1 +/fc2/Gemm$'
ok $? "/fc2/Gemm: 35 us in 3 calls: $r"
r=$(row "$tmp/rep" /Softmax)
echo "$r" | grep -Eq ' 3\.900e-05s .* 3 +2 +/Softmax$'
ok $? "/Softmax: 39 us in 3 calls: $r"
grep -Eq ' 3\.050e-04s .* 3 +1 +FusedGemm$' "$tmp/rep" &&
    grep -Eq ' 3\.400e-04s .* 6 +2 +BLAS$' "$tmp/rep" &&
    grep -Eq ' 3\.900e-05s .* 3 +1 +Softmax$' "$tmp/rep"
ok $? "Op is ORT's op_name, Class the ONNX front-end's family (FusedGemm and Gemm: BLAS)"
grep -A1 '^ .*/fc1/Gemm$' "$tmp/rep" | grep -q 'input 0: dtype=float32, shape=(8, 784)'
ok $? "inputs from input_type_shape"

"$GPTOP" --batch -n 5 --save "$tmp/gp.json" "$mlp/model.onnx" >/dev/null 2>&1
ok $? "a gptop capture of the same model"
"$GPTOP" --batch --diff "$ort" "$tmp/gp.json" >"$tmp/diff" 2>"$tmp/err"
ok $? "gptop --batch --diff ORT_PROFILE CAPTURE"
grep -q "Note: A is ONNX Runtime's profile: its nodes are paired with B's applies by the source nodes they cover (3 of 3 nodes found by ONNX node or value name, 8 of B's 8 applies covered)" "$tmp/diff"
ok $? "... ORT's 3 nodes found among the capture's source nodes, all 8 of gptop's applies covered"
grep -q "Applies: 3 paired by the source nodes they cover (ONNX Runtime's nodes), 0 added, 0 removed" "$tmp/diff" &&
    grep -q 'Grouped by source nodes: 3 groups (3 applies of A against 8 of B doing' "$tmp/diff"
ok $? "... paired by provenance only: 3 groups, nothing added or removed"

# The expected rows, from the capture's own applies and sources (python3,
# not gptop): the sum of the totals of gptop's applies whose sources lie in
# a set, per call (5 calls), as the report prints it (%.3e).
if [ -n "$PY" ]; then
	"$PY" - "$tmp" "$tmp/gp.json" >"$tmp/want-rows" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from capread import read, srcs
d, src, f, calls = read(sys.argv[2])
def per_call(names):
    ids = {src.index(n) for n in names}
    t = sum(a["total"] for a in f["applies"] if srcs(a) <= ids)
    n = sum(1 for a in f["applies"] if srcs(a) <= ids)
    return "%.3e %d" % (t / calls / 1e9, n)  # as group() rounds
print("fc1", per_call(["/fc1/Gemm", "/Relu"]))
print("fc2", per_call(["/fc2/Gemm"]))
print("gemm", per_call(["/fc1/Gemm", "/Relu", "/fc2/Gemm"]))
print("softmax", per_call(["/Softmax"]))
PYEOF
fi
# The Apply row of a group: A per call, B per call, its names.
grow() {
	sed -n '/^Apply$/,$p' "$tmp/diff" | grep -F -- "$1" | head -n 1
}
if [ -z "$PY" ]; then
	skip 4 "no python3 to read the capture"
else
	set -- $(grep '^fc1 ' "$tmp/want-rows")
	r=$(grow "[A: /fc1/Gemm (2 sources)]")
	echo "$r" | grep -Eq "^ +1\.017e-04s +${2}s .* 3 +5 .* $3 applies  \[A: /fc1/Gemm \(2 sources\)\]\$"
	ok $? "ORT's 'fused /fc1/Gemm' (FusedGemm: /fc1/Gemm and /Relu) against gptop's $3 applies of those sources: 305/3 us vs ${2}s per call: $r"
	set -- $(grep '^fc2 ' "$tmp/want-rows")
	r=$(grow "[A: /fc2/Gemm (1 source)]")
	echo "$r" | grep -Eq "^ +1\.167e-05s +${2}s .* 3 +5 .* $3 applies of /fc2/Gemm  \[A: /fc2/Gemm \(1 source\)\]\$"
	ok $? "/fc2/Gemm against gptop's Gemm{tB}, its transpose and allocation ($3 applies): 35/3 us vs ${2}s: $r"
	set -- $(grep '^gemm ' "$tmp/want-rows")
	sed -n '/^Ops$/,/^Apply$/p' "$tmp/diff" |
	    grep -Eq "^ +1\.133e-04s +${2}s .* 3 +5 .* Gemm\$"
	ok $? "Ops: ORT's FusedGemm and Gemm against gptop's Gemm{tB} and what they cover, one row Gemm: 340/3 us vs ${2}s"
	set -- $(grep '^softmax ' "$tmp/want-rows")
	sed -n '/^Ops$/,/^Apply$/p' "$tmp/diff" |
	    grep -Eq "^ +1\.300e-05s +${2}s .* 3 +5 .* Softmax\$"
	ok $? "Ops: ORT's Softmax against gptop's Softmax{axis=1}: 39/3 us vs ${2}s"
fi
[ "$(sed -n '/^Ops$/,/^Apply$/p' "$tmp/diff" | grep -c ' added \| removed ')" = 0 ]
ok $? "... no Ops row only on one side (Relu, DimShuffle, Alloc are in Gemm)"
sed -n '/^Class$/,/^Ops$/p' "$tmp/diff" | grep -Eq '^ +1\.133e-04s .* 3 +5 .*BLAS$' &&
    sed -n '/^Class$/,/^Ops$/p' "$tmp/diff" | grep -Eq '^ +1\.300e-05s .* 3 +5 .*Softmax$' &&
    ! sed -n '/^Class$/,/^Ops$/p' "$tmp/diff" | grep -q Elemwise
ok $? "... the Class rows (the ONNX families) pair: BLAS 340/3 us, Softmax 39/3 us per call; gptop's Relu in BLAS with ORT's FusedGemm"
"$GPTOP" --batch --diff "$tmp/gp.json" "$ort" >"$tmp/diff2" 2>"$tmp/err"
grep -q "Applies: 3 paired by the source nodes they cover (ONNX Runtime's nodes), 0 added, 0 removed" "$tmp/diff2" &&
    grep -q "Note: B is ONNX Runtime's profile" "$tmp/diff2" &&
    grep -q 'Grouped by source nodes: 3 groups (8 applies of A against 3 of B doing' "$tmp/diff2"
ok $? "the other way round: the same 3 groups"

"$GPTOP" --batch --diff "$ort" "$ort" >"$tmp/aa" 2>"$tmp/err" &&
    grep -q 'Applies: 3 paired (3 by structure, 0 by apply name, 0 by shape, 0 by position), 0 added, 0 removed' "$tmp/aa"
ok $? "the profile against itself: its 3 nodes paired by structure (its values have no names: not NULL ones)"

# data/models/cnn/ort-profile.json (made as the mlp's): ORT's NCHWc
# convolutions are named after their output values
# ("/Relu_output_0_nchwc": the Conv and Relu fused), found through the
# capture's value names; its layout reorder (ReorderOutput) covers no
# source and stays removed.  ORT's times are read from the profile by
# python3 here.
cnn=$srcdir/data/models/cnn
ort_diff cnn cnn cdiff
ok $? "the cnn model: ORT's profile against gptop's capture"
grep -q "(6 of 7 nodes found by ONNX node or value name, 8 of B's 8 applies covered)" "$tmp/cdiff" &&
    grep -q "Applies: 6 paired by the source nodes they cover (ONNX Runtime's nodes), 0 added, 1 removed" "$tmp/cdiff" &&
    grep -q 'Grouped by source nodes: 6 groups (6 applies of A against 8 of B doing' "$tmp/cdiff" &&
    sed -n '/^Apply$/,$p' "$tmp/cdiff" | grep -Eq ' removed +ReorderOutput$'
ok $? "... 6 of ORT's 7 nodes found, all 8 applies of gptop covered, 6 groups, ReorderOutput removed"
if [ -z "$PY" ]; then
	skip 1 "no python3 to read the profile"
else
	want=$("$PY" -c '
import json, sys
ev = json.load(open(sys.argv[1]))
d = [e["dur"] for e in ev if e["name"] == "/Relu_output_0_nchwc_kernel_time"]
c = [e["dur"] for e in ev if e.get("cat") == "Node" and e["name"].endswith("_kernel_time") and e["args"]["op_name"] in ("Conv", "FusedConv")]
print("%.3e %.3e" % (sum(d) / 1e6 / len(d), sum(c) / 1e6 / len(d)))' "$cnn/ort-profile.json")
	set -- $want
	sed -n '/^Apply$/,$p' "$tmp/cdiff" |
	    grep -Eq "^ +${1}s .* 3 +5 .* /conv1/Conv  \[A: /Relu_output_0_nchwc\]\$" &&
	    sed -n '/^Ops$/,/^Apply$/p' "$tmp/cdiff" | grep -Eq "^ +${2}s .* 6 +10 .* Conv\$"
	ok $? "... /conv1/Conv (gptop's Conv{relu}) against ORT's /Relu_output_0_nchwc, ${1}s per call; Ops Conv ${2}s"
fi

# data/models/fire/ort-profile.json (made as the mlp's): each fire
# module ends in a Concat of two convs, which gptop's join_into rewrite
# turns into an alloc_empty and the two convs writing into it, so the
# values ORT's NCHWc convs are named after ("/fire1/Relu_1_output_0_nchwc")
# are computed by no gptop apply; they are found by the node that names
# them ("/fire1/Relu_1"), and each module's Concat and its two convs on
# ORT's side form one group against gptop's three applies, none of ORT's
# nodes left aside but its two layout reorders.  Times: ORT's from the
# profile, gptop's from the capture's applies of the same source nodes
# (python3).
fire=$srcdir/data/models/fire
ort_diff fire fire fdiff
ok $? "the fire model (join_into): ORT's profile against gptop's capture"
grep -q "(11 of 13 nodes found by ONNX node or value name, 11 of B's 11 applies covered)" "$tmp/fdiff" &&
    grep -q "Applies: 7 paired by the source nodes they cover (ONNX Runtime's nodes), 0 added, 2 removed" "$tmp/fdiff" &&
    [ "$(sed -n '/^Apply$/,$p' "$tmp/fdiff" | grep -c ' removed  ')" = 2 ] &&
    [ "$(sed -n '/^Apply$/,$p' "$tmp/fdiff" | grep -c ' removed  *ReorderOutput')" = 2 ]
ok $? "... 11 of ORT's 13 nodes found (the convs written into the join's tensor too), only its 2 ReorderOutputs removed"
if [ -z "$PY" ]; then
	skip 2 "no python3 to read the profile and the capture"
else
	"$PY" - "$tmp" "$fire/ort-profile.json" "$tmp/fire.json" >"$tmp/fgroups" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from capread import group
for m in ("fire1", "fire2"):
    print(m, group(sys.argv[2], sys.argv[3], ["/%s/%s" % (m, n) for n in
                   ("Concat", "Relu_1_output_0_nchwc", "Relu_2_output_0_nchwc")],
                   ["/%s/%s" % (m, n) for n in
                    ("e1/Conv", "Relu_1", "e3/Conv", "Relu_2", "Concat")]))
PYEOF
	for m in fire1 fire2; do
		set -- $(grep "^$m " "$tmp/fgroups")
		sed -n '/^Apply$/,$p' "$tmp/fdiff" |
		    grep -Eq "^ +${2}s +${3}s .* 3 +5 .* $4 applies in /$m/  \[A: 3 applies\]\$"
		ok $? "$m: ORT's Concat and its two convs (${2}s per call) against gptop's $4 applies of the same nodes (${3}s)"
	done
fi

# data/models/transformer/ort-profile.json (made as the mlp's): ORT
# replaced stretches of the model by kernels named after no ONNX node
# (SkipLayerNormalization: a residual Add and a LayerNormalization),
# made Gemms of its MatMuls and the Adds after them (MatMulAddFusion),
# with Reshapes around them named after no node (gemm_input_reshape,
# gemm_output_reshape...), and one Split of the three Slices of the
# attention's input projection (GatherSliceToSplitFusion, named after
# Slice_2).  Every node and every gptop apply is placed: nothing added
# or removed.  The Ops row SkipLayerNormalization pairs, ORT's time per
# call from the profile (python3).
tfm=$srcdir/data/models/transformer
ort_diff transformer tfm tdiff
ok $? "the transformer model: ORT's profile against gptop's capture"
grep -Eq "nodes found by ONNX node or value name, ([0-9]+) of B's \1 applies covered" "$tmp/tdiff" &&
    grep -Eq "Applies: [1-9][0-9]* paired by the source nodes they cover \(ONNX Runtime's nodes\), 0 added, 0 removed" "$tmp/tdiff"
ok $? "... every gptop apply covered, every ORT node placed: none added or removed"
# The groups those fusions make, each against gptop's applies of the
# same source nodes: the times summed by python3 from the profile's
# events (per run) and the capture's applies (per call), as in the mlp's.
if [ -z "$PY" ]; then
	skip 3 "no python3 to read the profile and the capture"
else
	"$PY" - "$tmp" "$tfm/ort-profile.json" "$tmp/tfm.json" >"$tmp/tgroups" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
from capread import group
L = "/enc/layers.0/"
def row(key, nodes, names):
    print(key, group(sys.argv[2], sys.argv[3], nodes, [L + n for n in names]))
row("qkv", ["gemm_input_reshape", L + "self_attn/MatMul/MatMulAddFusion",
            "gemm_output_reshape"], ["self_attn/MatMul", "self_attn/Add"])
row("fc1", ["gemm_input_reshape_token_2", L + "linear1/MatMul/MatMulAddFusion",
            "gemm_output_reshape_token_5", L + "Relu"],
    ["linear1/MatMul", "linear1/Add", "Relu"])
row("split", [L + "self_attn/Slice_2/GatherSliceToSplitFusion"],
    ["self_attn/Slice", "self_attn/Slice_1", "self_attn/Slice_2"])
PYEOF
	tgrow() {
		sed -n '/^Apply$/,$p' "$tmp/tdiff" | grep -F -- "$1" | head -n 1
	}
	set -- $(grep '^qkv ' "$tmp/tgroups")
	r=$(tgrow "(2 sources)  [A: 3 applies]")
	echo "$r" | grep -Eq "^ +${2}s +${3}s .* 3 +5 .* MatMul\{bias\}\(.*\) \(2 sources\)  \[A: 3 applies\]\$"
	ok $? "MatMulAddFusion's Gemm with the Reshapes ORT put around it, against gptop's MatMul{bias} (the MatMul and its Add): ${2}s vs ${3}s per call: $r"
	set -- $(grep '^fc1 ' "$tmp/tgroups")
	r=$(tgrow "$4 applies in /enc/layers.0/  [A: 4 applies]")
	echo "$r" | grep -Eq "^ +${2}s +${3}s .* 3 +5 .* $4 applies in /enc/layers\.0/  \[A: 4 applies\]\$"
	ok $? "linear1: ORT's Gemm (MatMul and Add), its 2 Reshapes and Relu against gptop's MatMul and Add+Relu ($4 applies): ${2}s vs ${3}s: $r"
	set -- $(grep '^split ' "$tmp/tgroups")
	r=$(tgrow "GatherSliceToSplitFusion (3 sources)]")
	echo "$r" | grep -Eq "^ +${2}s +${3}s .* 3 +5 .* $4 applies in /enc/layers\.0/self_attn/  \[A: .*/Slice_2/GatherSliceToSplitFusion \(3 sources\)\]\$"
	ok $? "ORT's Split (named after Slice_2) against gptop's $4 Slices: ${2}s vs ${3}s: $r"
fi
if [ -z "$PY" ]; then
	skip 1 "no python3 to read the profile"
else
	want=$("$PY" -c '
import json, sys
ev = json.load(open(sys.argv[1]))
d = [e["dur"] for e in ev if e.get("cat") == "Node" and e["name"].endswith("_kernel_time") and e["args"]["op_name"] == "SkipLayerNormalization"]
runs = sum(1 for e in ev if e["name"] == "model_run")
print("%.3e" % (sum(d) / 1e6 / runs))' "$tfm/ort-profile.json")
	sed -n '/^Ops$/,/^Apply$/p' "$tmp/tdiff" |
	    grep -Eq "^ +${want}s +[0-9.e-]+s .* 3 +5 +[?~+-] +SkipLayerNormalization\$"
	ok $? "... Ops: ORT's SkipLayerNormalization ($want s per call) against gptop's Add and LayerNorm applies"
fi

# Profiles as ONNX Runtime writes them in other cases, made from the
# committed one by dropping events (python3): without model_run events
# (the runs' times are then the sums of their node events: 169+14+21,
# 86+12+11, 50+9+7 us), without session_initialization, of one run.
if [ -z "$PY" ]; then
	skip 4 "no python3 to make the variants"
else
	"$PY" - "$ort" "$tmp" <<'PYEOF'
import json, sys
ev = json.load(open(sys.argv[1]))
out = sys.argv[2]
def write(name, evs):
    with open(out + "/" + name, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in evs) + "\n]\n")
write("no-run.json", [e for e in ev if e["name"] != "model_run"])
write("no-init.json", [e for e in ev if e["name"] != "session_initialization"])
one, runs = [], 0
for e in ev:
    if runs == 1:
        break
    one.append(e)
    runs += e["name"] == "model_run"
write("one-run.json", one)
PYEOF
	"$GPTOP" --batch "$tmp/no-run.json" >"$tmp/rep" 2>"$tmp/err" &&
	    grep -q 'Time in 3 calls to Function.__call__: 3.790000e-04s' "$tmp/rep" &&
	    grep -q 'First call: 2.040000e-04s' "$tmp/rep"
	ok $? "no model_run events: 3 runs of 204, 109, 66 us (their nodes' times)"
	"$GPTOP" --batch "$tmp/no-init.json" >"$tmp/rep" 2>"$tmp/err" &&
	    grep -q 'Time in 3 calls to Function.__call__: 7.030000e-03s' "$tmp/rep"
	ok $? "no session_initialization: read as before"
	"$GPTOP" --batch "$tmp/one-run.json" >"$tmp/rep" 2>"$tmp/err" &&
	    grep -q 'Time in 1 calls to Function.__call__: 6.792000e-03s' "$tmp/rep" &&
	    grep -Eq ' 1\.690e-04s .* 1 +0 +/fc1/Gemm$' "$tmp/rep"
	ok $? "one run: 1 call of 6792 us, /fc1/Gemm 169 us"
	"$GPTOP" --batch --diff "$tmp/one-run.json" "$tmp/gp.json" >"$tmp/diff3" 2>"$tmp/err" &&
	    grep -q 'Grouped by source nodes: 3 groups (3 applies of A against 8 of B doing' "$tmp/diff3"
	ok $? "... its diff with the capture: the same 3 groups"
fi
"$GPTOP" --batch --diff "$srcdir/tests/capture/bad/ort-no-nodes.json" \
    "$tmp/gp.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q 'ort-no-nodes.json:1:1: an ONNX Runtime profile without node events' "$tmp/err"
ok $? "--diff with a profile without node events: exit 2, one line naming the file ($rc)"
exit $fail
