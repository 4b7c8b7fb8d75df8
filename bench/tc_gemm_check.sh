#!/bin/bash
# Checks every wmma GEMM of bench/tc_gemm_variants.cuh (lab 14's solution and each tiling
# of right/fast.cu, as bench/tc_gemm_bench.sh times them) against the host's exact
# product with the formats' error bound (bench/tc_gemm_check.cu), on the emulator.
# Run from the repository root:
#   bench/tc_gemm_check.sh [--backend emu|gpu] [N [VARIANT...]]   (N: default 256)
# $PMPPLAB: the pmpplab to use (default build/ui/pmpplab). pmpplab run builds a program
# seeing its own folder only: the sources go into one temporary folder, their includes
# of ../kernels/ made local. Exit 0 every variant ok, 1 one is WRONG, 2 usage or build.
set -u
backend=emu
if [ "${1:-}" = --backend ]; then backend=${2:?--backend emu|gpu}; shift 2; fi
pmpplab=${PMPPLAB:-build/ui/pmpplab}
[ -x "$pmpplab" ] || { echo "tc_gemm_check: no $pmpplab (build first, or set \$PMPPLAB)"; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp bench/tc_gemm_check.cu bench/gpu_util.cuh kernels/14-tensor-cores/solution.cu \
  kernels/14-tensor-cores/right/fast.cu "$work"/ || exit 2
sed 's|"\.\./kernels/14-tensor-cores/\(right/\)\{0,1\}|"|' bench/tc_gemm_variants.cuh >"$work/tc_gemm_variants.cuh"
grep -q '\.\./kernels' "$work/tc_gemm_variants.cuh" && { echo "tc_gemm_check: an include left unresolved"; exit 2; }
"$pmpplab" run "$work/tc_gemm_check.cu" --backend "$backend" -- "${@:-256}"
