#!/bin/sh
# tests/doc-man.sh: the man page lints clean (mandoc -Tlint, warnings and
# up), and names every long option of gptop --help and every flag of
# gptop --flags help, so the docs cannot drift from the program.
: "${top_srcdir:=.}"
man="$top_srcdir/doc/gptop.1"
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
if command -v mandoc >/dev/null 2>&1; then
	out=$(mandoc -Tlint -Wwarning "$man" 2>&1)
	[ -z "$out" ]
	ok $? "mandoc -Tlint -Wwarning is clean${out:+: $out}"
else
	echo "ok 1 # SKIP mandoc not installed"
	n=1
fi
for opt in $("$GPTOP" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	flag=${opt#--}
	grep -q -- "Fl -$flag" "$man"
	ok $? "the man page documents $opt"
done
for flag in $("$GPTOP" --flags help | awk '/^  [a-z]/ {print $1}'); do
	grep -q -- "Cm $flag" "$man"
	ok $? "the man page documents flag $flag"
done
echo "1..$n"
exit $fail
