#!/bin/sh
# run-cli.sh: captures, merge, diff and exports through the gptop binary:
# the report of a loaded capture is the report of the run that saved it;
# two halves merged count what one run counts; a capture diffed with itself
# is all zeros and "~"; with and without fusion, the diff pairs what did not
# change and lists the fused apply as added and the ones it replaced as
# removed; traces and CSV files have the events and rows they should; an
# interrupted batch run still writes its report and capture, and exits
# 128 + the signal; the examples of doc/capture-format.md load; the Memory
# Profile section of a capture is the run's, and merge keeps it.  TAP
# output; skips while gptop is not built.
# Environment (set by make check): top_srcdir, GPTOP.

srcdir=${top_srcdir:-$(dirname "$0")/../..}
GPTOP=${GPTOP:-./gptop}
graphs=$srcdir/data/graphs
partial=$srcdir/tests/capture/partial.json
nofusion=--flags=optimizer_excluding=fusion

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

n=0
fail=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
		[ -s "$tmp/err" ] && sed 's/^/#   stderr: /' "$tmp/err" | head -5
	fi
}

# The report part of a batch run's output.
report() {
	sed -n '/^Function profiling/,$p' "$1"
}

# Each apply line of a capture: "calls total".
counters() {
	grep '^   {"id":' "$1" |
	    sed 's/.*"calls":\([0-9]*\),"total":\([0-9]*\),.*/\1 \2/'
}

# 1-3. save, then report the capture
"$GPTOP" --batch -n 5 $nofusion --save "$tmp/run.json" "$partial" \
    >"$tmp/run.out" 2>"$tmp/err"
