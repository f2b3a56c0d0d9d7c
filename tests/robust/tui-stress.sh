#!/bin/sh
# tui-stress.sh: the interface under a hostile user, STRESS_N rounds
# (default 2; `make stress` runs more), each a fresh gptop on mlp.json in
# a tmux pane: resizes down to 20x5 and 1x1 and back, named keys, raw
# escape sequences (incomplete, oversized, mouse reports out of range),
# 500 random bytes (seeded per round; the bytes that raise signals or stop
# the output, and q, are left to the steps that send them on purpose, and
# there is no newline, so what reaches the shell if gptop died runs
# nothing),
# Ctrl-Z and `fg`, storms of SIGWINCH and of SIGTSTP/SIGCONT, Ctrl-\ and
# finally a quit signal while running (SIGTERM, SIGINT, SIGHUP, SIGQUIT
# in turn).  After each step gptop must still run and hold the screen;
# at the end the terminal is restored, the status is 128 + the signal and
# no sanitizer spoke.  Run under ASan and TSan by CI (.ci/run).
. "$top_srcdir/tests/ui/tui-lib.sh"
. "$top_srcdir/tests/robust/robust-lib.sh"

STRESS_N=${STRESS_N:-2}
STRESS_FIRST=${STRESS_FIRST:-1}	# the first round's number (its seed)

# run.sh ARGS: gptop in the pane as one job with the shell that reports
# its status (so Ctrl-Z stops both and `fg` continues both); its pid in
# $TUI_TMP/pid.
cat >"$TUI_TMP/run.sh" <<EOS
sh -c 'echo \$\$ >"\$0"; exec "\$@"' "$TUI_TMP/pid" "$GPTOP" "\$@"
echo gptop-exit=\$?
EOS

stress_run() {
	rm -f "$TUI_TMP/pid"
	tx send-keys -t t -l "clear; cd $TUI_TMP; sh $TUI_TMP/run.sh $*"
	tx send-keys -t t Enter
	tries=$((TUI_TIMEOUT * 10))
	while [ ! -s "$TUI_TMP/pid" ] && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
}

# The process state letter (R, S, T ...) of gptop, or nothing once gone.
pstate() {
	p=$(tui_pid)
	[ -n "$p" ] && sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1
}

wait_state() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		case "$(pstate)" in
		$1) return 0 ;;
		"") return 1 ;;
		esac
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

# gptop is stopped and the pane is back on the main screen.
suspended() {
	wait_state T || return 1
	tui_wait_modes 'alt=0 cursor=1 keypad=0 mouse=0'
}

tui_wait_modes() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		[ "$(term_modes)" = "$1" ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "# modes: $(term_modes)"
	return 1
}

# gptop runs (not stopped) and the pane is on the alternate screen.
alive_held() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		s=$(pstate)
		[ -z "$s" ] && { echo "# gptop is gone"; return 1; }
		if [ "$s" != T ] && [ "$(tx display -p -t t \
		    '#{alternate_on}')" = 1 ]; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	# what the process and its threads are doing
	echo "# state $(pstate), modes: $(term_modes)"
	grep -E '^(Sig|Shd)' "/proc/$(tui_pid)/status" 2>/dev/null |
	    sed 's/^/# /'
	for t in /proc/"$(tui_pid)"/task/*; do
		[ -f "$t/stat" ] &&
		    echo "# thread ${t##*/}: $(sed 's/.*) //' "$t/stat" | cut -c1)"
	done
	return 1
}

# gptop has read everything typed so far and answers keys: 7 shows the
# summary, then 1 the Class view (slow builds lag behind the keys; what
# is still queued when Ctrl-Z stops the job would go to the shell).  The
# keys are sent again until it shows: a broken UTF-8 sequence before them
# may swallow some.
answers() {
	alive_held || return 1
	for try in 1 2 3 4 5; do
		# Esc leaves a search or filter, and a view opened on top;
		# one at a time (Esc and what follows at once is one key)
		for esc in 1 2 3; do
			tx send-keys -t t Escape
			sleep 0.2
		done
		tx send-keys -t t 7
		tui_wait 'Function profiling' $((TUI_TIMEOUT / 5 + 1)) && break
	done
	tui_has 'Function profiling' || return 1
	tx send-keys -t t 1
	tui_wait 'Class name'
}

# 500 bytes from awk's generator seeded with $1, as hex for send-keys -H,
# without 03 (^C), 04 (^D), 0a and 0d (newlines), 11 and 13 (^Q, ^S), 1a
# (^Z), 1c (^\) and 71 (q).
random_hex() {
	awk -v seed="$1" 'BEGIN {
		srand(seed)
		while (n < 500) {
			b = int(rand() * 256)
			if (b == 3 || b == 4 || b == 10 || b == 13 || b == 17 ||
			    b == 19 || b == 26 || b == 28 || b == 113)
				continue
			printf "%02x ", b
			n++
		}
	}'
}

