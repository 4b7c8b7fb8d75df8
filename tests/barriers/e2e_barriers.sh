#!/bin/sh
# End to end: `pmpplab --grade` with a barriers check (issue 6) on a copy of lab 05 whose
# checks are replaced by one barriers check: the solution passes it, and each known-wrong
# barrier submission fails it with the right file:line.
# Usage: e2e_barriers.sh PMPPLAB SOURCE_ROOT BACKEND
set -u
pmpplab=$1
src=$2
backend=${3:-emu}
if [ "$backend" = gpu ] && ! nvidia-smi >/dev/null 2>&1; then
	exit 77
fi
tmp=$(mktemp -d /tmp/e2e-barriers-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
lab=05-tiled-matmul
mkdir -p "$tmp/labs/$lab"
ln -s "$src/kernels" "$tmp/kernels"
cp "$src/labs/$lab/tiled_matmul.cu" "$tmp/labs/$lab/"
sed '/^checks:/,/^hints:/{/^hints:/!d}' "$src/labs/$lab/lab.yaml" >"$tmp/labs/$lab/lab.yaml"
cat >>"$tmp/labs/$lab/lab.yaml" <<'YAML'
checks:
  - kind: barriers
    points: 2
    dataset: not-a-multiple
    min_barriers: 2
YAML
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$tmp/cache}
status=0

# grade SUBMISSION: prints the barriers test's block of the text report
grade() {
	"$pmpplab" --labs "$tmp/labs" --grade "$lab" --submission "$1" --backend "$backend" \
		--format text 2>&1 | awk '/ barriers /{p=1; print; next} p && /^  (PASS|FAIL|score)/{p=0} p'
}

# expect SUBMISSION PASS|FAIL [TEXT...]: the barriers test's verdict and text
expect() {
	sub=$1
	verdict=$2
	shift 2
	out=$(grade "$src/kernels/$lab/$sub")
	if ! printf '%s\n' "$out" | grep -q "^  $verdict barriers"; then
		echo "FAIL: $sub: expected $verdict barriers, got:"
		printf '%s\n' "$out"
		status=1
		return
	fi
	for t in "$@"; do
		if ! printf '%s\n' "$out" | grep -qF -- "$t"; then
			echo "FAIL: $sub: '$t' missing from:"
			printf '%s\n' "$out"
			status=1
			return
		fi
	done
	echo "ok   $sub $verdict"
}

line() { grep -n "$2" "$src/kernels/$lab/$1" | head -1 | cut -d: -f1; }

# leads TEXT...: in the block the last expect graded, the first finding (its line and its
# "why") says each TEXT (issue 18: the first message gives the right fix); `!TEXT`: the
# whole block lacks it
leads() {
	first=$(printf '%s\n' "$out" | awk '/ error: /{n++} n==1{print} /why:/ && n==1{exit}')
	for t in "$@"; do
		case $t in
		!*) printf '%s\n' "$out" | grep -qF -- "${t#!}" || continue ;;
		*) printf '%s\n' "$first" | grep -qF -- "$t" && continue ;;
		esac
		echo "FAIL: $sub: the first finding should say '$t' (! = nowhere):"
		printf '%s\n' "$out"
		status=1
		return
	done
	echo "ok   $sub leads with the right barrier"
}

expect solution.cu PASS "no barrier misuse" "__syncthreads() at lines"
f=wrong/barrier-in-boundary-if.cu
expect $f FAIL "barrier-in-boundary-if.cu:" "which depends on threadIdx" "PMPP ch. 4 and 5"
f=wrong/missing-first-barrier.cu
expect $f FAIL "missing-first-barrier.cu:" "has 1 __syncthreads() but this lab's algorithm needs at least 2" \
	"with no __syncthreads() between" "line $(line $f 'Bs\[ty\]\[tx\] =')" \
	"line $(line $f 'sum += ')"
leads "first barrier" "!__syncwarp" "!later pass"
f=wrong/missing-second-barrier.cu
expect $f FAIL "missing-second-barrier.cu:" "has 1 __syncthreads()"
leads "later pass of the loop" "end of the loop body" "][" "!first barrier" "!__syncwarp" \
	"!Bs[32]"
# out of bounds before the barrier: the kernel stops at the fault, which is no barrier
# finding; and a run that stopped early earns no barrier points
f=wrong/no-boundary-checks.cu
expect $f FAIL "not judged: the checked run of dataset not-a-multiple stopped before its end"
leads "!already exited"
exit $status
