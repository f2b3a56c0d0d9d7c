#!/bin/sh
# tests/report/golden.sh: the batch report's layout, compared with golden
# files after masking what changes from run to run (tests/report/mask.sed):
# sections, headers, columns, row order by construction, counts, shapes,
# strides and names stay.  Regenerate a golden file with
#   GPTOP_REGOLD=1 make check TESTS=tests/report/golden.sh
: "${top_srcdir:=.}"
dir="$top_srcdir/tests/report"
tmp=${TMPDIR:-/tmp}/gptop-golden.$$
trap 'rm -f "$tmp"' EXIT
n=0
fail=0
for case in add3; do
	n=$((n + 1))
	args=$(cat "$dir/$case.args")
	# shellcheck disable=SC2086
	(cd "$top_srcdir" && "$GPTOP" $args) 2>&1 | sed -E -f "$dir/mask.sed" >"$tmp"
	if [ -n "$GPTOP_REGOLD" ]; then
		cp "$tmp" "$dir/$case.golden"
	fi
	if cmp -s "$tmp" "$dir/$case.golden"; then
		echo "ok $n - report layout: $case"
	else
		echo "not ok $n - report layout: $case"
		diff -u "$dir/$case.golden" "$tmp" | head -40 | sed 's/^/# /'
		fail=1
	fi
done
echo "1..$n"
exit $fail
