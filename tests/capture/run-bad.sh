#!/bin/sh
# run-bad.sh: every capture in tests/capture/bad must be refused by
# `gptop --batch` with exit status 2, nothing on stdout and exactly one
# line on stderr holding each line of NAME.err (the message with its
# FILE:LINE:COL and, for a bad field, its JSON path).  The good capture
# beside them (written by gptop-capture/1's first writer) must keep
# loading.  TAP output; skips while the gptop binary is not built.
# Environment (set by make check): top_srcdir, GPTOP.

srcdir=${top_srcdir:-$(dirname "$0")/../..}
GPTOP=${GPTOP:-./gptop}
dir=$srcdir/tests/capture

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-badcap.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

n=0
fail=0
for f in "$dir"/bad/*.json; do
	name=$(basename "$f" .json)
	want="$dir/bad/$name.err"
	n=$((n + 1))
	"$GPTOP" --batch "$f" >"$tmp/out" 2>"$tmp/err" </dev/null
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
		echo "ok $n - bad/$name.json"
	else
		echo "not ok $n - bad/$name.json: $why"
		sed 's/^/#   got: /' "$tmp/err" | head -5
		fail=$((fail + 1))
	fi
done

n=$((n + 1))
if "$GPTOP" --batch "$dir/good.capture.json" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^Function profiling' "$tmp/out"; then
	echo "ok $n - good.capture.json (format 1's first writer) still loads"
else
	echo "not ok $n - good.capture.json does not load"
	sed 's/^/#   got: /' "$tmp/err" | head -5
	fail=$((fail + 1))
fi

# v2.capture.json: written by gptop-capture/2's last writer (logreg.json,
# 3 calls), before provenance: it loads, its applies have no sources (the
# CSV's sources column is empty), and saved again it is a version 3
# capture without "src" members
n=$((n + 1))
if "$GPTOP" --batch "$dir/v2.capture.json" --export-csv "$tmp/v2.csv" \
    --save "$tmp/v2-again.json" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^Function profiling' "$tmp/out" &&
    [ "$(head -1 "$tmp/v2.csv" | tr -d '\r' | sed 's/.*,//')" = sources ] &&
    [ "$(tail -n +2 "$tmp/v2.csv" | tr -d '\r' | grep -c ',$')" = \
    "$(tail -n +2 "$tmp/v2.csv" | wc -l | tr -d ' ')" ] &&
    grep -q '"format": "gptop-capture/3"' "$tmp/v2-again.json" &&
    ! grep -q '"src"' "$tmp/v2-again.json"; then
	echo "ok $n - v2.capture.json (format 2's last writer) still loads, without sources"
else
	echo "not ok $n - v2.capture.json does not load as it should"
	sed 's/^/#   got: /' "$tmp/err" | head -5
	fail=$((fail + 1))
fi

echo "1..$n"
[ "$fail" -eq 0 ]
