#!/bin/sh
# index-errors.sh: an index out of range, met by an index op's kernel
# (src/ops/index.c) while a graph runs, ends gptop with status 2 and one
# line on stderr naming the apply (FILE:LINE:COL of its node, its Op name
# and inputs), the index's position in the indices and the valid range;
# the same graphs with the index in range (negative ones included) run,
# and a graph using top_k's two outputs and cumsum gives the values
# worked out by hand in the comment below.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp index-errors

# graph OP PARAMS INDICES-SHAPE INDICES [UPDATES-SHAPE]: writes $tmp/g.json,
# x a float32 (2, 3) arange, the node on line 10
graph() {
	upd=
	ins='"x", "i"'
	if [ -n "$5" ]; then
		upd=", \"u\": {\"kind\": \"input\", \"dtype\": \"float32\", \"shape\": $5}"
		ins='"x", "i", "u"'
	fi
	cat >"$tmp/g.json" <<EOT
{
  "format": "gptop-graph/1",
  "variables": {
    "x": {"kind": "input", "dtype": "float32", "shape": [2, 3],
          "init": {"arange": [0, 1]}},
    "i": {"kind": "input", "dtype": "int32", "shape": $3,
          "init": {"values": $4}}$upd
  },
  "nodes": [
    {"op": "$1", "inputs": [$ins], "outputs": ["y"], "params": $2}
  ],
  "functions": {"f": {"outputs": ["y"]}}
}
EOT
}

# bad WHAT: the run of $tmp/g.json fails with status 2 and one stderr line
# holding each of the following arguments
bad() {
	what=$1
	shift
	"$GPTOP" --batch -n 1 "$tmp/g.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	good=0
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || good=1
	grep -q -e Sanitizer -e 'runtime error' "$tmp/err" && good=1
	for s in "$@"; do
		grep -qF -e "$s" "$tmp/err" || good=1
	done
	ok $good "$what: status 2, one line naming the apply (status $rc)"
	[ $good -eq 0 ] || sed 's/^/# /' "$tmp/err"
}

runs() {
	"$GPTOP" --batch -n 1 "$tmp/g.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && grep -qF -e "$2" "$tmp/out"
	ok $? "$1 (status $rc)"
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err"
}

graph gather_elements '{"axis": 1}' '[2, 2]' '[[0, 2], [1, 3]]'
bad "gather_elements, index 3 on an axis of 3" \
    "g.json:10:5: apply GatherElements{axis=1}(x, i)" \
    "index 3 at indices[1, 1] is out of range for axis 1 of size 3" \
    "(valid: -3 to 2)"
# the same in an ONNX model (tests/data/index/make-onnx.py): the model's
# file and the node's name
"$GPTOP" --batch -n 1 --input "i=$top_srcdir/tests/data/index/gather-elements-i.npy" \
    "$top_srcdir/tests/data/index/gather-elements.onnx" >"$tmp/out" 2>"$tmp/err"
rc=$?
good=0
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || good=1
for s in "gather-elements.onnx: apply GatherElements{axis=1}(x, i) (node 'ge')" \
    "index 5 at indices[0, 1] is out of range for axis 1 of size 3"; do
	grep -qF -e "$s" "$tmp/err" || good=1
done
ok $good "ONNX GatherElements, index 5 on an axis of 3: status 2, one line naming the model and the node (status $rc)"
[ $good -eq 0 ] || sed 's/^/# /' "$tmp/err"
graph gather_elements '{"axis": 1}' '[2, 2]' '[[0, -3], [1, -1]]'
runs "gather_elements, indices in range" "first=[0, 0, 4, 5]"
graph gather_elements '{"axis": 0}' '[1, 3]' '[[0, -3, 1]]'
bad "gather_elements, index -3 on an axis of 2" \
    "apply GatherElements{axis=0}(x, i)" \
    "index -3 at indices[0, 1] is out of range for axis 0 of size 2"
graph scatter_elements '{"axis": 1, "reduction": "add"}' '[1, 2]' \
    '[[0, 7]]' '[1, 2]'
bad "scatter_elements add, index 7" \
    "g.json:10:5: apply ScatterElements{axis=1,add}(x, i, u)" \
    "index 7 at indices[0, 1] is out of range for axis 1 of size 3"
graph gather_nd '{}' '[2, 2]' '[[0, 1], [2, 0]]'
bad "gather_nd, a coordinate past axis 0" \
    "apply GatherND(x, i)" \
    "index 2 at indices[1, 0] is out of range for axis 0 of size 2"
graph scatter_nd '{}' '[1, 2]' '[[1, -4]]' '[1]'
bad "scatter_nd, a coordinate before axis 1" \
    "apply ScatterND(x, i, u)" \
    "index -4 at indices[0, 1] is out of range for axis 1 of size 3"

# top_k's two outputs, then cumsum reversed: x = [[1, 5, 5], [4, 2, 6]];
# the 2 largest per row: [[5, 5], [6, 4]] at [[1, 2], [2, 0]] (the tie
# by the lower index); reversed running sums: [[10, 5], [10, 4]]
cat >"$tmp/g.json" <<'EOT'
{
  "format": "gptop-graph/1",
  "variables": {
    "x": {"kind": "input", "dtype": "float32", "shape": [2, 3],
          "init": {"values": [[1, 5, 5], [4, 2, 6]]}}
  },
  "nodes": [
    {"op": "top_k", "inputs": ["x"], "outputs": ["v", "ix"],
     "params": {"k": 2}},
    {"op": "cumsum", "inputs": ["v"], "outputs": ["c"],
     "params": {"axis": 1, "reverse": true}}
  ],
  "functions": {"f": {"outputs": ["c", "ix"]}}
}
EOT
runs "top_k then cumsum: the sums" "output c: float32(2, 2) sum=29 min=4 max=10 first=[10, 5, 10, 4]"
runs "top_k: the indices" "output ix: int64(2, 2) sum=5 min=0 max=2 first=[1, 2, 2, 0]"

echo "1..$n"
exit $fail
