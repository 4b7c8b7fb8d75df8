#!/bin/bash
# Lab 14's wmma GEMMs against cuBLAS on this GPU (issue 15): the teaching solution and
# every tiling of its fast version (kernels/14-tensor-cores/right/fast.cu), each as a
# fraction of cuBLAS in the same format, checked against cuBLAS FP32 (bench/tc_gemm_bench.cu).
# Run from the repository root on a GPU machine:
#   bench/tc_gemm_bench.sh [N...]        square sizes, default "4096 2048"
# $TC_ARCH: nvcc's -arch (default sm_90); $TC_VARIANTS: an extended regular expression,
# only the variants whose whole name it matches (default all; the list: the table in
# bench/tc_gemm_variants.cuh); $TC_BUDGET: seconds for the whole run (default
# 58): every variant is built at once, in parallel, one binary each, then run one after
# the other in its own process (a fault stops only its own row); a row that would start
# past the budget says so instead. Exit 77 without a GPU, 1 if a row failed or is WRONG.
set -u
sizes=${*:-4096 2048}
budget=${TC_BUDGET:-58}
if ! { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; }; then
  echo "no GPU here: skipped"; exit 77
fi
export PATH=$PATH:/usr/local/cuda/bin
src=bench/tc_gemm_bench.cu table=bench/tc_gemm_variants.cuh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# "index name" of each variant, from the table
sed -n 's/^ *{"\([^"]*\)".*Pick<\([0-9]*\),.*/\2 \1/p' "$table" |
  awk -v re="^(${TC_VARIANTS:-.*})$" '$2 ~ re' >"$work/variants"
[ -s "$work/variants" ] || { echo "tc_gemm_bench: no variants in $table${TC_VARIANTS:+ match $TC_VARIANTS}"; exit 1; }
while read -r i name; do
  timeout $((budget * 2 / 3)) nvcc -O3 -std=c++17 -arch="${TC_ARCH:-sm_90}" -DTC_ONLY="$i" \
    -o "$work/v$i" "$src" -lcublas >"$work/build$i.log" 2>&1 &
done <"$work/variants"
wait
echo "built in ${SECONDS} s on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

fail=0; : >"$work/rows"
while read -r i name; do
  left=$((budget - SECONDS))
  if [ ! -x "$work/v$i" ]; then
    printf '%s\t-\tbuild failed (or past %s s): %s\n' "$name" "$((budget * 2 / 3))" \
      "$({ grep -m2 -E 'error|Killed' "$work/build$i.log" || tail -2 "$work/build$i.log"; } | tr '\n' ' ')" >>"$work/rows"
    fail=1
  elif [ "$left" -lt 3 ]; then
    printf '%s\t-\tnot run: the %s s budget is spent\n' "$name" "$budget" >>"$work/rows"
  else
    # shellcheck disable=SC2086
    timeout "$((left < 15 ? left : 15))" "$work/v$i" "$name" $sizes >>"$work/rows" 2>"$work/err" ||
      { printf '%s\t-\tfailed (exit %s): %s\n' "$name" "$?" "$(tail -2 "$work/err" | tr '\n' ' ')" >>"$work/rows"; fail=1; }
  fi
done <"$work/variants"

printf '%-27s %6s %9s %8s %8s %7s %9s %9s %-5s %s\n' variant n ms TFLOP/s cuBLAS '%cuBLAS' max_err cuBLAS_err check blocks/SM
awk -F'\t' '{
  if (NF < 9) { printf "%-27s %6s %s\n", $1, $2, $3; next }
  printf "%-27s %6s %9s %8s %8s %6s%% %9s %9s %-5s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
}' "$work/rows"
grep -q 'WRONG' "$work/rows" && fail=1
# the issue's target: the best correct TF32 kernel at 4096^3, as a fraction of cuBLAS TF32
awk -F'\t' '$2 == 4096 && NF >= 9 && $9 == "ok" && $1 !~ /fp16/ {
  if ($1 ~ /^teach/) teach = $6; else if ($6 + 0 > best + 0) { best = $6; name = $1 }
} END { if (name != "") printf "\nTF32 at 4096^3: teaching solution %s%% of cuBLAS TF32, best fast tiling %s %s%% (issue 15 aims at 40%%)\n", teach, name, best }' "$work/rows"
echo
echo "cuBLAS: cublasGemmEx in the row's format (TF32: CUBLAS_COMPUTE_32F_FAST_TF32; fp16 rows:"
echo "FP16 operands converted before, not timed), FP32 sums; %cuBLAS: its time / the kernel's."
echo "max_err: largest |C - cuBLAS FP32 SGEMM| (check: at most 4 x cuBLAS's own + 1e-3)."
echo "blocks/SM: the kernel's resident blocks per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor)."
echo "Median of up to 30 runs after 3 warm-ups (CUDA events). Total ${SECONDS} s."
exit $fail
