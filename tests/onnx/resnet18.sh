#!/bin/sh
# resnet18.sh: the resnet18-shaped model tests/onnx/make-resnet18 writes
# (no torch needed), run in batch mode: gptop --check counts torchvision's
# resnet18 layers; the Apply and Ops tables rank the convolutions first,
# with each conv's flops as computed here by hand (2 x Cout x Hout x Wout
# x Cin x k x k) and a GFLOP/s figure; the memory profile counts the
# convolutions' work space (the blocked gemm's packed col, layer3's, and
# Winograd's buffers, layer2's the largest; without AVX2, conv1's im2col:
# 3 x 7 x 7 by 112 x 112 float32)
# and its predicted peak equals the allocator's measured peak
# with GC on and off; a capture keeps the work space.  TAP output.

: "${top_srcdir:=.}" "${top_builddir:=.}" "${GPTOP:=$top_builddir/gptop}"
MAKE_RN18=${MAKE_RN18:-$top_builddir/tests/onnx/make-resnet18}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-rn18.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
t() {	# t DESCRIPTION COMMAND...: one TAP line
	d=$1
	shift
	n=$((n + 1))
	if "$@" >"$tmp/t.out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		sed 's/^/# /' "$tmp/t.out" | head -n 20
		fail=1
	fi
}
has() {	# has FILE EXTENDED-REGEX...: every pattern matches a line
	f=$1
	shift
	for re in "$@"; do
		grep -Eq -- "$re" "$f" || { echo "no line matches: $re"; return 1; }
	done
}

echo "1..14"
model=$tmp/resnet18.onnx
t "make-resnet18 writes the model: 69 nodes, 11,699,112 values" \
    sh -c "'$MAKE_RN18' '$model' >'$tmp/make.out' &&
    grep -q 'resnet18, 69 nodes, 11699112 parameters' '$tmp/make.out'"
"$GPTOP" --check "$model" >"$tmp/check.txt" 2>&1
t "gptop --check: resnet18's layers (20 conv + 20 batch norm, 17 relu, 8 adds, ...)" \
    has "$tmp/check.txt" \
    'op types: BatchNormalization 20, Conv 20, Relu 17, Add 8, Flatten 1, Gemm 1, GlobalAveragePool 1, MaxPool 1' \
    'input +float32\(1, 3, 224, 224\)' 'output +float32\(1, 1000\)'

"$GPTOP" --batch -n 5 --flags profile_memory=True,profiling__n_apply=100 \
    --save "$tmp/cap.json" "$model" >"$tmp/on.txt" 2>"$tmp/on.err"
t "a batch run with the memory profile" test -s "$tmp/on.txt"
sed -n '/^Apply$/,/^$/p' "$tmp/on.txt" | grep -E '^ +[0-9.]+%' >"$tmp/apply"
sed -n '/^Ops$/,/^$/p' "$tmp/on.txt" | grep -E '^ +[0-9.]+%' >"$tmp/ops"
# The offenders judged by each apply's median time per call (column 5),
# not by the totals: on a loaded machine one preemption of a few ms in
# one of 5 calls of a 1 ms MaxPool would otherwise outrank a conv (CI
# failed it at load 14).  Each apply runs once a call, so the medians'
# sum is a typical call.  (Not the 5 costliest: in a sanitizer build the
# C loops, MaxPool's among them, slow down more than the conv kernels.)
t "the Apply table: the apply of largest median time is a convolution, the 20 take >= 75% of the medians' sum" \
    sh -c "sort -g -r -k5,5 '$tmp/apply' | head -n 1 | grep -q '/Conv\$' &&
        awk '{ a += \$5 } \$NF ~ /\/Conv\$/ { s += \$5 }
            END { exit !(s >= 0.75 * a) }' '$tmp/apply'"
t "the Ops table ranks conv ops first (its 3 costliest)" \
    sh -c "head -n 3 '$tmp/ops' | grep -c ' Conv{' | grep -qx 3"
