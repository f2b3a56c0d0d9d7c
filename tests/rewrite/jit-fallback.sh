#!/bin/sh
# tests/rewrite/jit-fallback.sh: without a C compiler (CC names none) or
# with jit=False, fused loops run in the interpreter: the same output, the
# profile says Interp, and gptop says so once on stderr.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
graph=$top_srcdir/data/graphs/add3.json

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi

. "$top_srcdir/tests/tap.sh"
tap_tmp jit

t() {
	if "$@"; then echo 0; else echo 1; fi
}

env GPTOP_FLAGS= XDG_CACHE_HOME="$tmp/cache" "$GPTOP" --batch -n 3 \
    --flags optimizer=None "$graph" >"$tmp/ref" 2>/dev/null
grep '^  output' "$tmp/ref" >"$tmp/ref.o"

env GPTOP_FLAGS= CC=/nonexistent/cc XDG_CACHE_HOME="$tmp/cache" \
    "$GPTOP" --batch -n 3 "$graph" >"$tmp/out" 2>"$tmp/err"
rc=$?
grep '^  output' "$tmp/out" >"$tmp/out.o"
ok $(t [ "$rc" = 0 ]) "no compiler: gptop succeeds"
ok $(t cmp -s "$tmp/ref.o" "$tmp/out.o") "no compiler: same output"
ok $(t grep -q ' Interp .*Composite' "$tmp/out") \
    "no compiler: the Composite is interpreted"
c=$(grep -c 'no C compiler' "$tmp/err")
ok $(t [ "$c" = 1 ]) "no compiler: said once on stderr (got $c)"

env GPTOP_FLAGS= XDG_CACHE_HOME="$tmp/cache" "$GPTOP" --batch -n 3 \
    --flags jit=False "$graph" >"$tmp/out" 2>"$tmp/err"
rc=$?
grep '^  output' "$tmp/out" >"$tmp/out.o"
ok $(t [ "$rc" = 0 ]) "jit=False: gptop succeeds"
ok $(t cmp -s "$tmp/ref.o" "$tmp/out.o") "jit=False: same output"
ok $(t grep -q ' Interp .*Composite' "$tmp/out") \
    "jit=False: the Composite is interpreted"
c=$(grep -c 'jit=False' "$tmp/err")
ok $(t [ "$c" = 1 ]) "jit=False: said once on stderr (got $c)"
ok $([ ! -d "$tmp/cache/gptop" ] || [ -z "$(ls "$tmp/cache/gptop")" ]; echo $?) \
    "jit=False: nothing compiled"

echo "1..$n"
exit $fail
