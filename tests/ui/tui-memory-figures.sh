#!/bin/sh
# tui-memory-figures.sh: one meaning per memory figure, the same number
# wherever its name shows (doc/memory.md, "The figures and their names").
# One run of chain.json without fusion saves a capture; its batch report,
# the capture's report, the --diff of the capture, and the interface on
# the capture (header, Memory view, Summary view) must show the same
# Measured peak, Predicted peak and Intermediates peak, and these must be
# the values computed by hand from the graph:
#   x: 1,000,000 float64 = 8,000,000 B; five float64 constants = 40 B;
#   apply 0 creates a1 (8,000,000 B), the nine others overwrite it.
#   Intermediates peak: a1 alone, 8,000,000 B.
#   First call, during apply 0: x + constants + a1 = 16,000,040 B.
#   Later calls, during apply 0: the output of the previous call is still
#   held, so x + constants + that + a1 = 24,000,040 B.
#   Nothing outside the program: the session's pristine copy shares x and
#   the constants.
# So 10 calls measure and predict 24,000,040 B (22.9MiB) and one call
# 16,000,040 B (15.3MiB).  The interface running the graph live (its
# calls on the worker thread) measures the same as the batch run; and
# mlp.json, whose pristine copy holds its shared variables apart
# (784x512 + 512 + 512x512 + 512 + 512x10 + 10 float64 = 5,357,648 B).
. "$top_srcdir/tests/ui/tui-lib.sh"

FL=--flags=optimizer_excluding=fusion,profile_memory=True
T=$TUI_TMP
echo "1..24"

# "NAME ...: 22.9MiB (24000040 B)..." -> "22.9MiB 24000040", the line
# starting with NAME (after blanks) in report FILE.
fig() {
	sed -n "s/^ *$2[^:]*: \([0-9.]*[KMG]iB\) (\([0-9]*\) B).*/\1 \2/p" \
	    "$1" | head -n 1
}
# The A and B columns of the --diff row NAME.
diffrow() {
	sed -n "s/^ *$2  *\([0-9.]*[KMG]*i*B\)  *\([0-9.]*[KMG]*i*B\) .*/\1 \2/p" \
	    "$1" | head -n 1
}
human() {
	echo "${1% *}"
}

"$GPTOP" --batch -n 10 "$FL" --save "$T/c10.json" \
    "$GRAPHS/chain.json" >"$T/run.out" 2>"$T/err"
"$GPTOP" --batch "$T/c10.json" >"$T/cap.out" 2>>"$T/err"
"$GPTOP" --batch --diff "$T/c10.json" "$T/c10.json" >"$T/diff.out" \
    2>>"$T/err"
meas=$(fig "$T/run.out" 'Measured peak')
pred=$(fig "$T/run.out" 'Predicted peak')
inter=$(fig "$T/run.out" 'Intermediates peak with current setting')
check "10 calls: measured peak 24,000,040 B, by hand ($meas)" \
    test "$meas" = "22.9MiB 24000040"
check "10 calls: predicted peak the same ($pred)" \
    test "$pred" = "22.9MiB 24000040"
check "10 calls: intermediates peak 8,000,000 B, by hand ($inter)" \
    test "$inter" = "7.6MiB 8000000"
check "nothing outside the program: the inputs are held once" \
    grep -q '^ *Outside the program: 0 B$' "$T/run.out"
check "the capture's report: the same three figures" \
    test -n "$meas" -a "$(fig "$T/cap.out" 'Measured peak')|$(fig "$T/cap.out" \
    'Predicted peak')|$(fig "$T/cap.out" \
    'Intermediates peak with current setting')" = "$meas|$pred|$inter"
check "the capture: mem_peak_measured and mem_peak_predicted the same" \
    grep -q '"mem_peak_measured":24000040,"mem_peak_predicted":24000040,' \
    "$T/c10.json"
m=$(human "$meas") p=$(human "$pred") i=$(human "$inter")
check "--diff of the capture: the same names and numbers" \
    test "$(diffrow "$T/diff.out" 'Measured peak')|$(diffrow \
    "$T/diff.out" 'Predicted peak')|$(diffrow "$T/diff.out" \
    'Intermediates peak')" = "$m $m|$p $p|$i $i"

