#!/bin/bash
# Issue 14 end to end through the real binary, on one backend: right answers that are not
# the kernels' work fail correctness and say so; checks with nothing to measure fail as
# NOT MEASURED, never "ok"; a correct 64-thread privatised histogram passes performance.
# usage: e2e_truth.sh PMPPLAB SOURCE_ROOT BACKEND   (BACKEND gpu skips without a GPU)
set -u
pmpplab=$1 root=$2 backend=$3
if [ "$backend" = gpu ] && ! { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; }; then
  echo "no GPU here: skipped"; exit 77
fi
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
k=$root/kernels
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
grade() { # LAB FILE OUT
  "$pmpplab" --grade "$1" --backend "$backend" --quick --seed 14 --submission "$2" >"$3" 2>&1
  echo "exit $?" >>"$3"; cat "$3"
}
# the block of test NAME in report FILE: its line and the indented lines below it
block() { awk -v n="$2" 'index($0, n) == 8 { on = 1; print; next } /^  [A-Z]/ { on = 0 } on' "$1"; }

grade 01-vecadd "$k/01-vecadd/wrong/host-loop.cu" "$tmp/loop.txt"
grep -q "FAIL correctness: not-a-multiple" "$tmp/loop.txt" || fail "host loop: correctness passed"
grep -q "C was computed on the host: no kernel wrote it" "$tmp/loop.txt" || fail "host loop: no diagnosis"
block "$tmp/loop.txt" "memcheck" | grep -q "^  FAIL memcheck" || fail "host loop: memcheck passed"
grep -q "score 0/" "$tmp/loop.txt" || fail "host loop: points given"

grade 01-vecadd "$k/01-vecadd/wrong/host-finishes-half.cu" "$tmp/half.txt"
grep -q "35001 of 70001 elements of C were computed on the host" "$tmp/half.txt" ||
  fail "half: the count of host elements"

grade 05-tiled-matmul "$k/05-tiled-matmul/wrong/cpu-matmul.cu" "$tmp/mm.txt"
block "$tmp/mm.txt" "performance" | grep -q "^  FAIL performance" || fail "cpu matmul: performance passed"
block "$tmp/mm.txt" "performance" | grep -q "(ok" && fail "cpu matmul: an 'ok' in performance"

grade 08-histogram "$k/08-histogram/wrong/host-histogram.cu" "$tmp/hh.txt"
block "$tmp/hh.txt" "barriers" | grep -q "^  FAIL barriers" || fail "host histogram: barriers passed"
block "$tmp/hh.txt" "barriers" | grep -q "no kernel ran" || fail "host histogram: barriers not NOT MEASURED"
block "$tmp/hh.txt" "memcheck" | grep -q "NOT MEASURED: no kernel ran" || fail "host histogram: memcheck"

grade 08-histogram "$k/08-histogram/right/block-64-coarse-32.cu" "$tmp/h128.txt"
grep -q "exit 0" "$tmp/h128.txt" || fail "64-thread privatised histogram: not all passed"
echo "all as expected"
