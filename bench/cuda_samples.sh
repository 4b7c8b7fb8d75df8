#!/bin/bash
# NVIDIA's cuda-samples through `pmpplab run --backend emu` (issue 18, item 5): every
# one-file, single-GPU sample of Samples/0_Introduction, 2_Concepts_and_Techniques,
# 3_CUDA_Features and 6_Performance that needs only Common/'s headers (the list below,
# and bench/cuda_samples.md for those left out and why). For each: right (exit 0, no
# failure printed), wrong, refused (the emulator said what it does not emulate) or
# timeout; the wall time; the thread-instructions the emulator executed
# (PMPPLAB_EMU_STATS), the seconds its kernels took and the CPU seconds of the emulator's
# workers that ran them (on a shared machine wall time says more about the load than the
# emulator; the host program's own threads, which may run meanwhile, are not counted:
# the bound is about the kernels);
# and the bound: the CPU time of 10 x those instructions at the slowest per-core rate of
# emu_bench's three scalar kernels (vector add, tiled matmul, shared reduction: the
# fourth, wmma, counts one tensor-core instruction per 16x16x16 product), measured
# first, here. "over" marks kernels whose CPU time passes the bound and 0.1 s.
#   bench/cuda_samples.sh CUDA_SAMPLES_CHECKOUT [SAMPLE...]
# Run from the repository root after `ninja -C build`. RATE (thread-instructions per
# CPU second: skips emu_bench) and TIMEOUT (300 s) may be set. A sample that ran in under
# 120 s runs a second time, with its build cached, for the wall time.
# Each sample is staged in a scratch folder with Common/'s headers beside it (a
# submission's build sees its own folder only, so <helper_cuda.h> becomes
# "helper_cuda.h"); samples that read data files run with --sandbox=off from a folder
# holding their data/. Output: one Markdown row per sample on stdout; each sample's
# output in $LOGS (default /tmp/cuda-samples-logs).
set -u
src=${1:?usage: $0 CUDA_SAMPLES_CHECKOUT [SAMPLE...]}
shift
[ -d "$src/Samples" ] && [ -d "$src/Common" ] || { echo "$src has no Samples/ and Common/" >&2; exit 2; }
src=$(realpath "$src")
pmpplab=${PMPPLAB:-$PWD/build/ui/pmpplab}
[ -x "$pmpplab" ] || { echo "no $pmpplab: build first (ninja -C build)" >&2; exit 2; }
export PATH=$PATH:/usr/local/cuda/bin
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-/tmp/pmpplab-samples-cache}
if [ -z "${RATE:-}" ]; then
  bench=build/tests/emu
  RATE=$(nice "$bench/emu_bench" "$bench/emu_bench.ptx" 2>&1 |
         sed -n -E 's/^(vector add|tiled matmul|shared reduction).*\| +[0-9.]+ M thread-insn\/s wall, +([0-9.]+) M\/s per core.*/\2/p' |
         sort -g | head -1)
  [ -n "$RATE" ] || { echo "emu_bench gave no rate: build first" >&2; exit 2; }
  RATE=$(awk -v r="$RATE" 'BEGIN { print r * 1e6 }')
