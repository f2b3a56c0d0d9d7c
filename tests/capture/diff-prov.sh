#!/bin/sh
# tests/capture/diff-prov.sh: the diff pairs by provenance (diff.h,
# doc/capture-format.md "Diff"), in `gptop --batch --diff A B` of captures.
# chain.json with fusion off (A) and on (B): one group row, the Composite
# against the 10 applies it fused, "(10 sources)  [A: 10 applies]", its
# time A the sum of A's ten applies' totals and its time B the Composite's
# (both read from the captures here, with sed and awk), nothing added or
# removed, and its per-call columns per call of the function.  mlp.json with gemm off (A) and on (B): each Gemm of B is
# grouped with the 2 applies of A doing the work of its 3 source nodes
# (the dot, the scaling and the update); each group row's time A is the
# sum of A's applies whose source nodes are among that Gemm's (read from
# the captures' "src" members), and nothing is added or removed.
: "${top_srcdir:=.}" "${GPTOP:=./gptop}"
. "$top_srcdir/tests/tap.sh"

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
tap_tmp diffprov
graphs=$top_srcdir/data/graphs
GPTOP_FLAGS=
export GPTOP_FLAGS

# A capture's applies, one line each: "OP SRC,SRC,... TOTAL" (a run
# [first,last] of "src" written out)
applies() {
	sed -n 's/.*"op":\([0-9]*\),"src":\[\(.*\)\],"flops".*"calls":[0-9]*,"total":\([0-9]*\),.*/\1 \2 \3/p' "$1" |
	    awk '{
		s = $2
		while (match(s, /\[[0-9]+,[0-9]+\]/)) {
			split(substr(s, RSTART + 1, RLENGTH - 2), b, ",")
			x = b[1]
			for (i = b[1] + 1; i <= b[2]; i++)
				x = x "," i
			s = substr(s, 1, RSTART - 1) x substr(s, RSTART + RLENGTH)
		}
		print $1, s, $3
	    }'
}
# The Apply section's rows of a diff report
rows() {
	sed -n '/^Apply$/,$p' "$1" |
	    grep -E '^ +([0-9.e+-]+s|-) +([0-9.e+-]+s|-) +[-+]'
}
secs() {
	awk '{ s += $0 } END { printf "%.3es\n", s / 1e9 }'
}

echo "1..7"

"$GPTOP" --batch -n 5 --flags optimizer_excluding=fusion \
    --save "$tmp/ca.json" "$graphs/chain.json" >/dev/null 2>&1 &&
"$GPTOP" --batch -n 5 --save "$tmp/cb.json" "$graphs/chain.json" \
    >/dev/null 2>&1 &&
"$GPTOP" --batch --diff "$tmp/ca.json" "$tmp/cb.json" >"$tmp/c.out" \
    2>&1
ok $? "chain.json: fusion off and on, diffed"
rows "$tmp/c.out" >"$tmp/c.rows"
want_a=$(applies "$tmp/ca.json" | awk '{ print $3 }' | secs)
want_b=$(applies "$tmp/cb.json" | awk '{ print $3 }' | secs)
[ "$(applies "$tmp/ca.json" | wc -l)" -eq 10 ] &&
    [ "$(applies "$tmp/cb.json" | wc -l)" -eq 1 ] &&
    [ "$(wc -l <"$tmp/c.rows")" -eq 1 ] &&
    grep -q ' (10 sources)  \[A: 10 applies\]$' "$tmp/c.rows" &&
    [ "$(awk '{ print $1 " " $2 }' "$tmp/c.rows")" = "$want_a $want_b" ]
ok $? "chain.json: one group row, (10 sources) against 10 applies, times A $want_a and B $want_b summed from the captures"
grep -q 'Applies: 0 paired .*, 0 added, 0 removed;' "$tmp/c.out" &&
    grep -q 'Grouped by source nodes: 1 group (10 applies of A against 1 of B' "$tmp/c.out"
ok $? "chain.json: nothing added or removed, 1 group"
# the group row's per-call columns: its time per call of the function (5
# rounds), what it is judged on, not per execution of applies unlike
# (the ten of A would read 10x faster each than the Composite)
# (each apply's share to 17 digits, as the diff sums them: awk's print
# keeps 6, and their sum then missed the report's last digit now and then)
per_a=$(applies "$tmp/ca.json" | awk '{ printf "%.17g\n", $3 / 5 }' | secs)
per_b=$(applies "$tmp/cb.json" | awk '{ printf "%.17g\n", $3 / 5 }' | secs)
[ "$(awk '{ print $5 " " $6 " " $7 " " $8 }' "$tmp/c.rows")" = \
    "$per_a $per_b 5 5" ]
ok $? "chain.json: the group row per call of the function: A $per_a, B $per_b, 5 calls each"

"$GPTOP" --batch -n 5 --flags optimizer_excluding=gemm \
    --save "$tmp/ma.json" "$graphs/mlp.json" >/dev/null 2>&1 &&
"$GPTOP" --batch -n 5 --save "$tmp/mb.json" "$graphs/mlp.json" \
    >/dev/null 2>&1 &&
"$GPTOP" --batch --diff --flags profiling__n_apply=100 "$tmp/ma.json" \
    "$tmp/mb.json" >"$tmp/m.out" 2>&1
ok $? "mlp.json: gemm off and on, diffed"
# the op indices of B's Gemms, then each Gemm's source nodes
gemm_ops=$(grep '^ "ops": ' "$tmp/mb.json" | sed 's/},{/}\n{/g' |
    awk '/"class":"Gemm"/ { print NR - 1 }' | tr '\n' ' ')
applies "$tmp/mb.json" | awk -v ops=" $gemm_ops" \
    'index(ops, " " $1 " ") { print $2 }' >"$tmp/gemm.src"
applies "$tmp/ma.json" >"$tmp/ma.applies"
# per Gemm, the total of A's applies within its sources
while read -r set; do
	awk -v set="$set" 'BEGIN { n = split(set, s, ","); for (i = 1; i <= n; i++) in_set[s[i]] = 1 }
	    { k = split($2, t, ","); inside = 1
	      for (i = 1; i <= k; i++) if (!(t[i] in in_set)) inside = 0
	      if (inside) { print $3; m++ } }
	    END { if (m != 2) print "x" }' "$tmp/ma.applies" | secs
done <"$tmp/gemm.src" | sort >"$tmp/want"
rows "$tmp/m.out" | grep ' (3 sources)  \[A: 2 applies\]$' |
    awk '{ print $1 }' | sort >"$tmp/got"
[ "$(wc -l <"$tmp/gemm.src")" -eq 3 ] && [ "$(wc -l <"$tmp/got")" -eq 3 ] &&
    cmp -s "$tmp/want" "$tmp/got"
ok $? "mlp.json: each of the 3 Gemms against the 2 applies of A doing its 3 source nodes' work, time A their sum ($(tr '\n' ' ' <"$tmp/got"))"
grep -q 'Applies: [0-9]* paired .*, 0 added, 0 removed;' "$tmp/m.out"
ok $? "mlp.json: nothing added or removed"
exit $fail