# step DESCRIPTION COMMAND...: a check; once one fails in a round, the
# rest of the round is skipped (nothing more is typed at a pane whose
# gptop may be gone) and gptop is killed.
step() {
	if [ "$broken" = 1 ]; then
		TUI_N=$((TUI_N + 1))
		echo "not ok $TUI_N - $1 # after an earlier failure"
		TUI_FAILED=1
		return 1
	fi
	check "$@"
	if [ "$TUI_FAILED" = 1 ] && [ "$failed_before" = 0 ]; then
		broken=1
		kill -KILL "$(tui_pid)" 2>/dev/null
		tx send-keys -t t C-u
		return 1
	fi
	return 0
}

quit_sigs="TERM INT HUP QUIT"
echo "1..$((STRESS_N * 9))"
tui_shell 100 30
for round in $(seq "$STRESS_FIRST" $((STRESS_FIRST + STRESS_N - 1))); do
	set -- $quit_sigs
	shift $(((round - 1) % 4))
	sig=$1
	broken=0
	failed_before=$TUI_FAILED
	stress_run -d 1 "$GRAPHS/mlp.json"
	step "round $round: runs" tui_wait '^calls [0-9]'

	[ "$broken" = 0 ] && for size in 20x5 1x1 100x30 1x1 40x10 1x1 100x30; do
		tx resize-window -t t -x "${size%x*}" -y "${size#*x}"
		sleep 0.05
	done
	step "round $round: resizes to 20x5, 1x1 and back" alive_held

	[ "$broken" = 0 ] && for k in Up Down PgUp PgDn Home End Left Right Tab BTab Enter \
	    Escape F1 Escape F2 F3 Escape F4 Escape F5 F5 F6 F7 F8 F9 F11 F12 \
	    BSpace DC IC 1 2 3 4 5 6 7 Enter Enter Escape Escape; do
		tx send-keys -t t "$k"
	done
	[ "$broken" = 0 ] && for seq in "1b 5b" "1b 5b 31 3b 35 41" "1b 4f 50" \
	    "1b 5b 4d 20 21 21" "1b 5b 4d 23 ff ff" \
	    "1b 5b 3c 30 3b 39 39 39 39 3b 39 39 39 39 4d" \
	    "1b 5b 32 30 30 7e 41 42 1b 5b 32 30 31 7e" \
	    "1b 5b 39 39 39 39 39 39 39 39 39 39 39 39 39 39 39 7e" \
	    "1b 5d 30 3b 41 07" "1b 1b 1b" "c3" "e2 82" "f0 9f 98 80"; do
		tx send-keys -t t -H $seq
	done
	step "round $round: named keys and escape sequences" answers

	if [ "$broken" = 0 ]; then
		tx send-keys -t t -H $(random_hex "$round")
	fi
	step "round $round: 500 random bytes, then it answers keys" answers

	[ "$broken" = 0 ] && tx send-keys -t t C-z
	step "round $round: Ctrl-Z suspends, the terminal is given back" \
	    suspended
	if [ "$broken" = 0 ]; then
		tx send-keys -t t -l fg
		tx send-keys -t t Enter
	fi
	step "round $round: fg takes the screen again" alive_held

	[ "$broken" = 0 ] && for i in 1 2 3 4 5 6 7 8 9 10; do
		kill -WINCH "$(tui_pid)" 2>/dev/null
		kill -CONT "$(tui_pid)" 2>/dev/null
	done
	[ "$broken" = 0 ] && for i in 1 2 3; do
		kill -TSTP "$(tui_pid)" 2>/dev/null
		wait_state T
		kill -CONT "$(tui_pid)" 2>/dev/null
	done
	step "round $round: SIGWINCH, SIGTSTP and SIGCONT storms" alive_held

	[ "$broken" = 0 ] && kill -"$sig" "$(tui_pid)"
	step "round $round: SIG$sig restores the terminal" term_modes_restored
	case $sig in
	TERM) want=143 ;;
	INT) want=130 ;;
	HUP) want=129 ;;
	QUIT) want=131 ;;
	esac
	step "round $round: ... exit status $want, no sanitizer report" \
	    tui_exited "$want"
	tui_wait '^gptop-exit=' 5
	tui_keys -l clear
	tui_keys Enter
	tui_wait_gone '^gptop-exit='
done
tui_done
