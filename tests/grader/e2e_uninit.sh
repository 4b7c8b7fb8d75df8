#!/bin/bash
# End to end through the real binary: a variable read before it is given a value
# (uninitcheck.h). Lab 04's known-wrong `float sum;` must name its line, the variable and
# the fix in the build's warnings, fail memcheck with the same, and carry it into the
# JSON; the solution must say nothing of it. Lab 14 without wmma::fill_fragment: the
# accumulator named with the fill to add.
# usage: e2e_uninit.sh PMPPLAB SOURCE_ROOT BACKEND   (BACKEND gpu skips without a GPU)
set -u
pmpplab=$1 root=$2 backend=$3
if [ "$backend" = gpu ] && ! { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; }; then
  echo "no GPU here: skipped"; exit 77
fi
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
wrong=$root/kernels/04-matmul/wrong/uninitialised-sum.cu
line=$(grep -n "^ *float sum;" "$wrong" | cut -d: -f1)
[ -n "$line" ] || fail "no 'float sum;' line in $wrong"

"$pmpplab" --grade 04-matmul --labs "$root/labs" --backend "$backend" --quick --submission "$wrong" >"$tmp/w.txt" 2>&1
rc=$?; cat "$tmp/w.txt"
[ $rc = 1 ] || fail "uninitialised-sum: exit $rc, expected 1"
grep -q "uninitialised-sum.cu:$((line + 2)): warning: \`sum\` (declared at line $line without a value) is read before it is given one: on the first pass of the loop at line $((line + 1))" "$tmp/w.txt" ||
  fail "uninitialised-sum: the read of sum at line $((line + 2)) not named"
grep -q "initialise it before the loop: float sum = 0.0f;" "$tmp/w.txt" || fail "uninitialised-sum: no fix"
grep -q "FAIL memcheck" "$tmp/w.txt" || fail "uninitialised-sum: memcheck passed"
grep -q "undefined behaviour, as compute-sanitizer's initcheck" "$tmp/w.txt" || fail "uninitialised-sum: memcheck does not say why"

"$pmpplab" --grade 04-matmul --labs "$root/labs" --backend "$backend" --quick --submission "$wrong" --format json --output "$tmp/w.json" >/dev/null 2>&1
python3 - "$tmp/w.json" "$line" <<'PY' || fail "json: the finding is not in build and memcheck"
import json, sys
r = json.load(open(sys.argv[1]))
at = "uninitialised-sum.cu:%d: warning: `sum`" % (int(sys.argv[2]) + 2)
tests = {t["name"]: t for t in r["tests"]}
assert at in tests["build"]["output"], tests["build"]
assert at in tests["memcheck"]["output"] and tests["memcheck"]["status"] == "failed", tests["memcheck"]
PY

"$pmpplab" --grade 04-matmul --labs "$root/labs" --backend "$backend" --quick --submission "$root/kernels/04-matmul/solution.cu" >"$tmp/s.txt" 2>&1
rc=$?; cat "$tmp/s.txt"
[ $rc = 0 ] || fail "solution: exit $rc, expected 0"
grep -q "before it is given" "$tmp/s.txt" && fail "solution: an uninitialised read reported"

nofill=$root/kernels/14-tensor-cores/wrong/no-fill-fragment.cu
at=$(grep -n "wmma::mma_sync(acc" "$nofill" | head -1 | cut -d: -f1)
"$pmpplab" --grade 14-tensor-cores --labs "$root/labs" --backend "$backend" --quick --submission "$nofill" >"$tmp/f.txt" 2>&1
rc=$?; cat "$tmp/f.txt"
[ $rc = 1 ] || fail "no-fill-fragment: exit $rc, expected 1"
grep -q "no-fill-fragment.cu:$at: warning: the accumulator fragment \`acc\`" "$tmp/f.txt" || fail "no-fill-fragment: line $at not named"
grep -q "wmma::fill_fragment(acc\[i\]\[j\], 0.0f);" "$tmp/f.txt" || fail "no-fill-fragment: no fix"
grep -q "FAIL memcheck" "$tmp/f.txt" || fail "no-fill-fragment: memcheck passed"
echo "ok"