# <% time> <sum %> <apply time> <time per call> <median> <p95> <#call>
# <id> <Mflops> <Gflops/s> <Apply name>: flops by hand, per conv shape
flops_of() {	# the Mflops column of the apply named $1
	awk -v a="$1" '$NF == a { print $9 }' "$tmp/apply"
}
t "conv1's flops: 2 x 64 x 112 x 112 x 3 x 7 x 7 = 236.028 M" \
    test "$(flops_of /conv1/Conv)" = 236.028
t "layer1's 3x3 convs: 2 x 64 x 56 x 56 x 64 x 9 = 231.211 M (each of 4)" \
    sh -c "for c in 0/conv1 0/conv2 1/conv1 1/conv2; do
        awk -v a=/layer1/layer1.\$c/Conv '\$NF == a { print \$9 }' \
        '$tmp/apply'; done | grep -c '^231\.211\$' | grep -qx 4"
t "layer2.0's strided conv1: 2 x 128 x 28 x 28 x 64 x 9 = 115.606 M" \
    test "$(flops_of /layer2/layer2.0/conv1/Conv)" = 115.606
t "layer4.0's 1x1 downsample: 2 x 512 x 7 x 7 x 256 = 12.845 M" \
    test "$(flops_of /layer4/layer4.0/downsample/downsample.0/Conv)" = 12.845
t "every conv has a GFLOP/s figure above 0" \
    sh -c "awk '\$NF ~ /Conv\$/ { n++; if (\$10 + 0 > 0) g++ }
        END { exit !(n == 20 && g == 20) }' '$tmp/apply'"

# the convs' type in the Class table: C where the float32 convs run as
# the blocked gemm (src/ops/conv-gemm.c, a CPU with AVX2 and FMA), BLAS
# where they run as im2col + sgemm
gemm=0
grep -Eq ' C +[0-9]+ +20 +Conv$' "$tmp/on.txt" && gemm=1
if [ $gemm = 1 ]; then
# the gemm packs all of col when the output has fewer than 16 slivers of
# 16 pixels: layer3's 3x3 convs, 256 x 9 rows by 13 x 16 pixels x 4 B + 64
# B of alignment = 1916992 B; layer4's 512 x 9 by 4 x 16: 1179712 B.
# layer1's, layer2's and layer3's 3x3 convs of strides 1 run as Winograd
# F(2x2, 3x3) (ops/conv-wino.c), their weights' transform U a constant
# (conv_winograd made it): the padded input (C x (2 th + 2) rows x 2 hw,
# hw the even half of a row: 8 past 2 tw + 1, rounded to 8), 64 B of
# alignment, and per thread V (16 x (C tb + 16)), M (16 x 24 x (tb + 8))
# and a padded row (2 hw), tb = 256 KiB / (16 C 4 B) at most 64, all x 4 B;
# a conv's work space is the larger of that and the gemm's (its fallback):
#   layer1, C 64, 56x56: 64 x 58 x 80 = 1187840 B + 64 B, and a thread
#     16 x 4112 + 16 x 24 x 72 + 80 values = 374080 B
#   layer2, C 128, 28x28: 128 x 30 x 64 = 983040 B + 64 B, and a thread
#     16 x 4112 + 16 x 24 x 40 + 64 values = 324864 B
#   layer3, C 256, 14x14: 256 x 16 x 48 = 786432 B + 64 B, and a thread
#     16 x 4112 + 16 x 24 x 24 + 48 values = 300224 B; with fewer than 4
#     threads the gemm's packed col, 1916992 B, is larger
# which one is the largest depends on the thread count
work='Work space \(kernels. scratch, alive during the apply that takes it\): largest [0-9.]+MiB \(([0-9]+) B\), apply [0-9]+ \(/layer[13]/layer[13]\.[01]/conv[12]/Conv\); 21 applies take some'
largest=$(sed -n 's/.*alive during the apply that takes it): largest [0-9.]*MiB (\([0-9]*\) B).*/\1/p' "$tmp/on.txt")
scr() {	# scr APPLY: the work space line of that apply, B
	sed -n "s|^ *\([0-9]*\)B *$1\$|\1|p" "$tmp/on.txt"
}
l1=$(scr /layer1/layer1.1/conv2/Conv)
nt=$(( (${l1:-0} - 1187904) / 374080 ))
l2=$((983104 + 324864 * nt))
l3=$((786496 + 300224 * nt))
[ $l3 -lt 1916992 ] && l3=1916992
want=$l1
[ $l3 -gt $want ] && want=$l3
[ $l2 -gt $want ] && want=$l2
t "the memory profile: Winograd's buffers, layer1's 1187904 B + 374080 B a thread ($l1 B: $nt threads), layer2's, layer3's (or its gemm's packed col, 2304 x 208 x 4 B + 64), the largest ($largest B) of 21 work spaces (the 20 convs and MaxPool)" \
    sh -c "grep -Eq '$work' '$tmp/on.txt' && test -n '$largest' &&
        test $nt -ge 1 && test \$((${l1:-0} - 1187904)) = $((374080 * nt)) &&
        test '$(scr /layer2/layer2.1/conv2/Conv)' = $l2 &&
        test '$(scr /layer3/layer3.1/conv1/Conv)' = $l3 &&
        test $largest = $want &&
        grep -Eq '^ +1179712B +/layer4/layer4\.0/conv2/Conv\$' '$tmp/on.txt'"
