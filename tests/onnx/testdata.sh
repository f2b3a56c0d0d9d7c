#!/bin/sh
# testdata.sh: gptop --check over ONNX's own backend test data, as Debian's
# libonnx-testdata installs it (/usr/share/libonnx-testdata/data, or
# $ONNX_TESTDATA).  Every model.onnx of node/ (one per op case) must read
# (status 0) and its summary's op types must agree with the file: each op
# type printed occurs in the file's bytes (found by grep, not by
# protobuf-c), the counts add up to the node count, and for a case that is
# not an "_expanded" one (those hold the function body of their op), the
# op named by the folder (test_OP_...) is among them (the folders that
# abbreviate their op are listed below).  The models of pytorch-converted/,
# pytorch-operator/ and simple/ must read too.  TAP output; the counts are
# printed.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
data=${ONNX_TESTDATA:-/usr/share/libonnx-testdata/data}

if [ ! -x "$GPTOP" ]; then
	echo "1..0 # SKIP $GPTOP not built"
	exit 0
fi
if [ ! -d "$data/node" ]; then
	echo "1..0 # SKIP $data/node missing (Debian package libonnx-testdata)"
	exit 0
fi
. "$top_srcdir/tests/tap.sh"
tap_tmp testdata

# the op of a folder whose name abbreviates it
alias_of() {
	case $1 in
	sce*) echo softmaxcrossentropyloss ;;
	nllloss*) echo negativeloglikelihoodloss ;;
	trainingdropout*) echo dropout ;;
	strnormalizer*) echo stringnormalizer ;;
	simplernn*) echo rnn ;;
	tril* | triu*) echo trilu ;;
	lessequal*) echo lessorequal ;;
	greaterequal*) echo greaterorequal ;;
	batchnorm*) echo batchnormalization ;;
	instancenorm*) echo instancenormalization ;;
	mvn*) echo meanvariancenormalization ;;
	nesterovmomentum*) echo momentum ;;
	*) echo - ;;
	esac
}

read_ok=0 read_bad=0 ops_bad=0 total=0
for m in "$data"/node/*/model.onnx; do
	total=$((total + 1))
	name=$(basename "$(dirname "$m")")
	if ! "$GPTOP" --check "$m" >"$tmp/out" 2>"$tmp/err"; then
		read_bad=$((read_bad + 1))
		echo "# $name: $(cat "$tmp/err")"
		continue
	fi
	read_ok=$((read_ok + 1))
	nodes=$(sed -n 's/^  nodes: //p' "$tmp/out")
	sed -n 's/^  op types: //p' "$tmp/out" | tr ',' '\n' |
	    sed 's/^ //' >"$tmp/ops"
	sum=0 found=0 bad=
	key=$(echo "${name#test_}" | tr -d _ | tr 'A-Z' 'a-z')
	alias=$(alias_of "$key")
	while read -r op count; do
		sum=$((sum + count))
		base=${op##*.}
		grep -qaF "$base" "$m" || bad="$bad $op(not in the file)"
		lo=$(echo "$base" | tr 'A-Z' 'a-z')
		case $key in
		*"$lo"*) found=1 ;;
		esac
		[ "$lo" = "$alias" ] && found=1
	done <"$tmp/ops"
	[ "$sum" = "$nodes" ] || bad="$bad counts($sum of $nodes)"
	case $name in
	*_expanded) ;;
	*) [ $found = 1 ] || bad="$bad no-op-of-the-folder" ;;
	esac
	if [ -n "$bad" ]; then
		ops_bad=$((ops_bad + 1))
		echo "# $name: $(cat "$tmp/ops" | tr '\n' ' '):$bad"
	fi
done
[ $total -gt 900 ]
ok $? "node/: $total cases (ONNX 1.12 has 932)"
[ $read_bad -eq 0 ]
ok $? "node/: $read_ok of $total models read, $read_bad refused"
[ $ops_bad -eq 0 ]
ok $? "node/: the op types of $((read_ok - ops_bad)) of $read_ok agree with the file and the folder"

other=0 other_bad=0
for m in "$data"/pytorch-converted/*/model.onnx \
    "$data"/pytorch-operator/*/model.onnx "$data"/simple/*/model.onnx; do
	[ -f "$m" ] || continue
	other=$((other + 1))
	if ! "$GPTOP" --check "$m" >/dev/null 2>"$tmp/err"; then
		other_bad=$((other_bad + 1))
		echo "# $(cat "$tmp/err")"
	fi
done
[ $other -gt 0 ] && [ $other_bad -eq 0 ]
ok $? "pytorch-converted/, pytorch-operator/, simple/: $((other - other_bad)) of $other models read"

echo "1..$n"
exit $fail
