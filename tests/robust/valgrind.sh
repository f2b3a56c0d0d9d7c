#!/bin/sh
# valgrind.sh: valgrind memcheck on `gptop --batch` of every example graph
# in data/graphs/ (extern.json with --allow-extern): no memory errors and
# no definite leaks (exit status 99 from valgrind otherwise), and the run
# itself ends with status 0.  One call each (mlp takes about a minute
# under valgrind).  Run only when GPTOP_VALGRIND=yes (.ci/run sets it;
# `GPTOP_VALGRIND=yes make check TESTS=tests/robust/valgrind.sh` by hand)
# and valgrind is installed; skipped for a sanitizer build.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"

if [ "${GPTOP_VALGRIND:-}" != yes ]; then
	echo "1..0 # SKIP set GPTOP_VALGRIND=yes to run valgrind"
	exit 0
fi
if ! command -v valgrind >/dev/null 2>&1; then
	echo "1..0 # SKIP valgrind not found"
	exit 0
fi
if ldd "$GPTOP" 2>/dev/null | grep -Eq 'lib[at]san'; then
	echo "1..0 # SKIP a sanitizer build"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-vg.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
set -- "$top_srcdir"/data/graphs/*.json
echo "1..$#"
for g in "$@"; do
	n=$((n + 1))
	name=$(basename "$g")
	OPENBLAS_NUM_THREADS=1 valgrind -q --error-exitcode=99 \
	    --leak-check=full --errors-for-leak-kinds=definite \
	    --show-leak-kinds=definite --log-file="$tmp/vg" \
	    "$GPTOP" --batch -n 1 --allow-extern "$g" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$tmp/vg" ] &&
	    grep -q '^gptop: 1 round of' "$tmp/out"; then
		echo "ok $n - $name: no memcheck errors, no definite leaks"
	else
		echo "not ok $n - $name: exit status $rc"
		sed 's/^/# /' "$tmp/vg" "$tmp/err" | head -n 40
		fail=1
	fi
done
exit "$fail"
