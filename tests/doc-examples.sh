#!/bin/sh
# tests/doc-examples.sh: every example the documents show loads.
# - Each JSON block of doc/*.md after a marker line "<!-- example: graph -->"
#   passes gptop --check and runs two rounds in batch mode; each after
#   "<!-- example: capture -->" is reported by gptop --batch.  The graph
#   examples may name w0.npy (float64, shape [4]), which the test provides.
#   graph-format.md must hold at least two graph examples (minimal, full)
#   and capture-format.md two capture examples.
# - Every data/graphs/*.json that README.md, doc/*.md or the man page names
#   passes gptop --check (with --allow-extern: that is how the docs run
#   extern.json).
# Environment (set by make check): top_srcdir, GPTOP.
: "${top_srcdir:=.}"
: "${GPTOP:=./gptop}"
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
		[ -s "$tmp/err" ] && sed 's/^/#   /' "$tmp/err" | head -n 5
	fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-docex.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

# w0.npy: NPY 1.0, '<f8', shape (4,), four zeros; the header is padded so
# that magic, version, length and header make 128 bytes.
{
	printf '\223NUMPY\001\000\166\000'
	printf "%-117s\n" "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }"
	printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
	printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
} >"$tmp/w0.npy"

# Split document $1's examples of kind $2 into $tmp/$2-BASE-K.json.
extract() {
	base=$(basename "$1" .md)
	awk -v kind="$2" -v pre="$tmp/$2-$base-" '
	$0 == "<!-- example: " kind " -->" { want = 1; next }
	want && /^```/ && !code { code = 1; k++; file = pre k ".json"; next }
	code && /^```/ { code = 0; want = 0; close(file); next }
	code { print > file }' "$1"
}

for doc in "$top_srcdir"/doc/*.md; do
	extract "$doc" graph
	extract "$doc" capture
done

count() {
	c=0
	for f in "$tmp/$1-$2-"*.json; do
		[ -f "$f" ] && c=$((c + 1))
	done
	echo "$c"
}
[ "$(count graph graph-format)" -ge 2 ]
ok $? "doc/graph-format.md marks its minimal and full graph examples"
[ "$(count capture capture-format)" -ge 2 ]
ok $? "doc/capture-format.md marks its minimal and full capture examples"

for f in "$tmp"/graph-*.json; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .json)
	"$GPTOP" --check "$f" >"$tmp/out" 2>"$tmp/err"
	ok $? "example $name passes gptop --check"
	"$GPTOP" --batch -n 2 "$f" >"$tmp/out" 2>"$tmp/err" &&
	    grep -q '^Function profiling' "$tmp/out"
	ok $? "example $name runs and is reported"
done
for f in "$tmp"/capture-*.json; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .json)
	"$GPTOP" --batch "$f" >"$tmp/out" 2>"$tmp/err" &&
	    grep -q '^Function profiling' "$tmp/out"
	ok $? "example $name is reported by gptop --batch"
done

: >"$tmp/err"
graphs=$(cat "$top_srcdir/README.md" "$top_srcdir"/doc/*.md \
    "$top_srcdir/doc/gptop.1" | grep -o 'data/graphs/[a-z0-9_-]*\.json' |
    sort -u)
[ -n "$graphs" ]
ok $? "the documents name example graphs"
for g in $graphs; do
	if [ -f "$top_srcdir/$g" ]; then
		"$GPTOP" --check --allow-extern "$top_srcdir/$g" >"$tmp/out" \
		    2>"$tmp/err"
		ok $? "$g, named in the documents, passes gptop --check"
	else
		echo "no such file" >"$tmp/err"
		ok 1 "$g, named in the documents, exists"
	fi
done
echo "1..$n"
exit $fail
