#!/bin/sh
# tests/include-graph.sh: no include cycle between the modules of src/ and
# ui/ (x.c and x.h are one module) but the known ones listed in
# tests/include-graph/known-cycles (each printed as a TODO note), and no
# include from a lower layer to a higher one (tests/include-graph/layers:
# the runtime never includes the interface or curses, the ops never the
# profiler).  The checker itself is tried first on small fixture trees:
# a clean tree passes, a cycle fails naming it, a known cycle passes, a
# new cycle through a known one fails, a stale entry of the known list
# fails, an upward include fails naming the file and line.
: "${top_srcdir:=.}"
. "$top_srcdir/tests/tap.sh"
d="$top_srcdir/tests/include-graph"
fx="$d/fixtures"
chk() {
	out=$(sh "$d/check-includes" "$@" 2>&1)
	rc=$?
	got=$(printf '%s' "$out" | tr '\n' '|')
}

chk -l "$fx/layers" "$fx/clean"
[ $rc = 0 ] && [ -z "$out" ]
ok $? "a clean tree passes, silently (got $rc: $got)"

chk -l "$fx/layers" "$fx/cycle"
[ $rc = 1 ] && [ "$out" = "include cycle: src/a -> src/b -> src/a (src/a.h:1, src/b.c:2)" ]
ok $? "a cycle fails, named with the include lines (got $rc: $got)"

chk -k "$fx/known-ab" "$fx/cycle"
[ $rc = 0 ] && [ "$out" = "TODO: known include cycle src/a -> src/b -> src/a (src/a.h:1, src/b.c:2): to be removed" ]
ok $? "a known cycle passes as a TODO (got $rc: $got)"

chk -k "$fx/known-ab" "$fx/cycle3"
[ $rc = 1 ] && echo "$out" | grep -qx "include cycle: src/a -> src/b -> src/c -> src/a (src/a.h:1, src/b.c:2, src/c.c:2)" &&
    echo "$out" | grep -q "^TODO: known include cycle src/a -> src/b -> src/a "
ok $? "a new cycle through a known one fails (got $rc: $got)"

chk -k "$fx/known-stale" "$fx/cycle"
[ $rc = 1 ] && echo "$out" | grep -qx "known include cycle src/a -> src/c -> src/a is gone: remove it from $fx/known-stale"
ok $? "a known cycle that is gone fails (got $rc: $got)"

chk -l "$fx/layers" "$fx/upward"
[ $rc = 1 ] && [ "$out" = "upward include: src/ops/k.h:2: src/ops/k (layer 2 ops) includes src/prof (layer 3 runtime)
upward include: src/prof.c:3: src/prof (layer 3 runtime) includes <curses> (layer 4 ui)" ]
ok $? "upward includes fail, curses in src/ too (got $rc: $got)"

chk "$fx/nonexistent"
[ $rc = 2 ]
ok $? "a missing tree is a usage error, exit 2 (got $rc)"

# the sources
chk -k "$d/known-cycles" -l "$d/layers" "$top_srcdir"
printf '%s\n' "$out" | sed 's/^/# /'
[ $rc = 0 ]
ok $? "src/ and ui/: no include cycle but the known ones, no upward include"
echo "1..$n"
exit $fail
