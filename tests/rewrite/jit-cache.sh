#!/bin/sh
# tests/rewrite/jit-cache.sh: the JIT's cache through the gptop binary.
# Two gptop processes started at once on an empty cache folder both
# succeed and leave one entry and no temporary file; a third run compiles
# nothing; an entry overwritten with garbage is rebuilt; the folder is
# mode 0700.  TAP output; skipped without a C compiler.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
graph=$top_srcdir/data/graphs/chain.json

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
if ! ${CC:-cc} --version >/dev/null 2>&1; then
	echo "1..0 # SKIP no C compiler"
	exit 0
fi

. "$top_srcdir/tests/tap.sh"
tap_tmp jit
cache=$tmp/cache

t() {
	if "$@"; then echo 0; else echo 1; fi
}

# gptop with the test cache; the output line and the profile's JIT type.
gp() {
	env XDG_CACHE_HOME="$cache" GPTOP_FLAGS= "$GPTOP" --batch -n 2 "$graph"
}

gp >"$tmp/out1" 2>"$tmp/err1" &
p1=$!
gp >"$tmp/out2" 2>"$tmp/err2" &
p2=$!
wait $p1
rc1=$?
wait $p2
rc2=$?
ok $([ "$rc1" = 0 ] && [ "$rc2" = 0 ]; echo $?) \
    "two processes on an empty cache both succeed ($rc1, $rc2)"
grep '^  output' "$tmp/out1" >"$tmp/o1"
grep '^  output' "$tmp/out2" >"$tmp/o2"
ok $(t cmp -s "$tmp/o1" "$tmp/o2") "both compute the same output"
ok $(t grep -q ' JIT .*Composite' "$tmp/out1") "the Composite runs as JIT"
entries=$(ls "$cache/gptop" | grep -c '\.so$')
leftovers=$(ls "$cache/gptop" | grep -c '^tmp-')
ok $(t [ "$entries" = 1 ]) "one cache entry (got $entries)"
ok $(t [ "$leftovers" = 0 ]) "no temporary files (got $leftovers)"
mode=$(stat -c %a "$cache/gptop" 2>/dev/null)
ok $(t [ "$mode" = 700 ]) "cache folder mode 700 (got $mode)"

so=$(ls "$cache/gptop"/*.so)
before=$(stat -c %Y.%i "$so")
sleep 1
gp >"$tmp/out3" 2>"$tmp/err3"
ok $(t [ "$(stat -c %Y.%i "$so")" = "$before" ]) \
    "a warm run compiles nothing (the entry is untouched)"
link=$(awk '/Linker time:/ { sub(/s$/, "", $3); print $3 }' "$tmp/out3")
ok $(t awk -v l="$link" 'BEGIN { exit !(l + 0 < 0.05) }') \
    "warm-cache link time under 50 ms (got ${link}s)"
echo "# warm-cache link time: ${link}s"

echo garbage >"$so"
gp >"$tmp/out4" 2>"$tmp/err4"
rc=$?
grep '^  output' "$tmp/out4" >"$tmp/o4"
ok $([ "$rc" = 0 ] && cmp -s "$tmp/o1" "$tmp/o4"; echo $?) \
    "a corrupt entry: gptop still succeeds, same output"
ok $(t grep -q ' JIT .*Composite' "$tmp/out4") "...and it runs as JIT"
magic=$(head -c 4 "$so" | tail -c 3)
ok $(t [ "$magic" = ELF ]) "the entry was rebuilt"

# the size bound: ten stale 100 kB entries and a 300 kB bound; a run that
# compiles keeps its entry and prunes the oldest down to 3/4 of the bound
rm -f "$cache/gptop"/*.so
i=0
while [ $i -lt 10 ]; do
	head -c 100000 /dev/zero >"$cache/gptop/old$i.so"
	touch -d "2020-01-0$((i % 9 + 1)) 00:00:0$i" "$cache/gptop/old$i.so"
	i=$((i + 1))
done
env GPTOP_JIT_CACHE_MAX=300000 XDG_CACHE_HOME="$cache" GPTOP_FLAGS= \
    "$GPTOP" --batch -n 2 "$graph" >"$tmp/out5" 2>"$tmp/err5"
ok $? "a run over a full cache succeeds"
total=$(du -cb "$cache/gptop"/*.so | awk 'END { print $1 }')
fresh=$(ls "$cache/gptop" | grep -v '^old' | grep -c '\.so$')
left=$(ls "$cache/gptop" | grep -c '^old')
ok $(t [ "$total" -le 300000 ]) "the cache is pruned under its bound ($total bytes)"
ok $(t [ "$fresh" = 1 ]) "the new entry is kept"
ok $(t [ "$left" -lt 10 ] && [ "$left" -ge 1 ]) \
    "only the oldest entries went ($left of 10 left)"
ok $(t [ ! -e "$cache/gptop/old0.so" ]) "the oldest went first"

echo "1..$n"
exit $fail
