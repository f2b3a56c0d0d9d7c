#!/bin/sh
# tests/doc-man.sh: the man page lints clean (mandoc -Tlint, warnings and
# up; groff -ww, as man --warnings renders it at 80 columns), and names every long option of gptop --help, every flag of gptop
# --flags help, every key of the interface's key table (ui/keys.c) in its
# KEYS section, and every environment variable the sources read
# (getenv in src/ and ui/), so the docs cannot drift from the program.
# Also: gptop with no arguments prints a short usage that points to the
# examples and exits 2; gptop --help fits in 80 columns.
: "${top_srcdir:=.}"
man="$top_srcdir/doc/gptop.1"
n=0
fail=0
tmp_err=$(mktemp "${TMPDIR:-/tmp}/gptop-man.XXXXXX") || exit 1
trap 'rm -f "$tmp_err"' EXIT
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
# groff, which man(1) runs, warns of what mandoc does not see (a table
# row that cannot break at 80 columns): any warning fails
if command -v groff >/dev/null 2>&1; then
	out=$(groff -mandoc -Tutf8 -rLL=78n -ww -z "$man" 2>&1)
	[ -z "$out" ]
	ok $? "groff -ww (man --warnings at 80 columns) is clean${out:+: $out}"
else
	n=$((n + 1))
	echo "ok $n # SKIP groff not installed"
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
# The KEYS section's tagged items, one key per line: the words of its
# .It lines, with \& and the separating commas dropped (the comma key is
# written \&, and the backslash \e).
keys=$(sed -n '/^\.Sh KEYS/,/^\.Sh /p' "$man" | sed -n 's/^\.It //p' |
    sed 's/\\&,/COMMA/g; s/\\&//g; s/\\e/\\/g' | tr ' ' '\n' |
    grep -Ev '^(Ic|No|Ns|,|)$')
# The labels of ui/keys.c: the string just before ", UI_K_".
labels=$(grep -o '"[^"]*", UI_K_' "$top_srcdir/ui/keys.c" |
    sed 's/", UI_K_$//; s/^"//; s/\\\\/\\/' | sort -u)
[ -n "$labels" ]
ok $? "ui/keys.c has key labels"
set -f  # labels like ? and [ are not patterns
for l in $labels; do
	k=$l
	[ "$k" = , ] && k=COMMA
	printf '%s\n' "$keys" | grep -qxF -- "$k"
	ok $? "the man page's KEYS section has key $l"
done
set +f

vars=$(cat "$top_srcdir"/src/*/*.c "$top_srcdir"/ui/*.c |
    grep -o 'getenv("[A-Z_]*")' | sed 's/getenv("//; s/")//' | sort -u)
[ -n "$vars" ]
ok $? "the sources read environment variables"
env_sec=$(sed -n '/^\.Sh ENVIRONMENT/,/^\.Sh /p' "$man")
for v in $vars; do
	printf '%s\n' "$env_sec" | grep -qx -- ".It Ev $v"
	ok $? "the man page's ENVIRONMENT section has $v"
done

"$GPTOP" >/dev/null 2>"$tmp_err"
rc=$?
[ "$rc" -eq 2 ] && grep -q '^usage: gptop' "$tmp_err" &&
    grep -q 'data/graphs/logreg.json' "$tmp_err" &&
    [ "$(wc -l <"$tmp_err")" -le 10 ]
ok $? "gptop with no arguments: a short usage naming an example, exit 2 (got $rc)"
wide=$("$GPTOP" --help | awk 'length($0) > 80' | head -n 1)
"$GPTOP" --help >/dev/null && [ -z "$wide" ]
ok $? "gptop --help fits in 80 columns${wide:+: $wide}"

echo "1..$n"
exit $fail