check $? "--save writes a capture"
[ -s "$tmp/run.json" ] && [ "$(ls -A "$tmp" | grep -c '^\.')" -eq 0 ]
check $? "the capture is there, and no temporary file"
"$GPTOP" --batch "$tmp/run.json" >"$tmp/load.out" 2>"$tmp/err"
check $? "gptop --batch CAPTURE reports it"
report "$tmp/run.out" >"$tmp/a"
report "$tmp/load.out" >"$tmp/b"
[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"
check $? "the same report as the run that saved it, to the byte"
sed 's/[0-9][0-9.]*e[-+][0-9]*s/T/g' "$tmp/a" >"$tmp/am"
sed 's/[0-9][0-9.]*e[-+][0-9]*s/T/g' "$tmp/b" >"$tmp/bm"
cmp -s "$tmp/am" "$tmp/bm"
check $? "and with the times masked"
"$GPTOP" --check "$tmp/run.json" >"$tmp/out" 2>"$tmp/err" &&
    grep -q "capture of graph partial is valid" "$tmp/out"
check $? "--check validates a capture"

# 4-7. merge two halves
"$GPTOP" --batch -n 5 $nofusion --save "$tmp/h1.json" "$partial" \
    >/dev/null 2>"$tmp/err" &&
    "$GPTOP" --batch -n 5 $nofusion --save "$tmp/h2.json" "$partial" \
    >/dev/null 2>"$tmp/err" &&
    "$GPTOP" --batch -n 10 $nofusion --save "$tmp/one.json" "$partial" \
    >/dev/null 2>"$tmp/err"
check $? "two runs of 5 calls and one of 10"
"$GPTOP" merge "$tmp/h1.json" "$tmp/h2.json" -o "$tmp/m.json" \
    >"$tmp/out" 2>"$tmp/err"
check $? "gptop merge"
counters "$tmp/h1.json" >"$tmp/c1"
counters "$tmp/h2.json" >"$tmp/c2"
counters "$tmp/m.json" >"$tmp/cm"
counters "$tmp/one.json" >"$tmp/c10"
[ -s "$tmp/cm" ] && paste -d ' ' "$tmp/c1" "$tmp/c2" "$tmp/cm" "$tmp/c10" |
    awk '$1 + $3 != $5 || $2 + $4 != $6 || $5 != $7 { bad = 1 }
        END { exit bad }'
check $? "merged calls equal one 10-call run's, totals the sum of the halves"
"$GPTOP" --batch "$tmp/m.json" >"$tmp/out" 2>"$tmp/err" &&
    grep -q "Time in 10 calls" "$tmp/out"
check $? "the merged capture reports 10 calls"
"$GPTOP" --batch -n 5 --save "$tmp/fused.json" "$partial" \
    >/dev/null 2>"$tmp/err"
"$GPTOP" merge "$tmp/h1.json" "$tmp/fused.json" -o "$tmp/x.json" \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "do not belong together: different" "$tmp/err" &&
    [ ! -e "$tmp/x.json" ]
check $? "merge refuses another rewrite set, with the reason"
"$GPTOP" --batch -n 2 --save "$tmp/add3.json" "$graphs/add3.json" \
    >/dev/null 2>"$tmp/err"
"$GPTOP" merge "$tmp/h1.json" "$tmp/add3.json" -o "$tmp/x.json" \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "different graphs" "$tmp/err"
check $? "merge refuses another graph"
# a total merged past 2^63 ns cannot be written (the writer would cap it
# at INT64_MAX, which the reader refuses): the merge refuses it
sed 's/"total":4832,/"total":5000000000000000000,/' \
    "$srcdir/tests/capture/good.capture.json" >"$tmp/big.json"
"$GPTOP" --batch "$tmp/big.json" >/dev/null 2>&1 &&
"$GPTOP" merge "$tmp/big.json" "$tmp/big.json" -o "$tmp/x.json" \
    >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "merged functions\[0\].applies\[0\].total would be 2^63 ns or more" "$tmp/err" &&
    [ ! -e "$tmp/x.json" ]
check $? "merge refuses a total of 2^63 ns or more"

# 8-9. a capture diffed with itself
"$GPTOP" --batch --diff "$tmp/run.json" "$tmp/run.json" >"$tmp/d.out" \
    2>"$tmp/err"
check $? "--diff A A"
awk '/^(Class|Ops|Apply)$/ { on = 1 }
    on && /^ +([0-9.e+-]+s|-) +([0-9.e+-]+s|-) +[-+]/ {
	rows++
	if ($3 != "+0.000e+00s" || $0 !~ / ~ /) bad = 1
    }
    END { exit bad || rows == 0 }' "$tmp/d.out"
check $? "every delta zero and marked ~"

# 10-12. with and without fusion
"$GPTOP" --batch --diff "$tmp/h1.json" "$tmp/fused.json" >"$tmp/d.out" \
    2>"$tmp/err"
check $? "--diff without fusion, with fusion"
grep -q "Applies: 2 paired .*, 0 added, 0 removed" "$tmp/d.out" &&
    grep -q "Grouped by source nodes: 1 group (3 applies of A against 1 of B" \
    "$tmp/d.out" && grep -q ' (3 sources)  \[A: 3 applies\]$' "$tmp/d.out"
check $? "two applies paired, the fused one grouped with the three it replaced (provenance)"
dot=$(grep '  Dot22(x, W)$' "$tmp/d.out" | tail -1)
[ -n "$dot" ] && ! echo "$dot" | grep -q " added \| removed " &&
    grep -q " added  *Elemwise{Composite{" "$tmp/d.out" &&
    grep -q " removed  *Elemwise{tanh}" "$tmp/d.out"
check $? "the dot paired, the Composite added, tanh removed"
"$GPTOP" --batch -n 3 --diff "$tmp/h1.json" "$partial" >"$tmp/out" \
    2>"$tmp/err" && grep -q "^Apply$" "$tmp/out"
check $? "--diff a capture and a graph (run with -n)"

# 13-17. exports
"$GPTOP" --batch -n 5 $nofusion --trace-calls 3 \
    --export-trace "$tmp/t.json" --export-csv "$tmp/a.csv" \
    --export-csv-ops "$tmp/o.csv" "$partial" >/dev/null 2>"$tmp/err"
check $? "--export-trace, --export-csv, --export-csv-ops"
[ "$(grep -c '"ph":"X"' "$tmp/t.json")" -eq 18 ] &&
    [ "$(grep -c '"ph":"C"' "$tmp/t.json")" -eq 15 ] &&
    [ "$(grep -c '"ph":"M"' "$tmp/t.json")" -eq 3 ] &&
    head -c 40 "$tmp/t.json" | grep -q '^{"displayTimeUnit":"ns","traceEvents":'
check $? "trace: 3 calls x (1 + 5 applies) slices, 15 counters, 3 names"
[ "$(head -1 "$tmp/a.csv" | tr -d '\r')" = "function,id,name,op,class,impl,pct,cum_pct,time_ns,per_call_ns,median_ns,p95_ns,min_ns,max_ns,calls,mflops,gflops_per_s,flops,signature,sources" ] &&
    [ "$(wc -l <"$tmp/a.csv")" -eq 6 ] && [ "$(wc -l <"$tmp/o.csv")" -eq 6 ]
check $? "CSV: the header, one row per apply and per op"
"$GPTOP" --batch --export-csv "$tmp/b.csv" "$tmp/one.json" >/dev/null \
    2>"$tmp/err" && [ "$(wc -l <"$tmp/b.csv")" -eq 6 ]
check $? "CSV from a capture"
# provenance (doc/capture-format.md): the Composite of chain.json does
# the work of its 10 nodes (JSON indices 0 to 9, unnamed), in the capture
# (one run, [0, 9]), the CSV read from it and the trace
"$GPTOP" --batch -n 1 --save "$tmp/prov.json" --export-trace "$tmp/pt.json" \
    "$graphs/chain.json" >/dev/null 2>"$tmp/err" &&
    grep -q '"src":\[\[0,9\]\]' "$tmp/prov.json" &&
    grep -q '"sources":\["#0","#1","#2","#3","#4","#5","#6","#7","#8","#9"\]' \
    "$tmp/pt.json" &&
    "$GPTOP" --batch --export-csv "$tmp/prov.csv" "$tmp/prov.json" \
    >/dev/null 2>"$tmp/err" &&
    tail -1 "$tmp/prov.csv" | tr -d '\r' |
    grep -q ',"#0, #1, #2, #3, #4, #5, #6, #7, #8, #9"$'
check $? "provenance: chain.json's Composite carries its 10 source nodes (capture, CSV from it, trace)"
# an ONNX model's source nodes are its nodes, by name: the capture names
# them, and the Alloc gptop makes for /fc1/Gemm's output does its work
"$GPTOP" --batch -n 1 --save "$tmp/onnx.json" \
    "$srcdir/data/models/mlp/model.onnx" >/dev/null 2>"$tmp/err" &&
    grep -q '^ "sources": \["/fc1/Gemm","/Relu","/fc2/Gemm","/Softmax"\],$' \
    "$tmp/onnx.json" &&
    "$GPTOP" --batch --export-csv "$tmp/onnx.csv" "$tmp/onnx.json" \
    >/dev/null 2>"$tmp/err" &&
    grep -q '^run,[0-9]*,/fc1/Gemm/alloc,.*,/fc1/Gemm' "$tmp/onnx.csv"
check $? "provenance: an ONNX model's nodes by name, its pieces doing their node's work"
"$GPTOP" --batch --export-trace "$tmp/x.json" "$tmp/one.json" >/dev/null \
    2>"$tmp/err"
[ $? -eq 2 ] && grep -q "needs a run" "$tmp/err"
check $? "no trace from a capture: it keeps no trace of its calls"

# 18-21. interrupted runs
for sig in INT TERM; do
	rm -f "$tmp/s.json"
	"$GPTOP" --batch -n 2000000000 --save "$tmp/s.json" \
	    "$graphs/add3.json" >"$tmp/s.out" 2>"$tmp/err" &
	pid=$!
	sleep 2
	kill -$sig $pid
	wait $pid
	rc=$?
	want=130
	[ $sig = TERM ] && want=143
	[ $rc -eq $want ]
	check $? "SIG$sig: exit status $rc (expected $want)"
	grep -q '^Function profiling' "$tmp/s.out" &&
	    "$GPTOP" --batch "$tmp/s.json" >/dev/null 2>"$tmp/err"
	check $? "SIG$sig: the report and the capture of what ran are written"
done

# 22-23. the examples of doc/capture-format.md load
for ex in minimal full; do
	awk -v want="## A $ex capture" '
	    $0 == want { on = 1; next }
	    on && /^```json/ { code = 1; next }
	    code && /^```/ { exit }
	    code { print }' "$srcdir/doc/capture-format.md" >"$tmp/ex.json"
	[ -s "$tmp/ex.json" ] &&
	    "$GPTOP" --batch "$tmp/ex.json" >"$tmp/out" 2>"$tmp/err" &&
	    grep -q '^Apply$' "$tmp/out"
	check $? "the $ex capture of doc/capture-format.md loads"
done

# 30-34. the memory profile: a run's Memory Profile section comes back from
# its capture (times masked), and a merge keeps it
memory() {
	sed -n '/^Memory Profile/,/^$/p' "$1" |
	    sed 's/took [^ ]* to compute/took T to compute/'
}
memflags=--flags=optimizer_excluding=fusion,profile_memory=True
memflags=$memflags,profiling__min_peak_memory=True
"$GPTOP" --batch -n 5 $memflags --save "$tmp/mem.json" "$partial" \
    >"$tmp/mem.out" 2>"$tmp/err" && grep -q '"memory":{' "$tmp/mem.json"
check $? "a run with profile_memory saves its memory profile"
"$GPTOP" --batch "$tmp/mem.json" >"$tmp/memload.out" 2>"$tmp/err"
check $? "and reports from its capture"
memory "$tmp/mem.out" >"$tmp/a"
memory "$tmp/memload.out" >"$tmp/b"
grep -q "Minimum intermediates peak from all valid" "$tmp/a" &&
    grep -q "Predicted peak" "$tmp/a" && cmp -s "$tmp/a" "$tmp/b"
check $? "the Memory Profile section from the capture is the run's, to the byte (times masked)"
for c in h1 h2 m; do
	"$GPTOP" --batch --flags=profile_memory=True "$tmp/$c.json" \
	    >"$tmp/$c.mem" 2>"$tmp/err" || break
done
check $? "the two halves and their merge report their memory profiles"
# the measured peak's bytes: "...run): 48.3KiB (49432 B): ..." or "656 B: ..."
peak() {
	memory "$1" | grep 'Measured peak' | sed 's/^[^)]*)//' |
	    grep -o '[0-9][0-9]* B' | head -1 | sed 's/ B$//'
}
memory "$tmp/h1.mem" | grep -v "Measured peak" >"$tmp/a"
memory "$tmp/m.mem" | grep -v "Measured peak" >"$tmp/b"
p1=$(peak "$tmp/h1.mem")
p2=$(peak "$tmp/h2.mem")
pm=$(peak "$tmp/m.mem")
grep -q "Predicted peak" "$tmp/b" && cmp -s "$tmp/a" "$tmp/b" &&
    [ -n "$p1" ] && [ -n "$p2" ] &&
    [ "$pm" = "$(printf '%s\n%s\n' "$p1" "$p2" | sort -n | tail -1)" ]
check $? "merge keeps the prediction and the larger measured peak ($p1, $p2: $pm)"

echo "1..$n"
[ "$fail" -eq 0 ]