tui_shell 160 40
tui_run -d 2 "$T/c10.json"
tui_wait 'Class name' >/dev/null
check "the interface on the capture: the header's measured peak" \
    tui_wait_all "measured peak $m( |\$)"
tui_keys 4
check "its Memory view: measured, predicted and intermediates peaks" \
    tui_wait "^Measured peak: f $m\$"
check "... the same numbers as the report" \
    tui_wait_all "^Predicted peak: $p \(program: first call 15.3MiB, later calls $p; outside it 0B" \
    "^Intermediates peak: $i as run" \
    "^Live bytes, a later call: highest $p at apply 0 "
tui_keys 7
check "its Summary view: the same measured and predicted peaks" \
    tui_wait "^  Measured peak: $m\$"
check "... and predicted" tui_wait_all "^  Predicted peak: $p\$"
tui_keys q
tui_exited 0 >/dev/null

# the same graph run live: the calls run on the worker thread
tui_run -d 2 -n 10 "$FL" "$GRAPHS/chain.json"
tui_wait 'done *$' >/dev/null
check "run live (on the worker): the header measures the batch run's peak" \
    tui_wait_all "measured peak $m( |\$)"
tui_keys 4
tui_wait '^Predicted peak: ' >/dev/null
check "... and the Memory view predicts it" \
    tui_wait_all "^Predicted peak: $p " "^Measured peak: f $m\$"
tui_keys q
tui_exited 0 >/dev/null

# one call: the first call's peak, no word of later calls as run
"$GPTOP" --batch -n 1 "$FL" --save "$T/c1.json" "$GRAPHS/chain.json" \
    >"$T/run1.out" 2>>"$T/err"
"$GPTOP" --batch --diff "$T/c1.json" "$T/c1.json" >"$T/diff1.out" \
    2>>"$T/err"
check "1 call: measured = predicted = 16,000,040 B, by hand" \
    test "$(fig "$T/run1.out" 'Measured peak')|$(fig "$T/run1.out" \
    'Predicted peak')" = "15.3MiB 16000040|15.3MiB 16000040"
check "1 call: the capture's mem_peak_predicted is the first call's" \
    grep -q '"mem_peak_measured":16000040,"mem_peak_predicted":16000040,' \
    "$T/c1.json"
check "1 call: the prediction is the first call's, the only one run" \
    grep -q '^ *Predicted peak ([^)]*): 15.3MiB (16000040 B), in the first call (the only one run)$' \
    "$T/run1.out"
check "1 call: no 'every call after the first'" \
    sh -c "! grep -q 'every call after the first' '$T/run1.out'"
check "1 call: --diff gives the same predicted and measured peaks" \
    test "$(diffrow "$T/diff1.out" 'Measured peak')|$(diffrow \
    "$T/diff1.out" 'Predicted peak')" = "15.3MiB 15.3MiB|15.3MiB 15.3MiB"
tui_run -d 2 "$T/c1.json"
tui_wait 'Class name' >/dev/null
tui_keys 4
check "1 call: the Memory view's predicted peak is the first call's" \
    tui_wait "^Predicted peak: 15.3MiB in the first call, the only one run"

# shared variables: their initial values held apart by the pristine copy
"$GPTOP" --batch -n 5 "$FL" "$GRAPHS/mlp.json" >"$T/mlp.out" 2>>"$T/err"
check "mlp: outside the program, the shared variables, 5,357,648 B by hand" \
    grep -q '^ *Outside the program: 5.1MiB (5357648 B)' "$T/mlp.out"
mm=$(fig "$T/mlp.out" 'Measured peak')
check "mlp: measured = predicted ($mm)" \
    test -n "$mm" -a "$mm" = "$(fig "$T/mlp.out" 'Predicted peak')"
tui_keys q
tui_exited 0 >/dev/null
tui_run -d 2 -n 5 "$FL" "$GRAPHS/mlp.json"
tui_wait 'done *$' >/dev/null
check "mlp run live: the header measures the batch run's peak" \
    tui_wait_all "measured peak $(human "$mm")( |\$)"
tui_keys q
tui_exited 0 >/dev/null
check "no error on stderr" test ! -s "$T/err"
tui_done
