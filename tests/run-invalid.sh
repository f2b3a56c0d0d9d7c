#!/bin/sh
# run-invalid.sh: every graph in tests/invalid must be refused by
# `gptop --check` with exit status 2, nothing on stdout and exactly one line
# on stderr holding each line of NAME.err (the message, with its
# FILE:LINE:COL).  TAP output; skips while the gptop binary is not built.
# Environment (set by make check): top_srcdir, GPTOP.

srcdir=${top_srcdir:-$(dirname "$0")/..}
GPTOP=${GPTOP:-./gptop}

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-invalid.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

n=0
fail=0
for f in "$srcdir"/tests/invalid/*.json; do
	name=$(basename "$f" .json)
	want="$srcdir/tests/invalid/$name.err"
	n=$((n + 1))
	"$GPTOP" --check "$f" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	why=
	if [ ! -f "$want" ]; then
		why="no $name.err"
	elif [ "$rc" -ne 2 ]; then
		why="exit status $rc, expected 2"
	elif [ -s "$tmp/out" ]; then
		why="output on stdout"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		why="$(wc -l <"$tmp/err") lines on stderr, expected 1"
	else
		while IFS= read -r line || [ -n "$line" ]; do
			[ -z "$line" ] && continue
			if ! grep -F -q -e "$line" "$tmp/err"; then
				why="stderr lacks: $line"
				break
			fi
		done <"$want"
	fi
	if [ -z "$why" ]; then
		echo "ok $n - invalid/$name.json"
	else
		echo "not ok $n - invalid/$name.json: $why"
		sed 's/^/#   got: /' "$tmp/err" | head -5
		fail=$((fail + 1))
	fi
done
echo "1..$n"
[ "$fail" -eq 0 ]
