#!/bin/bash
# Issue 8 on the GPU machine, from the repository root:
#   bash bench/gpu_issue8.sh grade   # e2e performance checks, CUPTI/events, 10-run stability
#   bash bench/gpu_issue8.sh bench   # the bench/ table: solutions vs copy, CUB, cuBLAS
# Needs the prebuilt binaries in build-perf-gpu/ (carry it): pmpplab, perf_probe and the
# libraries they need (lib/), made by `bench/gpu_issue8.sh pack BUILD_DIR` on the dev
# machine. Writes its logs to $OUT (or /tmp/issue8).
set -u
what=${1:-grade}
B=$PWD/build-perf-gpu
if [ "$what" = pack ]; then # on the dev machine: bench/gpu_issue8.sh pack /work/build-perf
  build=${2:?usage: $0 pack BUILD_DIR}
  rm -rf "$B"; mkdir -p "$B/lib"
  cp "$build/ui/pmpplab" "$build/tests/perf/perf_probe" "$B/"
  for l in libcyaml.so.1 libyaml-0.so.2 libjansson.so.4 libmd4c.so.0; do
    cp -L "/lib/x86_64-linux-gnu/$l" "$B/lib/"
  done
  du -sh "$B"; exit 0
fi
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PMPPLAB_LABS=$PWD/labs PMPPLAB_HARNESS=$PWD/grader/harness
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-/tmp/cache-perf} PATH=$PATH:/usr/local/cuda/bin
out=${OUT:-/tmp/issue8}; mkdir -p "$out"
nvidia-smi -L; nvcc --version | tail -1; ls /usr/local/cuda/lib64/libcupti.so* 2>&1 | head -2
case $what in
grade)
  echo "=== e2e: lab 01 with a performance check (solution passes, one block fails)"
  timeout 240 bash tests/perf/e2e_perf.sh "$B/pmpplab" "$PWD" gpu 2>&1 | tee "$out/e2e_perf_gpu.txt"
  echo "=== the same check without CUPTI (CUDA events fallback)"
  PMPPLAB_PERF_TIMING=cupti=0,cap_ms=1000 timeout 120 "$B/pmpplab" --grade 01-vecadd --backend gpu \
    --submission kernels/01-vecadd/solution.cu 2>&1 | sed -n '/performance/,/memcheck/p' | tee "$out/events.txt"
  echo "=== stability: 10 gradings each (performance check and its dataset only)"
  timeout 420 bash bench/stability.sh --pmpplab "$B/pmpplab" --backend gpu --runs 10 --perf-only \
    kernels/01-vecadd/solution.cu kernels/01-vecadd/right/block-1024-ceil.cu \
    kernels/01-vecadd/right/grid-stride.cu 2>"$out/stability.err" | tee "$out/stability.txt"
  ;;
bench)
  timeout 580 bash bench/gpu_bench.sh --probe "$B/perf_probe" 2>&1 | tee "$out/gpu_bench.txt"
  ;;
*) echo "usage: $0 grade|bench|pack BUILD_DIR" >&2; exit 2 ;;
esac
