#!/bin/sh
# tui-resnet18.sh: a user profiles resnet18 (the model tests/onnx/
# make-resnet18 writes: torchvision's architecture, seeded random weights)
# in the interface: the Class view ranks Conv first; the Ops view's three
# costliest rows are conv ops, the Apply view's costliest apply is a
# convolution and the 20 convolutions take at least 75% of the time, each
# with its flops (Mflops, as computed by hand: 2 x Cout x Hout x Wout x
# Cin x k x k) and a GFLOP/s figure; the Memory view shows conv1's im2col
# work space in its scratch column (conv1's im2col at the peak, or with
# the float32 blocked gemm its packed blocks).
. "$top_srcdir/tests/ui/tui-lib.sh"

MAKE_RN18=${MAKE_RN18:-${top_builddir:-.}/tests/onnx/make-resnet18}
model=$TUI_TMP/resnet18.onnx

# the first N rows under the table header matching HRE
rows_under() {
	tui_screen | awk -v re="$1" -v n="$2" \
	    'found && n-- > 0 { print } $0 ~ re { found = 1 }'
}
# the first N rows all match RE (the screen may be half drawn: retried)
first_rows() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		if [ "$(rows_under "$1" "$2" | grep -Ec -- "$3")" = "$2" ]; then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

# a conv's flops per execution (Mflops) then its GFLOP/s (not 0)
FL='(236\.028|231\.211|115\.606|12\.845) +[0-9]*\.[0-9]*[1-9][0-9]*'

echo "1..8"
if ! "$MAKE_RN18" "$model" >"$TUI_TMP/make.out" 2>&1; then
	echo "Bail out! make-resnet18: $(cat "$TUI_TMP/make.out")"
	exit 1
fi
tui_shell 200 50
tui_run -d 2 "$model"
check "the Class view ranks Conv first" \
    tui_wait_first 'Mflops +Gflops/s +Class name' ' (C|BLAS) .* Conv *$'
tui_keys 2
check "2: the Ops view's 3 costliest rows are conv ops, with Mflops and Gflops/s" \
    first_rows 'Mflops +Gflops/s +Op name' 3 " (C|BLAS) +[0-9]+ +[0-9]+ +$FL Conv\{"
check "... the 3x3 convs: 231.211 Mflops each (2 x 64 x 56 x 56 x 64 x 9)" \
    tui_wait ' 231\.211 +[0-9.]+ Conv\{3x3,p1\} *$'
tui_keys 3
check "3: the Apply view's costliest apply is a convolution, with Mflops and Gflops/s" \
    first_rows 'Mflops +Gflops/s +from +Apply name' 1 " (C|BLAS) +[0-9]+ +[0-9]+ +$FL .*/Conv *$"
# every conv row, with its flops and GFLOP/s, and their share of the time
# (in a sanitizer build the C loops slow down more than BLAS does: not
# "the 5 costliest")
conv_share() {
	tries=$((TUI_TIMEOUT * 10))
	while [ "$tries" -gt 0 ]; do
		if rows_under 'Mflops +Gflops/s +from +Apply name' 34 | awk \
		    -v re=" (C|BLAS) +[0-9]+ +[0-9]+ +$FL .*/Conv *\$" '
		    $0 ~ re { n++; s += $1 } END { exit !(n == 20 && s >= 75) }'
		then
			return 0
		fi
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}
check "... its 20 convolutions, each with its Mflops and Gflops/s, take >= 75% of the time" \
    conv_share
check "... conv1: 236.028 Mflops (2 x 64 x 112 x 112 x 3 x 7 x 7)" \
    tui_wait ' 236\.028 +[0-9.]+ /conv1/Conv +/conv1/Conv *$'
tui_keys 4
# (a CPU with AVX2 and FMA runs the float32 convs as the blocked gemm of
# src/ops/conv-gemm.c: its packed blocks are the work space, 1.8MiB for
# layer3's 3x3 convs (2304 x 208 x 4 B + 64), and the peak is during the
# MaxPool; other CPUs, im2col + sgemm: conv1's im2col, 7.0MiB, at the peak)
check "4: the Memory view shows the convs' work space in its scratch column (conv1's im2col at the peak, or the gemm's packed col)" \
    tui_wait_all 'allocated +scratch +during' \
    ' 3\.1MiB +(7\.0MiB|[0-9.]+KiB) +.* /conv1/Conv *$' \
    '(kernel scratch at the peak 7\.0MiB\)| 1\.8MiB +.* 19 /layer3/layer3\.0/co)'
tui_keys q
check "q quits: exit status 0, no sanitizer report" tui_exited 0
tui_done
