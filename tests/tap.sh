# tests/tap.sh: what the shell tests share, sourced after they set
# top_srcdir: a TAP counter (`ok STATUS DESCRIPTION`, status 0 passes;
# $n tests so far, $fail 1 once one failed) and `tap_tmp NAME`, a
# temporary folder $tmp removed when the script exits.

n=0
fail=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}

tap_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/gptop-$1.XXXXXX") || exit 99
	trap 'rm -rf "$tmp"' EXIT
}
