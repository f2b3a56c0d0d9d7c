#!/bin/sh
# bench/run.sh: prepare the benchmark graphs and run every benchmark,
# printing one table (see bench/README.md).  Called by `make bench`.
set -e
: "${top_srcdir:=.}" "${top_builddir:=.}"
out="$top_builddir/bench/out"
mkdir -p "$out"
gen="$top_builddir/bench/gen-graph"
[ -s "$out/dag-100000.json" ] || "$gen" -k dag 100000 >"$out/dag-100000.json"
[ -s "$out/chain-10000.json" ] || "$gen" -k chain 10000 >"$out/chain-10000.json"
for f in add-10m sum-10m dot-1024; do
	cp "$top_srcdir/bench/data/$f.json" "$out/$f.json"
done
export top_srcdir top_builddir
"$top_builddir/bench/bench-core" "$@"
if [ $# -eq 0 ] || [ "$1" = extern ]; then
	echo
	echo "extern ops: ns per element, ffi_call vs the direct route vs a plain C call"
	"$top_builddir/bench/bench-extern"
fi
