#!/bin/sh
# crash.sh: a crash in the runtime.  Graphs whose extern op faults
# (tests/robust/libgpcrash.so: gpc_segv writes through a null pointer,
# gpc_abort calls abort(), once the trigger file exists) are run in batch
# mode and in the interface, driven through tmux: gptop says which signal
# and what was running on one line of stderr, gives the terminal back
# (main screen, cursor, no keypad or mouse mode, canonical mode and echo)
# and dies of that signal (exit status 128 + N); also a stack overflow in
# the runtime thread (gpc_deep) and a crash in the very first call.  And
# SIGTERM while the worker is in a call that does not end (gpc_hang
# sleeps): the terminal comes back at once, and a second SIGTERM ends
# gptop (status 143), or else the grace (5 s) does, in batch mode too.
# An extern function calling exit(0) (gpc_exit) ends gptop with status 1
# and a message, the terminal restored.  The sanitizers' own SEGV
# handling is turned off so every build dies the same way.
. "$top_srcdir/tests/ui/tui-lib.sh"
. "$top_srcdir/tests/robust/robust-lib.sh"

lib=$top_builddir/tests/robust/libgpcrash.so
if [ ! -f "$lib" ]; then
	echo "1..0 # SKIP $lib not built"
	exit 0
fi
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_abort=0
TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0:handle_abort=0
UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}handle_segv=0:handle_abort=0
GPC_TRIGGER=$TUI_TMP/trigger
export ASAN_OPTIONS TSAN_OPTIONS UBSAN_OPTIONS GPC_TRIGGER

# graph NAME SYMBOL: a graph calling SYMBOL of the crash library on every
# element of a 4-vector, then an add.
graph() {
	cat >"$TUI_TMP/$1.json" <<EOG
{"format": "gptop-graph/1", "name": "$1",
 "variables": {"x": {"kind": "input", "dtype": "float64", "shape": [4],
   "init": {"fill": 1}}},
 "nodes": [
  {"op": "extern", "inputs": ["x"], "outputs": ["y"],
   "params": {"lib": "$lib", "symbol": "$2", "signature": "double(double)"}},
  {"op": "add", "inputs": ["y", 1], "outputs": ["out"]}],
 "functions": {"f": {"outputs": ["out"]}}}
EOG
}
graph segv gpc_segv
graph abort gpc_abort
graph hang gpc_hang
graph exit gpc_exit
graph deep gpc_deep

# The message: "gptop: crashed: SIG... [in the runtime thread], running
# FILE (its extern ops run native code)".
msg_re() {
	echo "^gptop: crashed: $1 \\($2\\)$3, running .*/$4\\.json \\(its extern ops run native code\\)"
}

# one_line_matches FILE RE: FILE is one line matching RE.
one_line_matches() {
	[ "$(wc -l <"$1")" -eq 1 ] && grep -Eq -- "$2" "$1" && return 0
	sed 's/^/# stderr: /' "$1"
	return 1
}

running_held() {
	tui_wait '^calls [0-9]' && tui_wait 'Extern' && term_modes_held
}

# The pane's modes are back to normal (gptop may still run).
modes_back() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		[ "$(term_modes)" = "alt=0 cursor=1 keypad=0 mouse=0" ] &&
		    return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "# modes: $(term_modes)"
	return 1
}

echo "1..38"

# Batch mode: the fault comes in the first call.
touch "$GPC_TRIGGER"
for c in "segv SIGSEGV segmentation.fault 139" "abort SIGABRT aborted 134"; do
	set -- $c
	# (in a subshell: the shell's own "Segmentation fault" stays out)
	("$GPTOP" --batch -n 5 --allow-extern "$TUI_TMP/$1.json" \
	    >"$TUI_TMP/out" 2>"$TUI_TMP/err") 2>/dev/null
	rc=$?
	check "batch, $2: exit status $4 (got $rc)" [ "$rc" = "$4" ]
	check "batch, $2: one line on stderr says what and where" \
	    one_line_matches "$TUI_TMP/err" "$(msg_re "$2" "$3" "" "$1")\$"
done

# Batch mode: exit(0) in an extern function is no success.
("$GPTOP" --batch -n 5 --allow-extern "$TUI_TMP/exit.json" \
    >"$TUI_TMP/out" 2>"$TUI_TMP/err") 2>/dev/null
rc=$?
check "batch, exit(0) in an extern function: exit status 1 (got $rc)" \
    [ "$rc" = 1 ]
check "batch, exit(0): one line says which function called exit()" \
    one_line_matches "$TUI_TMP/err" "^gptop: extern function gpc_exit called exit\(\) during a call, running .*/exit\.json \(its extern ops run native code\); gptop ends with status 1\$"

