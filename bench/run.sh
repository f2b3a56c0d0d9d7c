#!/bin/sh
# bench/run.sh: prepare the benchmark graphs and inputs and run every
# benchmark, printing one table (see bench/README.md).  Called by
# `make bench`; `bench/run.sh ROW` (via bench-core's row names) runs one.
set -e
: "${top_srcdir:=.}" "${top_builddir:=.}"
out="$top_builddir/bench/out"
mkdir -p "$out"
gen="$top_builddir/bench/gen-graph"
[ -s "$out/dag-100000.json" ] || "$gen" -k dag 100000 >"$out/dag-100000.json"
[ -s "$out/chain-10000.json" ] || "$gen" -k chain 10000 >"$out/chain-10000.json"
for f in add-10m sum-10m dot-1024 chain-10m; do
	cp "$top_srcdir/bench/data/$f.json" "$out/$f.json"
done

# Row 5's peer: Debian's numpy (/usr/bin/python3), installed when missing
# and we are root; otherwise the row is skipped with a message.
BENCH_PYTHON=
if [ $# -eq 0 ] || [ "$1" = numpy ]; then
	py=/usr/bin/python3
	if ! "$py" -c 'import numpy' 2>/dev/null; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			echo "bench: installing python3-numpy for the numpy row" >&2
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			    python3-numpy >&2 || true
		fi
	fi
	if "$py" -c 'import numpy' 2>/dev/null; then
		BENCH_PYTHON=$py
		for g in add3 logreg mlp chain; do
			"$top_builddir/bench/dump-inputs" \
			    "$top_srcdir/data/graphs/$g.json" "$out/npy/$g"
		done
	else
		echo "bench: no numpy for $py (apt-get install python3-numpy" \
		    "as root): row 5 (e2e) skipped" >&2
	fi
fi
# Row 6's interface figures: gptop's GPTOP_TUI_BENCH mode needs a
# terminal, so it runs in a detached tmux session on a private server
# (-L: other tmux sessions are left alone), idles for $idle seconds, writes
# its figures and quits; bench-core reads them and measures batch mode.
BENCH_TUI=
if [ $# -eq 0 ] || [ "$1" = tui ]; then
	if command -v tmux >/dev/null; then
		tuif="$out/tui-bench.txt"
		sock="gptop-bench-$$"
		idle=8
		rm -f "$tuif"
		"$top_builddir/bench/bench-core" tui-batch 5 >>"$tuif"
		tmux -L "$sock" new-session -d -x 160 -y 50 \
		    "GPTOP_TUI_BENCH='$tuif' GPTOP_TUI_BENCH_IDLE=$idle \
		    '$top_builddir/gptop' --flags optimizer=None \
		    '$out/dag-100000.json'"
		i=0
		while [ $i -lt 240 ] && ! grep -q '^rounds_per_s' "$tuif" \
		    2>/dev/null; do
			sleep 0.5
			i=$((i + 1))
		done
		tmux -L "$sock" kill-server 2>/dev/null || true
		rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
		"$top_builddir/bench/bench-core" tui-batch 5 >>"$tuif"
		BENCH_TUI=$tuif
	else
		echo "bench: no tmux: the interface rows are skipped" >&2
	fi
fi
# The ONNX rows' peers and models (bench/README.md, "ONNX rows"): Debian's
# torch, torchvision and onnx export the models (bench/onnx/export.py) and
# are the torch-eager peer; ONNX Runtime is npm's onnxruntime-node, pinned,
# installed into bench/out with --ignore-scripts (its CPU library ships in
# the package).  Each is installed when missing (apt-get only as root);
# without torch the rows are skipped, without node the ORT peer is.
ORT_VERSION=1.30.0
ONNX_ROWS= ORT_DIR= TORCH= status=0
if [ $# -eq 0 ] || [ "$1" = onnx ]; then
	py=/usr/bin/python3
	if ! "$py" -c 'import torch, torchvision, onnx' 2>/dev/null &&
	    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "bench: installing python3-torch, python3-torchvision and" \
		    "python3-onnx for the ONNX rows" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		    python3-torch python3-torchvision python3-onnx >&2 || true
	fi
	if "$py" -c 'import torch, torchvision, onnx' 2>/dev/null; then
		# (torch's exporter warns about the transformer's fast path)
		if "$py" "$top_srcdir/bench/onnx/export.py" "$out/onnx" \
		    >"$out/export.log" 2>&1; then
			grep '^export.py' "$out/export.log" >&2 || true
			ONNX_ROWS=1 TORCH=--torch
		else
			cat "$out/export.log" >&2
			echo "bench: export.py failed: the ONNX rows are skipped" >&2
			status=1
		fi
	else
		echo "bench: no torch, torchvision or onnx for $py (apt-get" \
		    "install python3-torch python3-torchvision python3-onnx as" \
		    "root): the ONNX rows are skipped" >&2
	fi
	if [ -n "$ONNX_ROWS" ] && command -v node >/dev/null &&
	    command -v npm >/dev/null; then
		ortpkg=$out/node_modules/onnxruntime-node/package.json
		if ! grep -q "\"version\": \"$ORT_VERSION\"" "$ortpkg" \
		    2>/dev/null; then
			echo "bench: installing onnxruntime-node@$ORT_VERSION" \
			    "into $out (npm install --ignore-scripts)" >&2
			[ -f "$out/package.json" ] ||
			    echo '{ "private": true }' >"$out/package.json"
			(cd "$out" && npm install --ignore-scripts --no-audit \
			    --no-fund "onnxruntime-node@$ORT_VERSION" >&2) || true
		fi
		if BENCH_ORT_DIR=$out node "$top_srcdir/bench/onnx/ort-bench.js" \
		    "$out/onnx/mlp/model.onnx" --compare \
		    "$out/onnx/mlp/test_data_set_0" >/dev/null; then
			ORT_DIR=$out
		else
			echo "bench: onnxruntime-node does not load or run:" \
			    "the ONNX Runtime peer is skipped" >&2
		fi
	elif [ -n "$ONNX_ROWS" ]; then
		echo "bench: no node/npm: the ONNX Runtime peer is skipped" >&2
	fi
fi
export top_srcdir top_builddir BENCH_PYTHON BENCH_TUI
# the figures depend on what else runs: say so above the table
echo "machine: $(nproc 2>/dev/null || echo '?') cores, load average" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') before the run"
# `run.sh capsize`: only what provenance adds to captures (issue 22)
if [ "$1" = capsize ]; then
	top_srcdir=$top_srcdir top_builddir=$top_builddir \
	    sh "$top_srcdir/bench/capture-size.sh"
	exit $?
fi
# `run.sh onnx` needs the machine's peak (the sgemm row) for its GFLOP/s
core=$1
[ "$1" = onnx ] && core=sgemm
{
	rc=0
	"$top_builddir/bench/bench-core" ${core:+"$core"} || rc=$?
	echo $rc >"$out/core.rc"
} | tee "$out/core.txt"
[ "$(cat "$out/core.rc")" = 0 ] || status=1
if [ -n "$ONNX_ROWS" ]; then
	peak=$(awk '$1 == "sgemm" && /peak/ { for (i = 1; i <= NF; i++)
	    if ($i == "GF/s") print $(i - 1) }' "$out/core.txt")
	/usr/bin/python3 "$top_srcdir/bench/onnx/bench.py" --out "$out/onnx" \
	    --gptop "$top_builddir/gptop" ${ORT_DIR:+--ort-dir "$ORT_DIR"} \
	    $TORCH ${peak:+--peak "$peak"} \
	    ${BENCH_ORT_NO_SPIN:+--ort-no-spin} || status=$?
fi
if [ $# -eq 0 ] || [ "$1" = extern ]; then
	echo
	echo "extern ops: ns per element, ffi_call vs the direct route vs a plain C call"
	"$top_builddir/bench/bench-extern"
fi
if [ $# -eq 0 ]; then
	echo
	echo "capture size: what provenance adds (bench/capture-size.sh)"
	top_srcdir=$top_srcdir top_builddir=$top_builddir \
	    sh "$top_srcdir/bench/capture-size.sh" || status=1
fi
exit $status
