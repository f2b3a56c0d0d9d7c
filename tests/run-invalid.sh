#!/bin/sh
# run-invalid.sh: every graph in tests/invalid must be refused by
# `gptop --check` with exit status 2, nothing on stdout and exactly one line
# on stderr holding each line of NAME.err (the message, with its
# FILE:LINE:COL).  Then the same for graphs generated here (too big to keep:
# JSON nested 100,000 deep) and for every command line of
# tests/invalid/cmdlines (bad flag strings and options).  TAP output;
# skips while the gptop binary is not built.
# Environment (set by make check): top_srcdir, GPTOP.

srcdir=${top_srcdir:-$(dirname "$0")/..}
GPTOP=${GPTOP:-./gptop}

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP is not built"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-invalid.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

# check WANT LABEL: judge $rc, $tmp/out and $tmp/err against the lines of
# WANT; prints the TAP line.
check() {
	why=
	if [ ! -f "$1" ]; then
		why="no $(basename "$1")"
	elif [ "$rc" -ne 2 ]; then
		why="exit status $rc, expected 2"
	elif [ -s "$tmp/out" ]; then
		why="output on stdout"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		why="$(wc -l <"$tmp/err") lines on stderr, expected 1"
	elif grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/err"; then
		why="a sanitizer report"
	else
		while IFS= read -r l || [ -n "$l" ]; do
			[ -z "$l" ] && continue
			if ! grep -F -q -e "$l" "$tmp/err"; then
				why="stderr lacks: $l"
				break
			fi
		done <"$1"
	fi
	if [ -z "$why" ]; then
		printf 'ok %d - %s\n' "$n" "$2"
	else
		printf 'not ok %d - %s: %s\n' "$n" "$2" "$why"
		sed 's/^/#   got: /' "$tmp/err" | head -5
		fail=$((fail + 1))
	fi
}

n=0
fail=0
for f in "$srcdir"/tests/invalid/*.json; do
	name=$(basename "$f" .json)
	want="$srcdir/tests/invalid/$name.err"
	n=$((n + 1))
	"$GPTOP" --check "$f" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "$want" "invalid/$name.json"
done

# generated: JSON nested 100,000 deep, in an array and in an object
awk 'BEGIN {
	printf "{\"format\": \"gptop-graph/1\", \"variables\": "
	for (i = 0; i < 100000; i++) printf "["
	for (i = 0; i < 100000; i++) printf "]"
	printf "}\n" }' >"$tmp/deep-array.json"
awk 'BEGIN {
	printf "{\"format\": \"gptop-graph/1\", \"variables\": "
	for (i = 0; i < 100000; i++) printf "{\"a\": "
	printf "1"
	for (i = 0; i < 100000; i++) printf "}"
	printf "}\n" }' >"$tmp/deep-object.json"
printf '%s\n' 'deep-array.json:1:2089: JSON syntax error: maximum parsing depth reached' \
    '(jansson reads at most 2048 levels of nesting)' >"$tmp/deep-array.err"
printf '%s\n' 'deep-object.json:1:12324: JSON syntax error: maximum parsing depth reached' \
    '(jansson reads at most 2048 levels of nesting)' >"$tmp/deep-object.err"
for name in deep-array deep-object; do
	n=$((n + 1))
	(cd "$tmp" && "$GPTOP" --check "$name.json" >out 2>err </dev/null)
	rc=$?
	check "$tmp/$name.err" "generated $name.json"
done

# not regular files, refused before anything blocks on them (opening a
# FIFO waits for a writer, reading /dev/zero never ends): the graph or
# capture named on the command line, a .npy a graph names, either side of
# --diff, a merge's input.  `timeout` turns a hang into a failure.
mkfifo "$tmp/fifo.json" "$tmp/fifo.npy"
sed 's|no-such-file.npy|fifo.npy|' "$srcdir/tests/invalid/npy-missing.json" \
    >"$tmp/npy-fifo.json"
sed 's|no-such-file.npy|/dev/zero|' "$srcdir/tests/invalid/npy-missing.json" \
    >"$tmp/npy-zero.json"
good="$srcdir/tests/capture/good.capture.json"
case $good in /*) ;; *) good="$PWD/$good" ;; esac
while IFS='|' read -r label cmd want; do
	n=$((n + 1))
	printf '%s\n' "$want" >"$tmp/want"
	(cd "$tmp" && eval "timeout 20 $cmd") >"$tmp/out" 2>"$tmp/err" \
	    </dev/null
	rc=$?
	check "$tmp/want" "not a regular file: $label"
done <<'END'
--check FIFO|"$GPTOP" --check fifo.json|fifo.json: is a FIFO, not a regular file (expected a graph or a capture)
--batch FIFO|"$GPTOP" --batch fifo.json|fifo.json: is a FIFO, not a regular file (expected a graph or a capture)
--batch /dev/zero|"$GPTOP" --batch /dev/zero|/dev/zero: is a character device, not a regular file (expected a graph or a capture)
npy FIFO|"$GPTOP" --check npy-fifo.json|fifo.npy: is a FIFO, not a regular file (expected a .npy file)
npy /dev/zero|"$GPTOP" --batch npy-zero.json|/dev/zero: is a character device, not a regular file (expected a .npy file)
--diff B FIFO|"$GPTOP" --batch --diff "$good" fifo.json|fifo.json: is a FIFO, not a regular file
merge FIFO|"$GPTOP" merge "$good" fifo.json -o m.json|fifo.json: is a FIFO, not a regular file (expected a gptop capture)
directory|"$GPTOP" --check .|.: is a directory, not a regular file
END

# command lines: COMMAND<TAB>EXPECTED per line, COMMAND run by the shell
# with $GPTOP and $srcdir set (# comments, blank lines skipped)
tab=$(printf '\t')
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	cmd=${line%%"$tab"*}
	printf '%s\n' "${line#*"$tab"}" >"$tmp/want"
	n=$((n + 1))
	(cd "$srcdir" && eval "$cmd") >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "$tmp/want" "command line: $cmd"
done <"$srcdir/tests/invalid/cmdlines"
echo "1..$n"
[ "$fail" -eq 0 ]