# Batch mode: one SIGTERM while a call hangs; the grace ends the run.
"$GPTOP" --batch -n 5 --allow-extern --save "$TUI_TMP/hang-cap.json" \
    "$TUI_TMP/hang.json" >"$TUI_TMP/out" 2>"$TUI_TMP/err" &
pid=$!
sleep 1
t0=$(date +%s)
kill -TERM "$pid"
wait "$pid"
rc=$?
took=$(($(date +%s) - t0))
check "batch, one SIGTERM in a hung call: exit status 143 (got $rc)" \
    [ "$rc" = 143 ]
check "batch, one SIGTERM in a hung call: within the grace (took $took s)" \
    [ "$took" -le 9 ]
check "batch, one SIGTERM in a hung call: one line says so" \
    one_line_matches "$TUI_TMP/err" "^gptop: SIGTERM: the run did not stop within 5 s \(extern function gpc_hang\), running .*/hang\.json \(its extern ops run native code\); ended without waiting for the call under way\$"
check "batch, one SIGTERM in a hung call: no capture, no temporary" \
    [ -z "$(ls -A "$TUI_TMP" | grep hang-cap)" ]

# The interface: the worker thread faults once the screen is up.
tui_shell 100 30
for c in "segv SIGSEGV segmentation.fault 139" "abort SIGABRT aborted 134"; do
	set -- $c
	rm -f "$GPC_TRIGGER"
	tui_run -d 2 --allow-extern "$TUI_TMP/$1.json"
	check "interface, $2: runs, holding the terminal" running_held
	touch "$GPC_TRIGGER"
	check "interface, $2: the terminal is restored" term_modes_restored
	check "interface, $2: says what and where" tui_wait_joined "$(msg_re "$2" \
	    "$3" " in the runtime thread" "$1"); the terminal was restored"
	check "interface, $2: exit status $4" tui_wait "^gptop-exit=$4\$"
done

# SIGTERM while a call hangs
rm -f "$GPC_TRIGGER"
tui_run -d 2 --allow-extern "$TUI_TMP/hang.json"
check "hang: runs, holding the terminal" running_held
touch "$GPC_TRIGGER"
sleep 0.5
kill -TERM "$(tui_pid)"
check "hang: SIGTERM gives the terminal back at once" modes_back
check "hang: ... while the call still runs" kill -0 "$(tui_pid)"
kill -TERM "$(tui_pid)"
check "hang: a second SIGTERM ends it: exit status 143" \
    tui_wait "^gptop-exit=143\$"
check "hang: the terminal is restored" term_modes_restored

# One SIGTERM while a call hangs: the grace ends it.
rm -f "$GPC_TRIGGER"
tui_run -d 2 --allow-extern "$TUI_TMP/hang.json"
check "hang, one SIGTERM: runs, holding the terminal" running_held
touch "$GPC_TRIGGER"
sleep 0.5
kill -TERM "$(tui_pid)"
check "hang, one SIGTERM: the terminal is given back at once" modes_back
check "hang, one SIGTERM: the grace ends gptop: exit status 143" \
    tui_wait "^gptop-exit=143\$" 15
check "hang, one SIGTERM: says the run did not stop and where" \
    tui_wait_joined "^gptop: SIGTERM: the run did not stop within 5 s \(extern function gpc_hang\), running .*/hang\.json"
check "hang, one SIGTERM: the terminal is restored" term_modes_restored

# exit(0) in an extern function, in the runtime thread
rm -f "$GPC_TRIGGER"
tui_run -d 2 --allow-extern "$TUI_TMP/exit.json"
check "interface, exit(0): runs, holding the terminal" running_held
touch "$GPC_TRIGGER"
check "interface, exit(0): the terminal is restored" term_modes_restored
check "interface, exit(0): says which function called exit()" \
    tui_wait_joined "^gptop: extern function gpc_exit called exit\(\) during a call, running .*/exit\.json \(its extern ops run native code\); gptop ends with status 1; the terminal was restored"
check "interface, exit(0): exit status 1" tui_wait "^gptop-exit=1\$"

# a stack overflow in the runtime thread
rm -f "$GPC_TRIGGER"
tui_run -d 2 --allow-extern "$TUI_TMP/deep.json"
check "interface, stack overflow: runs, holding the terminal" running_held
touch "$GPC_TRIGGER"
check "interface, stack overflow: the terminal is restored" \
    term_modes_restored
check "interface, stack overflow: says what and where" tui_wait_joined \
    "$(msg_re SIGSEGV segmentation.fault " in the runtime thread" deep)"
check "interface, stack overflow: exit status 139" \
    tui_wait "^gptop-exit=139\$"

# a crash in the very first call, while the interface starts
touch "$GPC_TRIGGER"
tui_run -d 2 --allow-extern "$TUI_TMP/segv.json"
check "interface, crash in the first call: the terminal is restored" \
    term_modes_restored
check "interface, crash in the first call: exit status 139" \
    tui_wait "^gptop-exit=139\$"
tui_done
