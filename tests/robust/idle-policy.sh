#!/bin/sh
# idle-policy.sh: the idle kernel threads' policy gptop chooses at start
# (src/ops/par.c), as its capture records it ("idle" in the machine
# block): the user's OMP_WAIT_POLICY or GOMP_SPINCOUNT stands; with a busy
# loop on every core the threads sleep (passive), the running tasks being
# read several times and busy in each reading.  Skipped in a build
# without OpenMP (serial); the busy case under valgrind's preload (gptop
# does not exec there).  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp idle

# idle [ENV...]: the policy a capture of add3.json records
idle() {
	env "$@" "$GPTOP" --batch -n 1 --save "$tmp/cap.json" \
	    "$top_srcdir/data/graphs/add3.json" >/dev/null 2>&1 &&
	    sed -n 's/.*"idle":"\([^"]*\)".*/\1/p' "$tmp/cap.json"
}

base=$(idle)
case $base in
serial)
	echo "1..0 # SKIP a serial build (no OpenMP)"
	exit 0
	;;
esac

got=$(idle OMP_WAIT_POLICY=active)
[ "$got" = active ]
ok $? "OMP_WAIT_POLICY=active stands (got '$got')"
got=$(idle GOMP_SPINCOUNT=77)
[ "$got" = "spin 77" ]
ok $? "GOMP_SPINCOUNT=77 stands (got '$got')"

case $base in
passive | "spin 1000") ;;
*)
	# no exec (valgrind's preload): libgomp's default
	echo "ok 3 # SKIP gptop did not choose (got '$base')"
	echo "1..3"
	exit $fail
	;;
esac

# a busy loop per core, for as long as the run takes
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
pids=
i=0
while [ "$i" -lt "$cores" ]; do
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
sleep 0.2
got=$(idle)
# shellcheck disable=SC2086
kill $pids 2>/dev/null
wait 2>/dev/null
[ "$got" = passive ]
ok $? "every core busy: the threads sleep (got '$got')"

echo "1..$n"
exit $fail
