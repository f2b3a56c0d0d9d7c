#!/bin/sh
# tests/models/graphs-current.sh: data/graphs/logreg.json, mlp.json and
# mlp32.json are what data/make-graphs.py writes (so a change made to one
# is made in the generator too).  Skipped without python3.  TAP output.

: "${top_srcdir:=.}"
py=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no python3"
	exit 0
fi
echo "1..1"
if out=$("$py" "$top_srcdir/data/make-graphs.py" --check 2>&1); then
	echo "ok 1 - the model graphs are what data/make-graphs.py writes"
	exit 0
fi
printf '%s\n' "$out" | sed 's/^/# /'
echo "not ok 1 - the model graphs are what data/make-graphs.py writes"
exit 1
