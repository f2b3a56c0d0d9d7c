#!/bin/sh
# run-bad.sh: every capture in tests/capture/bad must be refused by
# `gptop --batch` with exit status 2, nothing on stdout and exactly one
# line on stderr holding each line of NAME.err (the message with its
# FILE:LINE:COL and, for a bad field, its JSON path).  The good capture
# beside them (written by gptop-capture/1's first writer) must keep
# loading, and so must the last writers' of versions 2 and 3.  TAP
# output; skips while the gptop binary is not built.
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
# CSV's sources column is empty), and saved again it is a version 4
# capture without "src" members
n=$((n + 1))
if "$GPTOP" --batch "$dir/v2.capture.json" --export-csv "$tmp/v2.csv" \
    --save "$tmp/v2-again.json" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^Function profiling' "$tmp/out" &&
    [ "$(head -1 "$tmp/v2.csv" | tr -d '\r' | sed 's/.*,//')" = sources ] &&
    [ "$(tail -n +2 "$tmp/v2.csv" | tr -d '\r' | grep -c ',$')" = \
    "$(tail -n +2 "$tmp/v2.csv" | wc -l | tr -d ' ')" ] &&
    grep -q '"format": "gptop-capture/5"' "$tmp/v2-again.json" &&
    ! grep -q '"src"' "$tmp/v2-again.json"; then
	echo "ok $n - v2.capture.json (format 2's last writer) still loads, without sources"
else
	echo "not ok $n - v2.capture.json does not load as it should"
	sed 's/^/#   got: /' "$tmp/err" | head -5
	fail=$((fail + 1))
fi

# v3.capture.json: written by gptop-capture/3's last writer (chain.json
# fused, 3 calls), its sources one index each: it loads with its
# Composite's 10 source nodes (the CSV's sources column), and saved again
# it is a version 4 capture with them as one run [0, 9]
n=$((n + 1))
if "$GPTOP" --batch "$dir/v3.capture.json" --export-csv "$tmp/v3.csv" \
    --save "$tmp/v3-again.json" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^Function profiling' "$tmp/out" &&
    tail -1 "$tmp/v3.csv" | tr -d '\r' |
    grep -q ',"#0, #1, #2, #3, #4, #5, #6, #7, #8, #9"$' &&
    grep -q '"format": "gptop-capture/5"' "$tmp/v3-again.json" &&
    grep -q '"src":\[\[0,9\]\],' "$tmp/v3-again.json"; then
	echo "ok $n - v3.capture.json (format 3's last writer) still loads, its sources saved again as a run"
else
	echo "not ok $n - v3.capture.json does not load as it should"
	sed 's/^/#   got: /' "$tmp/err" | head -5
	fail=$((fail + 1))
fi

echo "1..$n"
[ "$fail" -eq 0 ]
