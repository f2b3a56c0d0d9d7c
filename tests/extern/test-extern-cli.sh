#!/bin/sh
# tests/extern/test-extern-cli.sh: the extern op through the gptop binary:
# data/graphs/extern.json is refused without --allow-extern (exit 2, one
# message naming the file, library and symbol, saying how to allow it) and
# runs with it, with the flag allow_extern=True, or from GPTOP_FLAGS; a
# library path is resolved against the graph's folder, not the current
# directory; load-time errors exit 2 with file:line:col.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
graph=$top_srcdir/data/graphs/extern.json
lib=$top_builddir/tests/extern/libgptest.so

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
if [ ! -f "$lib" ]; then
	echo "1..0 # SKIP $lib not built"
	exit 0
fi

. "$top_srcdir/tests/tap.sh"
tap_tmp extern

# run ARGS...: sets rc, out, err
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

has() {
	grep -F -q -e "$1" "$2"
	echo $?
}

# Refused without permission.
run env GPTOP_FLAGS= "$GPTOP" --batch -n 1 "$graph"
ok $([ "$rc" = 2 ]; echo $?) "refused without --allow-extern: exit 2 (got $rc)"
ok $([ "$(wc -l <"$tmp/err")" -eq 1 ]; echo $?) "one message"
ok $(has "--allow-extern" "$tmp/err") "the message says how to allow it"
ok $(has "'erf'" "$tmp/err") "the message names the symbol"
ok $(has "'libm.so.6'" "$tmp/err") "the message names the library"
ok $(has "extern.json:" "$tmp/err") "the message names the file"
ok $([ ! -s "$tmp/out" ]; echo $?) "nothing on stdout"

# Allowed three ways.
run env GPTOP_FLAGS= "$GPTOP" --batch -n 2 --allow-extern "$graph"
ok $([ "$rc" = 0 ]; echo $?) "runs with --allow-extern (got $rc: $(head -c 300 "$tmp/err"))"
ok $(has "Extern{erf: double(double)}" "$tmp/out") "the report names Extern{erf: double(double)}"
ok $(has "Extern{fma: double(double, double, double)}" "$tmp/out") \
    "and the three-argument fma"
run env GPTOP_FLAGS=allow_extern=True "$GPTOP" --batch -n 1 "$graph"
ok $([ "$rc" = 0 ]; echo $?) "runs with GPTOP_FLAGS=allow_extern=True"
run env GPTOP_FLAGS= "$GPTOP" --batch -n 1 --flags allow_extern=True "$graph"
ok $([ "$rc" = 0 ]; echo $?) "runs with --flags allow_extern=True"

# A library path relative to the graph's folder, run from elsewhere.
mkdir "$tmp/g" "$tmp/elsewhere"
cp "$lib" "$tmp/g/libgptest.so"
cat >"$tmp/g/rel.json" <<'JSON'
{
  "format": "gptop-graph/1",
  "name": "rel",
  "variables": {
    "x": {"kind": "input", "dtype": "float64", "shape": [10], "init": {"uniform": [0, 1], "seed": 1}}
  },
  "nodes": [
    {"op": "extern", "inputs": ["x"], "outputs": ["s"],
     "params": {"lib": "./libgptest.so", "symbol": "gpt_sq", "signature": "double(double)"}},
    {"op": "extern", "inputs": ["s"], "outputs": ["c"],
     "params": {"lib": "./libgptest.so", "symbol": "gpt_prefix_sum",
                "signature": "void(const double *, int64_t, double *, int64_t)",
                "mode": "kernel", "shape": "like:0"}}
  ],
  "functions": {"f": {"outputs": ["c"]}}
}
JSON
(cd "$tmp/elsewhere" && run env GPTOP_FLAGS= "$GPTOP" --batch -n 1 \
    --allow-extern ../g/rel.json; echo "$rc" >"$tmp/rc")
ok $([ "$(cat "$tmp/rc")" = 0 ]; echo $?) \
    "./libgptest.so is found next to the graph, from another directory ($(head -c 300 "$tmp/err"))"
ok $(has "Extern{gpt_prefix_sum: void(const double *, int64_t, double *, int64_t)}" "$tmp/out") \
    "a kernel-mode apply in the report"
sed 's|"./libgptest.so"|"libgptest.so"|' "$tmp/g/rel.json" >"$tmp/g/bare.json"
(cd "$tmp/g" && run env GPTOP_FLAGS= "$GPTOP" --batch -n 1 \
    --allow-extern bare.json; echo "$rc" >"$tmp/rc")
ok $([ "$(cat "$tmp/rc")" = 2 ]; echo $?) \
    "a bare soname is not looked up in the current directory"

# Load-time errors: exit 2, one line, file:line:col.
err_case() {	# name, params JSON, expected text
	cat >"$tmp/g/$1.json" <<JSON
{
  "format": "gptop-graph/1",
  "name": "$1",
  "variables": {
    "x": {"kind": "input", "dtype": "float64", "shape": [10], "init": {"uniform": [0, 1], "seed": 1}}
  },
  "nodes": [
    {"op": "extern", "inputs": ["x"], "outputs": ["y"],
     "params": $2}
  ],
  "functions": {"f": {"outputs": ["y"]}}
}
JSON
	run env GPTOP_FLAGS= "$GPTOP" --batch -n 1 --allow-extern \
	    "$tmp/g/$1.json"
	ok $([ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	    grep -F -q -e "$1.json:" "$tmp/err" &&
	    grep -F -q -e "$3" "$tmp/err"; echo $?) \
	    "$1: exit 2 (got $rc), one line with file and '$3' ($(cat "$tmp/err"))"
}
err_case nolib '{"lib": "libgptop-none.so.1", "symbol": "erf", "signature": "double(double)"}' \
    "cannot load 'libgptop-none.so.1'"
err_case nosym '{"lib": "libm.so.6", "symbol": "gptop_nothing", "signature": "double(double)"}' \
    "no symbol 'gptop_nothing'"
err_case badsig '{"lib": "libm.so.6", "symbol": "erf", "signature": "double(double"}' \
    "cannot parse"
err_case badtype '{"lib": "libm.so.6", "symbol": "erfl", "signature": "long double(long double)"}' \
    "unsupported type 'long double'"
err_case arity '{"lib": "libm.so.6", "symbol": "pow", "signature": "double(double, double)"}' \
    "takes 2 arguments"
err_case badmode '{"lib": "libm.so.6", "symbol": "erf", "signature": "double(double)", "mode": "scan"}' \
    "param 'mode'"
err_case badshape '{"lib": "libm.so.6", "symbol": "erf", "signature": "double(double)", "shape": "like:3"}' \
    "names input 3"

echo "1..$n"
exit $fail
