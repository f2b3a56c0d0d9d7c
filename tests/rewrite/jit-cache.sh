#!/bin/sh
# tests/rewrite/jit-cache.sh: the JIT's cache through the gptop binary.
# Two gptop processes started at once on an empty cache folder both
# succeed and leave one entry and no temporary file; a third run compiles
# nothing; an entry overwritten with garbage is rebuilt; the folder is
# mode 0700; an object planted under an entry's name, or a symbolic link,
# is never loaded (its constructor never runs); $CC is split at blanks
# and never given to a shell; a cache folder others can write to is
# refused with one note; the temporaries a killed process left
# (tmp-<pid>-*) are removed once their process is gone, and only then.
# TAP output; skipped without a C compiler.

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

# a cache entry is verified before it is opened: an object planted under
# an entry's name (its constructor would leave a mark) is never loaded,
# and the entry is built again
rm -f "$cache/gptop"/*.so "$cache/gptop"/*.sum
gp >/dev/null 2>&1
so=$(ls "$cache/gptop"/*.so)
printf '%s\n' '#include <stdio.h>' \
    'static void __attribute__((constructor)) mark(void) {' \
    "	FILE *f = fopen(\"$tmp/constructor-ran\", \"w\");" \
    '	if (f) fclose(f);' '}' 'const char gp_jit_stamp[] = "x";' \
    >"$tmp/plant.c"
${CC:-cc} -shared -fPIC -o "$tmp/plant.so" "$tmp/plant.c" 2>/dev/null
cp "$tmp/plant.so" "$so"
gp >"$tmp/out6" 2>"$tmp/err6"
rc=$?
grep '^  output' "$tmp/out6" >"$tmp/o6"
ok $(t [ ! -e "$tmp/constructor-ran" ]) \
    "a planted object's constructor never runs"
ok $([ "$rc" = 0 ] && cmp -s "$tmp/o1" "$tmp/o6" &&
    grep -q ' JIT .*Composite' "$tmp/out6"; echo $?) \
    "...gptop rebuilds the entry: same output, as JIT"
cmp -s "$so" "$tmp/plant.so"
ok $([ $? = 1 ]; echo $?) "the planted object was replaced"

# a symbolic link, even to the entry's own (good) bytes, is not followed
mv "$so" "$tmp/real.so"
ln -s "$tmp/real.so" "$so"
gp >"$tmp/out7" 2>"$tmp/err7"
rc=$?
ok $([ "$rc" = 0 ] && [ ! -L "$so" ] && [ -f "$so" ]; echo $?) \
    "an entry that is a symbolic link is not loaded: rebuilt as a file"
ln -sf "$tmp/plant.so" "$so"
gp >/dev/null 2>&1
ok $(t [ ! -e "$tmp/constructor-ran" ]) \
    "a symbolic link to a planted object: its constructor never runs"

# the compiler runs without a shell: $CC is split at blanks (a flag in it
# works), and shell syntax in it is never run
rm -rf "$cache"
env CC="${CC:-cc} -O1" XDG_CACHE_HOME="$cache" GPTOP_FLAGS= \
    "$GPTOP" --batch -n 2 "$graph" >"$tmp/out8" 2>"$tmp/err8"
ok $([ $? = 0 ] && grep -q ' JIT .*Composite' "$tmp/out8"; echo $?) \
    "CC with a flag in it ('${CC:-cc} -O1') compiles"
env CC="${CC:-cc}\$(touch $tmp/shell-ran)" XDG_CACHE_HOME="$tmp/cache2" \
    GPTOP_FLAGS= "$GPTOP" --batch -n 2 "$graph" >"$tmp/out9" 2>"$tmp/err9"
rc=$?
ok $(t [ ! -e "$tmp/shell-ran" ]) "shell syntax in CC is not run"
ok $(t [ "$rc" = 0 ]) "...and gptop still runs (without the JIT: $rc)"

# a cache folder that others can write to is not used, and gptop says so
# once, with where the objects went instead
mkdir -p "$tmp/open/gptop"
chmod 777 "$tmp/open/gptop"
env XDG_CACHE_HOME="$tmp/open" GPTOP_FLAGS= "$GPTOP" --batch -n 2 \
    "$graph" >"$tmp/out10" 2>"$tmp/err10"
rc=$?
said=$(grep -c "JIT: cache folder $tmp/open/gptop not used: others can write to it (mode 777); compiled code goes to a temporary folder" "$tmp/err10")
ok $([ "$rc" = 0 ] && [ "$said" = 1 ]; echo $?) \
    "a cache folder others can write to: refused, said once ($said)"
ok $(t [ -z "$(ls "$tmp/open/gptop")" ]) "...and nothing is written to it"

# a killed build's leftovers: a gone process's minute-old temporaries go;
# a live process's, and a gone one's made just now, stay
sh -c 'exit 0' &
dead=$!
wait $dead
for ext in c log so; do
	echo x >"$cache/gptop/tmp-$dead-0-0123abcd.$ext"
	touch -d "2020-01-01 00:00:00" "$cache/gptop/tmp-$dead-0-0123abcd.$ext"
done
echo x >"$cache/gptop/tmp-$$-0-live.c"
touch -d "2020-01-01 00:00:00" "$cache/gptop/tmp-$$-0-live.c"
echo x >"$cache/gptop/tmp-$dead-1-fresh.c"
env XDG_CACHE_HOME="$cache" GPTOP_FLAGS= "$GPTOP" --batch -n 2 "$graph" \
    >"$tmp/out-stale" 2>"$tmp/err-stale"
ok $? "a run over a dead process's temporaries succeeds"
gone=$(ls "$cache/gptop" | grep -c "^tmp-$dead-0-")
ok $(t [ "$gone" = 0 ]) "a gone process's old .c, .log and .so are removed ($gone left)"
ok $(t [ -e "$cache/gptop/tmp-$$-0-live.c" ]) "a live process's temporary stays"
ok $(t [ -e "$cache/gptop/tmp-$dead-1-fresh.c" ]) \
    "a gone process's temporary under a minute old stays"

echo "1..$n"
exit $fail
