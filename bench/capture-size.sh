#!/bin/sh
# bench/capture-size.sh: what provenance adds to a capture's size (issue
# 22: under 10%).  Saves a capture of each example graph, each ONNX model
# of data/models, the 100,000-apply graph (as the capture row runs it,
# and with the default rewrites, which fuse) and the 10,000-op chain
# (fused: applies of 256 source nodes each), then writes the same capture
# without its provenance (every apply's "src", the top level's "sources"
# and "folded", as the writer lays them out; the rest byte for byte, and
# still a capture gptop loads) and prints both sizes and the growth.
# Run by `bench/run.sh capsize` and `make bench` (GPTOP: another gptop
# binary to measure, e.g. one before the runs of gptop-capture/4); needs
# Python 3.
set -e
: "${top_srcdir:=.}" "${top_builddir:=.}"
out="$top_builddir/bench/out"
gptop=${GPTOP:-$top_builddir/gptop}
gen="$top_builddir/bench/gen-graph"
mkdir -p "$out/capsize"
[ -s "$out/dag-100000.json" ] || "$gen" -k dag 100000 >"$out/dag-100000.json"
[ -s "$out/chain-10000.json" ] || "$gen" -k chain 10000 >"$out/chain-10000.json"
py=/usr/bin/python3
command -v "$py" >/dev/null || py=python3

# TAG LABEL FILE [GPTOP OPTIONS]: one capture and the same stripped
one() {
	tag=$1 label=$2 file=$3
	shift 3
	cap="$out/capsize/$tag.json"
	"$gptop" --batch -n 2 "$@" --save "$cap" "$file" >/dev/null
	"$py" - "$cap" "$out/capsize/$tag.noprov.json" "$label" <<'EOF'
import json, re, sys
src, dst, name = sys.argv[1:4]
text = open(src, encoding="utf-8").read()
# an apply's "src" (one apply per line); the top level's "sources" and
# "folded" (one member per line)
bare = re.sub(r'"src":\[(?:[0-9,]|\[[0-9,]*\])*\],', "", text)
bare = re.sub(r'\n "(sources|folded)": \[[^\n]*\],(?=\n)', "", bare)
doc = json.loads(bare)
left = [a for f in doc["functions"] for a in f["applies"] if "src" in a]
if left or "sources" in doc or "folded" in doc:
    sys.exit("capture-size: %s: provenance left after stripping" % src)
open(dst, "w", encoding="utf-8").write(bare)
a, b = len(text.encode()), len(bare.encode())
print("%-34s %12d %12d %+8.1f%%" % (name, a, b, 100.0 * (a - b) / b))
EOF
	# the stripped capture is still one (a version-2-like capture)
	"$gptop" --check "$out/capsize/$tag.noprov.json" >/dev/null
}

printf '%-34s %12s %12s %9s\n' capture "bytes" "no prov." growth
for g in add3 logreg mlp mlp32 chain cnn; do
	one "$g" "$g.json" "$top_srcdir/data/graphs/$g.json"
done
for m in mlp cnn transformer; do
	one "onnx-$m" "$m/model.onnx" "$top_srcdir/data/models/$m/model.onnx"
done
one dag-none "dag-100000.json, optimizer=None" "$out/dag-100000.json" \
    --flags optimizer=None
one dag "dag-100000.json, default rewrites" "$out/dag-100000.json"
one chain-10000 "chain-10000.json (fused)" "$out/chain-10000.json"
