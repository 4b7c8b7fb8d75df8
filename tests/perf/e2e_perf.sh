#!/bin/bash
# End to end: lab 01 graded with a performance check on its large dataset.
# emu: the solution passes the modelled (counted) check, a correct but uncoalesced
# submission fails it, deterministically.
# gpu: the solution passes with "TB/s, N% of peak, 0.9x the reference"; a submission that
# launches a single block fails the check as too slow while staying correct.
# usage: e2e_perf.sh PMPPLAB SOURCE_ROOT BACKEND   (BACKEND gpu skips without a GPU)
set -u
pmpplab=$1 root=$2 backend=$3
if [ "$backend" = gpu ] && ! { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; }; then
  echo "no GPU here: skipped"; exit 77
fi
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$(mktemp -d)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Lab 01 with absolute paths and this test's own checks (whatever the lab itself has).
mkdir -p "$tmp/labs/01-vecadd"
cp "$root/labs/01-vecadd/"* "$tmp/labs/01-vecadd/"
awk -v root="$root" '
  /^checks:/ { print; skip = 1
    print "  - kind: performance\n    points: 2\n    dataset: large\n    metric: bandwidth"
    print "    bytes: 3 * n * 4\n    max_ratio: 3\n    min_peak: 0.25"
    print "    emu_dataset: not-a-multiple\n    min_coalescing: 0.8\n    max_traffic_ratio: 1.5"
    next }
  skip && /^[a-z]/ { skip = 0 }
  !skip { gsub(/\.\.\/\.\.\/kernels/, root "/kernels"); print }
' "$root/labs/01-vecadd/lab.yaml" >"$tmp/labs/01-vecadd/lab.yaml"
grade() { "$pmpplab" --labs "$tmp/labs" --grade 01-vecadd --backend "$backend" --submission "$@"; }

grade "$root/kernels/01-vecadd/solution.cu" >"$tmp/sol.txt" 2>&1
rc=$?; cat "$tmp/sol.txt"
[ $rc = 0 ] || fail "solution: exit $rc, expected 0"
grep -q "PASS performance: large" "$tmp/sol.txt" || fail "solution: performance not passed"

# Correct, but each thread adds a chunk of 8 consecutive elements: uncoalesced.
cat > "$tmp/chunked.cu" <<'CU'
#include <cuda_runtime.h>
__global__ void add(const float *A, const float *B, float *C, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = t * 8; i < t * 8 + 8 && i < n; i++)
        C[i] = A[i] + B[i];
}
void vecAdd(const float *A_h, const float *B_h, float *C_h, int n)
{
    size_t bytes = n * sizeof(float);
    float *A, *B, *C;
    cudaMalloc((void **)&A, bytes); cudaMalloc((void **)&B, bytes); cudaMalloc((void **)&C, bytes);
    cudaMemcpy(A, A_h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(B, B_h, bytes, cudaMemcpyHostToDevice);
    int threads = (n + 7) / 8;
    add<<<(threads + 255) / 256, 256>>>(A, B, C, n);
    cudaMemcpy(C_h, C, bytes, cudaMemcpyDeviceToHost);
    cudaFree(A); cudaFree(B); cudaFree(C);
}
CU
if [ "$backend" = emu ]; then
  grep -q "modelled on the emulator" "$tmp/sol.txt" || fail "emu: no modelled counts"
  grep -q "4.00 sectors of 32 bytes per warp request" "$tmp/sol.txt" || fail "emu: solution not 4 sectors/request"
  grade "$tmp/chunked.cu" >"$tmp/chunked.txt" 2>&1
  rc=$?; cat "$tmp/chunked.txt"
  [ $rc = 1 ] || fail "chunked: exit $rc, expected 1"
  grep -q "PASS correctness: not-a-multiple" "$tmp/chunked.txt" || fail "chunked: should be correct"
  grep -q "FAIL performance: large" "$tmp/chunked.txt" || fail "chunked: performance passed"
  grep -q "12% of the fetched bytes were used (TOO LOW" "$tmp/chunked.txt" || fail "chunked: coalescing not named"
  echo "all performance checks passed (emu)"; exit 0
fi
grep -Eq "B/s, [0-9]+% of peak, [0-9.]+x the reference's speed" "$tmp/sol.txt" || fail "solution: no headline"
grep -q "CUPTI activity records" "$tmp/sol.txt" || echo "note: CUPTI not used (events fallback)"

# Correct but a single block of 256 threads: far slower than the solution.
cat > "$tmp/one-block.cu" <<'CU'
#include <cuda_runtime.h>
__global__ void add(const float *A, const float *B, float *C, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        C[i] = A[i] + B[i];
}
void vecAdd(const float *A_h, const float *B_h, float *C_h, int n)
{
    size_t bytes = n * sizeof(float);
    float *A, *B, *C;
    cudaMalloc((void **)&A, bytes); cudaMalloc((void **)&B, bytes); cudaMalloc((void **)&C, bytes);
    cudaMemcpy(A, A_h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(B, B_h, bytes, cudaMemcpyHostToDevice);
    add<<<1, 256>>>(A, B, C, n);
    cudaMemcpy(C_h, C, bytes, cudaMemcpyDeviceToHost);
    cudaFree(A); cudaFree(B); cudaFree(C);
}
CU
grade "$tmp/one-block.cu" >"$tmp/slow.txt" 2>&1
rc=$?; cat "$tmp/slow.txt"
[ $rc = 1 ] || fail "one block: exit $rc, expected 1"
grep -q "PASS correctness: large" "$tmp/slow.txt" || fail "one block: should be correct"
grep -q "FAIL performance: large" "$tmp/slow.txt" || fail "one block: performance passed"
grep -q "TOO SLOW" "$tmp/slow.txt" || fail "one block: no TOO SLOW"
echo "all performance checks passed (gpu)"
