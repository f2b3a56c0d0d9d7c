#!/bin/sh
# run-escapes.sh: strings from a capture never reach the terminal as
# control sequences.  A capture whose machine, graph, function, op,
# apply and variable names hold ESC and BEL sequences (an OSC 52
# clipboard write, a screen clear, a title change, a terminal reset) and
# C1 controls (U+009B CSI, U+009D OSC, U+0085 NEL) is reported by
# `--batch` and `--diff` with none of those bytes on stdout or stderr:
# each is shown \xNN.  Messages that quote a capture's text (a bad format
# string) and a graph's escape them too, C1 included.  TAP output; skips
# while gptop is not built.
# Environment (set by make check): top_srcdir, GPTOP.

top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
GPTOP=${GPTOP:-./gptop}
. "$top_srcdir/tests/tap.sh"

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP is not built"
	exit 0
fi
if ! printf 'a\033b\n' | LC_ALL=C grep -q -P '\x1b' 2>/dev/null; then
	echo "1..0 # SKIP grep -P is not available"
	exit 0
fi
tap_tmp escapes

# raw C0 controls (but tab and newline), DEL, or C1 controls in UTF-8
raw() {
	LC_ALL=C grep -q -P '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$@"
}

# JSON \u escapes: the file itself is plain ASCII, jansson decodes them
sed -e 's/"cpu":"Example CPU"/"cpu":"Example \\u001b]52;c;cHduZWQ=\\u0007CPU"/' \
    -e 's/"os":"Linux 6.1 x86_64"/"os":"Linux\\u001bc 6.1"/' \
    -e 's/"name":"add3"/"name":"add3\\u009b31m"/' \
    -e 's|"path":"data/graphs/add3.json"|"path":"data/\\u009d0;t\\u009cadd3.json"|' \
    -e 's/{"name":"f",/{"name":"f\\u001b[2J\\u001b[H",/' \
    -e 's/{"op":"Elemwise{add}",/{"op":"Elemwise{add}\\u001b]0;pwned\\u0007",/' \
    -e 's/\["x",0,-1\]/["x\\u0085",0,-1]/' \
    "$top_srcdir/tests/capture/good.capture.json" >"$tmp/esc.json"
n_u=$(grep -o '\\u00' "$tmp/esc.json" | wc -l)
[ "$n_u" -eq 11 ]
ok $? "the capture holds the 11 escapes ($n_u)"

"$GPTOP" --batch "$tmp/esc.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q '^Function profiling' "$tmp/out"
ok $? "--batch reports the capture (exit $rc)"
! raw "$tmp/out" "$tmp/err"
ok $? "--batch: no raw control bytes on stdout or stderr"
grep -q -F 'Example \x1b]52;c;cHduZWQ=\x07CPU' "$tmp/out" "$tmp/err" &&
    grep -q -F 'add3\xc2\x9b31m' "$tmp/out" "$tmp/err" &&
    grep -q -F 'Elemwise{add}\x1b]0;pwned\x07' "$tmp/out" &&
    grep -q -F 'f\x1b[2J\x1b[H' "$tmp/out"
ok $? "--batch: the machine, graph, op and function names shown \\xNN"

"$GPTOP" --batch --diff "$tmp/esc.json" "$tmp/esc.json" >"$tmp/out" \
    2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/out" ]
ok $? "--diff reports the capture against itself (exit $rc)"
! raw "$tmp/out" "$tmp/err"
ok $? "--diff: no raw control bytes on stdout or stderr"
grep -q -F 'Elemwise{add}\x1b]0;pwned\x07' "$tmp/out"
ok $? "--diff: the op name shown \\xNN"

# a merge keeps the text it read (escaped), and the result still shows
# no raw byte
"$GPTOP" merge "$tmp/esc.json" "$tmp/esc.json" -o "$tmp/m.json" \
    >/dev/null 2>"$tmp/err" &&
    "$GPTOP" --batch "$tmp/m.json" >"$tmp/out" 2>>"$tmp/err" &&
    ! raw "$tmp/out" "$tmp/err"
ok $? "merge, then --batch: no raw control bytes"

# messages: a bad format string quoted, with ESC, BEL and C1 in it
sed 's|"format": "gptop-capture/1"|"format": "gptop-capture/\\u001b]0;x\\u0007\\u009b1"|' \
    "$top_srcdir/tests/capture/good.capture.json" >"$tmp/fmt.json"
"$GPTOP" --batch "$tmp/fmt.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ! raw "$tmp/err" &&
    grep -q -F 'gptop-capture/\x1b]0;x\x07\xc2\x9b1' "$tmp/err"
ok $? "a message quoting a capture's format escapes ESC, BEL and C1 (exit $rc)"

# a graph: its loader refuses names with controls, and its message shows
# a C1 \xNN
printf '%s\n' '{"format": "gptop-graph/1", "name": "g",' \
    ' "variables": {"x\u009b2J": {"kind": "input", "dtype": "float64", "shape": [2]}},' \
    ' "nodes": [{"op": "neg", "inputs": ["nosuch\u009b2J"], "outputs": ["y"]}],' \
    ' "functions": {"f": {"outputs": ["y"]}}}' >"$tmp/g.json"
"$GPTOP" --check "$tmp/g.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ! raw "$tmp/err" && grep -q -F '\xc2\x9b' "$tmp/err"
ok $? "a graph's message escapes C1 controls (exit $rc)"
[ $fail -ne 0 ] && sed 's/^/# stderr: /' "$tmp/err" | LC_ALL=C od -c | head -5

echo "1..$n"
[ "$fail" -eq 0 ]
