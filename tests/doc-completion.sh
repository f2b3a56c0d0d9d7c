#!/bin/sh
# tests/doc-completion.sh: the bash completion (doc/gptop.bash-completion)
# offers the options of gptop --help, the flags of gptop --flags help after
# --flags (also inside a comma-separated list, and True/False after a
# boolean flag's =), *.json files and directories as arguments, any file
# after --save, nothing after -n.  The completion function is called as
# bash calls it: COMP_LINE, COMP_POINT, COMP_WORDS (split at blanks and =,
# as COMP_WORDBREAKS does) and COMP_CWORD set.
# Environment (set by make check): top_srcdir, GPTOP.
if ! command -v bash >/dev/null 2>&1; then
	echo "1..0 # SKIP bash not found"
	exit 0
fi
: "${top_srcdir:=.}"
top_srcdir=$(cd "$top_srcdir" && pwd)
: "${GPTOP:=./gptop}"
export top_srcdir GPTOP
exec bash -c '
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-compl.XXXXXX") || exit 1
trap "rm -rf \"$tmp\"" EXIT
mkdir "$tmp/bin" "$tmp/sub" "$tmp/work"
ln -s "$GPTOP" "$tmp/bin/gptop"
PATH=$tmp/bin:$PATH
: >"$tmp/work/run.json"
: >"$tmp/work/notes.txt"
mkdir "$tmp/work/graphs"
cd "$tmp/work" || exit 1

. "$top_srcdir/doc/gptop.bash-completion" || exit 1

n=0 fail=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		echo "#   candidates: ${COMPREPLY[*]}"
		fail=1
	fi
}

# comp LINE: run the completion with the cursor at the end of LINE.
comp() {
	COMP_LINE=$1
	COMP_POINT=${#1}
	local s=${1//=/ = }
	read -ra COMP_WORDS <<<"$s"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_gptop gptop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}

# has WORD...: every WORD is a candidate; hasnt WORD...: none is.
has() {
	local w c
	for w; do
		for c in "${COMPREPLY[@]}"; do
			[[ $c == "$w" ]] && continue 2
		done
		return 1
	done
}
hasnt() {
	local w c
	for w; do
		for c in "${COMPREPLY[@]}"; do
			[[ $c == "$w" ]] && return 1
		done
	done
	return 0
}

[ "$(complete -p gptop 2>/dev/null)" = "complete -F _gptop gptop" ]
ok $? "the file registers _gptop for gptop"

comp "gptop -"
opts=$("$GPTOP" --help | grep -Eo -- "--[a-z][a-z-]*" | sort -u)
missing=
for o in $opts -n -d -M; do
	has "$o" || missing="$missing $o"
done
[ -n "$opts" ] && [ -z "$missing" ]
ok $? "gptop - offers every option of gptop --help${missing:+ (missing:$missing)}"
hasnt run.json
ok $? "and no files"

comp "gptop --ex"
has --export-trace --export-csv --export-csv-ops && hasnt --batch
ok $? "gptop --ex offers the --export options only"

comp "gptop --flags "
flags=$("$GPTOP" --flags help | awk "/^  [a-z]/ { print \$1 }")
missing=
for f in $flags; do
	has "$f=" || missing="$missing $f"
done
[ -n "$flags" ] && [ -z "$missing" ] && has help
ok $? "gptop --flags offers every flag of gptop --flags help, and help${missing:+ (missing:$missing)}"

comp "gptop --flags prof"
has profile= profile_memory= profiling__n_apply= && hasnt allow_gc= help
ok $? "gptop --flags prof offers the profile flags only"

comp "gptop --flags profile_memory=True,allow"
has True,allow_gc= True,allow_extern= && hasnt True,jit=
ok $? "after a comma, the next flag name (bash word after =)"

comp "gptop --flags profile_memory="
has =True =False
ok $? "a boolean flag offers True and False"

comp "gptop --flags optimizer="
[ ${#COMPREPLY[@]} -eq 0 ]
ok $? "a flag that is not boolean offers no values"

comp "gptop --flags=profile_m"
has profile_memory=
ok $? "--flags=NAME completes too"

comp "gptop "
has run.json graphs merge && hasnt notes.txt
ok $? "arguments: *.json files, directories and merge"

comp "gptop -n 5 "
has run.json && hasnt merge notes.txt
ok $? "merge only as the first argument"

comp "gptop --save "
has run.json notes.txt
ok $? "--save completes any file"

comp "gptop -n "
[ ${#COMPREPLY[@]} -eq 0 ]
ok $? "-n takes a number: no candidates"

echo "1..$n"
exit $fail
'