fi
rate=$RATE
echo "slowest scalar emu_bench rate: $(awk -v r="$rate" 'BEGIN { print r / 1e6 }') M thread-insn per CPU second (nproc $(nproc), load $(cut -d' ' -f1 /proc/loadavg))"
echo
timeout=${TIMEOUT:-300}
logs=${LOGS:-/tmp/cuda-samples-logs}
mkdir -p "$logs"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# folder under Samples/, then (after :) flags: data = reads files from data/
samples=(
  0_Introduction/asyncAPI 0_Introduction/clock 0_Introduction/cudaOpenMP
  0_Introduction/fp16ScalarProduct 0_Introduction/matrixMul 0_Introduction/simpleAWBarrier
  0_Introduction/simpleAssert 0_Introduction/simpleAttributes
  0_Introduction/simpleCooperativeGroups 0_Introduction/simpleCubemapTexture
  0_Introduction/simpleHyperQ 0_Introduction/simpleLayeredTexture
  0_Introduction/simpleMultiCopy 0_Introduction/simpleOccupancy
  0_Introduction/simplePitchLinearTexture 0_Introduction/simplePrintf
  0_Introduction/simpleStreams 0_Introduction/simpleSurfaceWrite:data
  0_Introduction/simpleTemplates 0_Introduction/simpleTexture:data
  0_Introduction/simpleVoteIntrinsics 0_Introduction/simpleZeroCopy
  0_Introduction/systemWideAtomics 0_Introduction/vectorAdd
  2_Concepts_and_Techniques/inlinePTX 2_Concepts_and_Techniques/interval
  2_Concepts_and_Techniques/radixSortThrust 2_Concepts_and_Techniques/reductionMultiBlockCG
  2_Concepts_and_Techniques/segmentationTreeThrust:data 2_Concepts_and_Techniques/shfl_scan
  2_Concepts_and_Techniques/streamOrderedAllocation
  2_Concepts_and_Techniques/threadFenceReduction
  3_CUDA_Features/StreamPriorities 3_CUDA_Features/bf16TensorCoreGemm
  3_CUDA_Features/binaryPartitionCG 3_CUDA_Features/cdpBezierTessellation
  3_CUDA_Features/cdpQuadtree 3_CUDA_Features/cdpSimplePrint
  3_CUDA_Features/cdpSimpleQuicksort 3_CUDA_Features/cudaTensorCoreGemm
  3_CUDA_Features/dmmaTensorCoreGemm 3_CUDA_Features/globalToShmemAsyncCopy
  3_CUDA_Features/graphConditionalNodes 3_CUDA_Features/graphMemoryFootprint
  3_CUDA_Features/graphMemoryNodes 3_CUDA_Features/immaTensorCoreGemm
  3_CUDA_Features/newdelete 3_CUDA_Features/simpleCudaGraphs
  3_CUDA_Features/tf32TensorCoreGemm 3_CUDA_Features/warpAggregatedAtomicsCG
  6_Performance/LargeKernelParameter 6_Performance/alignedTypes
  6_Performance/cudaGraphsPerfScaling 6_Performance/transpose
)
[ $# -gt 0 ] && samples=("$@")

echo "| sample | result | wall s | kernel s | kernel CPU s | thread-instructions | bound CPU s | note |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
for entry in "${samples[@]}"; do
  rel=${entry%%:*} flags=
  [ "$entry" != "$rel" ] && flags=${entry#*:}
  name=${rel##*/}
  dir=$work/$name
  mkdir -p "$dir"
  cp "$src/Samples/$rel"/*.cu "$src/Samples/$rel"/*.h* "$src/Samples/$rel"/*.cuh "$dir"/ 2>/dev/null
  cp "$src"/Common/*.h "$dir"/
  [ -d "$src/Samples/$rel/data" ] && cp -r "$src/Samples/$rel/data" "$dir"/
  sed -i -E 's/#include <((helper_|exception|nvMath|nvVector|nvMatrix|param)[A-Za-z_]*\.h)>/#include "\1"/' "$dir"/*.cu "$dir"/*.h 2>/dev/null
  cu=$(cd "$dir" && ls *.cu | head -1)
  log=$logs/$name.log
  extra=()
  [ "$flags" = data ] && extra=(--sandbox=off)
  run() {
    (cd "$dir" && PMPPLAB_EMU_STATS=1 /usr/bin/time -o "$work/time" -f '%e' \
       timeout "$timeout" nice "$pmpplab" run "${extra[@]}" --backend emu "$cu") > "$log" 2>&1
    rc=$?
    read -r secs _ < <(tail -1 "$work/time")
  }
  run
  awk -v s="$secs" 'BEGIN { exit !(s < 120) }' && grep -q '^pmpplab emu: ' "$log" && run
  insns=$(sed -n 's/^pmpplab emu: \([0-9]*\) thread-instructions.*/\1/p' "$log" | tail -1)
  ksecs=$(sed -n 's/^pmpplab emu: .*, \([0-9.]*\) s in kernels.*/\1/p' "$log" | tail -1)
  cpu=$(sed -n 's/^pmpplab emu: .*, \([0-9.]*\) s CPU$/\1/p' "$log" | tail -1)
  note=$(grep -m1 -E "not emulated|not supported|error:|FAIL|[Ee]rror" "$log" | cut -c1-150 | tr '|' '/')
  if [ $rc -eq 124 ]; then result=timeout
  elif grep -q -E "not emulated|is not supported by the emulator|run with --backend gpu" "$log"; then result=refused
  elif [ $rc -eq 0 ] && ! grep -q -E "FAIL|[Ww]rong|[Mm]ismatch|Test failed" "$log"; then result=right
  else result="wrong (exit $rc)"
  fi
  bound=
  [ -n "$insns" ] && bound=$(awk -v n="$insns" -v r="$rate" 'BEGIN { printf "%.2f", 10 * n / r }')
  [ -n "$bound" ] && awk -v c="$cpu" -v b="$bound" 'BEGIN { exit !(c > b && c > 0.1) }' &&
    bound="$bound (over)"
  printf '| %s | %s | %.1f | %s | %s | %s | %s | %s |\n' "$name" "$result" "$secs" "${ksecs:--}" \
    "${cpu:--}" "${insns:--}" "${bound:--}" "$note"
  rm -rf "$dir"
done