else
work='Work space \(kernels. scratch, alive during the apply that takes it\): largest 7\.0MiB \(7375872 B\), apply [0-9]+ \(/conv1/Conv\); 21 applies take some'
t "the memory profile: conv1's im2col, 3 x 49 x 112 x 112 x 4 B, the largest work space of 21 (the 20 convs and MaxPool)" \
    has "$tmp/on.txt" "$work" \
    '^ +7375872B +/conv1/Conv$' '^ +7225344B +/layer1/layer1.0/conv1/Conv$'
fi
t "GC on: measured peak = predicted peak" \
    has "$tmp/on.txt" '^    Measured peak .*: equal to the predicted peak$'
"$GPTOP" --batch -n 3 --flags profile_memory=True,allow_gc=False \
    "$model" >"$tmp/off.txt" 2>&1
t "GC off: measured peak = predicted peak" \
    has "$tmp/off.txt" 'allow_gc=False \(as the VM runs\)' \
    '^    Measured peak .*: equal to the predicted peak$'
"$GPTOP" --batch "$tmp/cap.json" >"$tmp/cap.txt" 2>&1
grep -E '^ +[0-9]+B +scratch ' "$tmp/on.txt" >"$tmp/scratch.on"
# (with the blocked gemm and Winograd the program's peak is during a
# layer1 conv: 0.8 MB in, 0.8 MB out, and its Winograd buffers, 1187904 B
# + 374080 B a thread)
peak_work() {	# peak_work FILE: the work space alive at the program's peak, B
	sed -n 's/.*; at the program.s peak [0-9.]*[KM]iB (\([0-9]*\) B)$/\1/p' "$1"
}
won=$(peak_work "$tmp/on.txt")
wcap=$(peak_work "$tmp/cap.txt")
if [ $gemm = 1 ]; then
t "the capture keeps the work space; alive at the peak: $won B (2 threads or more: layer1's Winograd buffers, 1187904 B + 374080 B a thread)" \
    sh -c "grep -Eq '$work' '$tmp/cap.txt' && test -n '$won' &&
        test '$won' = '$wcap' && { test $nt -lt 2 ||
        { test \$((($won - 1187904) % 374080)) = 0 &&
        test '$won' -gt 1187904; }; } && grep -E '^ +[0-9]+B +scratch ' '$tmp/cap.txt' |
        cmp -s - '$tmp/scratch.on' &&
        grep -Eq '^ +${won}B +scratch ' '$tmp/scratch.on'"
else
t "the capture keeps the work space and the scratch alive at the peak" \
    sh -c "grep -Eq '$work' '$tmp/cap.txt' &&
        grep -E '^ +[0-9]+B +scratch ' '$tmp/cap.txt' |
        cmp -s - '$tmp/scratch.on' && test -s '$tmp/scratch.on'"
fi
exit "$fail"
