#!/bin/sh
# noise-aa.sh: how often the diff of two captures of the same graph and
# flags, taken one after the other, flags anything (a row marked + or -).
# Per example graph (every graph in GRAPHS), REPS times: `gptop --batch
# --save` twice, then `gptop --batch --diff`.  Prints, per graph, the diffs that flagged
# something and the rows each flagged; exits 1 when a graph flagged more
# than REPS/20 of its diffs (the target: nothing in 19 of 20).
#
#	bench/noise-aa.sh [GPTOP [REPS [CALLS]]]	(defaults: ./gptop 20 20)
#
# Environment: GRAPHS (default data/graphs), OPENBLAS_NUM_THREADS passed on;
# KEEP=DIR keeps the captures there (GRAPH-I-a.json, GRAPH-I-b.json), to
# diff the same pairs again with another build.
gptop=${1:-./gptop}
reps=${2:-20}
calls=${3:-20}
graphs=${GRAPHS:-$(dirname "$0")/../data/graphs}
if [ -n "$KEEP" ]; then
	tmp=$KEEP
	mkdir -p "$tmp" || exit 1
else
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
fi
rc=0
for f in "$graphs"/*.json; do
	g=$(basename "$f" .json)
	bad=0
	rows=""
	i=0
	while [ $i -lt "$reps" ]; do
		i=$((i + 1))
		for s in a b; do
			"$gptop" --batch --allow-extern -n "$calls" \
			    --save "$tmp/$g-$i-$s.json" "$graphs/$g.json" \
			    >/dev/null ||
			    exit 2
		done
		k=$("$gptop" --batch --diff "$tmp/$g-$i-a.json" \
		    "$tmp/$g-$i-b.json" |
		    grep -c ' p=[0-9]')
		rows="$rows $k"
		[ "$k" -gt 0 ] && bad=$((bad + 1))
	done
	echo "$g: $bad of $reps diffs flagged something (rows:$rows)"
	[ $((bad * 20)) -gt "$reps" ] && rc=1
done
exit $rc
