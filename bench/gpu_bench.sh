#!/bin/bash
# One table, one run, on the GPU (issue 8): each lab solution's kernel rate against a
# device-to-device copy, against CUB for the same operation (reduce, scan, histogram),
# and the matmul solutions against cuBLAS SGEMM at 4096 x 4096 x 4096 (lab 14: cuBLAS on
# the tensor cores in the same format, TF32 or FP16, for its solution and the fast
# version in kernels/14-tensor-cores/right/fast.cu). Beside them, each
# lab's own vendor program (its performance check's `vendor:`, labs/README.md) timed by
# perf_probe --vendor at the same size: the "vs vendor" column.
# Run from the repository root on a GPU machine:
#   bench/gpu_bench.sh [--probe PERF_PROBE] [--n FLOATS] [--baselines GPU_BASELINES]
# $BENCH_LABS (e.g. "12 14 15") keeps only those labs' rows; $BENCH_EXTRA adds rows for
# other sources of a lab at the same size ("12:right/tile-128-u32.cu", under kernels/).
# PERF_PROBE is bench/perf_probe.c built (default build/tests/perf/perf_probe). Lab rows
# use each lab's own performance check (dataset and bytes), with n set to the copy's
# n (FLOATS, default 2^26) where the lab has that param; matmul labs (04, 05) run with
# every param set to 4096. Rates count useful bytes (or 2 flops per multiply-add);
# the copy counts bytes read + written. Exit 77 without a GPU.
set -u
probe=build/tests/perf/perf_probe n=$((1 << 26)) baselines=
while [ $# -gt 0 ]; do
  case $1 in
    --probe) probe=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --baselines) baselines=$2; shift 2 ;; # bench/gpu_baselines.cu built already
    --pmpplab) shift 2 ;; # accepted for meson's benchmark line; not needed
    *) echo "usage: $0 [--probe PERF_PROBE] [--n FLOATS] [--baselines GPU_BASELINES]" >&2; exit 2 ;;
  esac
done
if ! { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; }; then
  echo "no GPU here: skipped"; exit 77
fi
export PATH=$PATH:/usr/local/cuda/bin
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-/tmp/pmpplab-bench-cache}
export PMPPLAB_HARNESS=${PMPPLAB_HARNESS:-$PWD/grader/harness}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

if [ -z "$baselines" ]; then
  baselines=$work/gpu_baselines
  nvcc -O3 -std=c++17 -arch=native -o "$baselines" bench/gpu_baselines.cu -lcublas \
    || { echo "gpu_bench: building the baselines failed"; exit 1; }
fi
# with the GPU to itself: graders on this machine time their runs in turns (perf_gpu_lock)
mkdir -p "$PMPPLAB_CACHE"
flock "$PMPPLAB_CACHE/gpu-timing.lock" "$baselines" "$n" >"$work/base.tsv" ||
  { echo "gpu_bench: baselines failed"; exit 1; }

: >"$work/labs.tsv"; : >"$work/vendor.tsv"
# One probe of the lab's solution, and of its performance check's vendor program where
# it names one: probe_row ROW-ID LAB-DIR SOLUTION BASE ARGS...
probe_row() {
  local row=$1 dir=$2 sol=$3 base=$4 line; shift 4
  if line=$("$probe" "$dir" "$dir/$sol" "$@" 2>"$work/err"); then
    printf '%s\t%s\t%s\n' "$row" "$base" "$line" >>"$work/labs.tsv"
  else
    printf '%s\tFAILED: %s\n' "$row" "$(tail -3 "$work/err" | tr '\n' ' ')" >>"$work/labs.tsv"
  fi
  [ -z "${NOVENDOR:-}" ] && grep -q '^    vendor:' "$dir/lab.yaml" || return 0
  if line=$("$probe" "$dir" --vendor "$@" 2>"$work/err"); then
    printf '%s\t%s\t%s\n' "$row" "vendor" "$line" >>"$work/vendor.tsv"
  else
    printf '%s\tFAILED: %s\n' "$row" "$(tail -3 "$work/err" | tr '\n' ' ')" >>"$work/vendor.tsv"
  fi
}

square=(--set m=4096 --set k=4096 --set n=4096)
for dir in labs/[0-9]*/; do
  dir=${dir%/}
  id=$(basename "$dir")
  sol=$(sed -n 's/^solution: *//p' "$dir/lab.yaml")
  [ -n "$sol" ] && [ -f "$dir/$sol" ] || continue
  num=${id%%-*}
  if [ -n "${BENCH_LABS:-}" ] && ! [[ " $BENCH_LABS " == *" $num "* ]]; then continue; fi
  extra=()
  for e in ${BENCH_EXTRA:-}; do [ "${e%%:*}" = "$num" ] && extra+=("../../kernels/$id/${e#*:}"); done
  case $num in
    04|05|12) probe_row "$id" "$dir" "$sol" sgemm --all-params 4096 --flops "2 * 4096 * 4096 * 4096"
        for x in "${extra[@]}"; do
          NOVENDOR=1 probe_row "$id $(basename "$x" .cu)" "$dir" "$x" sgemm --all-params 4096
        done ;;
    14) # each format against cuBLAS in the same format (its vendor line); beside the
        # teaching solution, its fast version (right/fast.cu: bench/tc_gemm_bench.sh
        # times each of its tilings)
        fast=../../kernels/$id/right/fast.cu
        probe_row "$id tf32" "$dir" "$sol" tf32gemm --check 0 "${square[@]}"
        NOVENDOR=1 probe_row "$id fast tf32" "$dir" "$fast" tf32gemm --check 0 "${square[@]}"
        probe_row "$id fp16" "$dir" "$sol" f16gemm --check 1 "${square[@]}"
        NOVENDOR=1 probe_row "$id fast fp16" "$dir" "$fast" f16gemm --check 1 "${square[@]}" ;;
    *) grep -q "kind: *performance" "$dir/lab.yaml" || { printf '%s\tno performance check in lab.yaml\n' "$id" >>"$work/labs.tsv"; continue; }
       # memory-bound labs at the copy's size (a lab's own large dataset may fit in L2)
       args=(); grep -q '^  - name: n$' "$dir/lab.yaml" && args=(--set "n=$n")
       case $num in 08) base=hist ;; 09) base=reduce ;; 10) base=scan ;; 15) base=- ;; *) base=copy ;; esac
       probe_row "$id" "$dir" "$sol" "$base" "${args[@]}" ;;
  esac
  # an optimisations check's baseline dataset (lab 15: the plain version of the layer)
  plain=$(sed -n 's/^    baseline: *//p' "$dir/lab.yaml" | head -1)
  [ -n "$plain" ] && NOVENDOR=1 probe_row "$id $plain" "$dir" "$sol" - --dataset "$plain"
done

python3 - "$work/base.tsv" "$work/labs.tsv" "$work/vendor.tsv" <<'PY'
import sys
def rate(r, flops):
    for p, s in ((1e12, "T"), (1e9, "G"), (1e6, "M")):
        if r >= p: return "%.2f %s%s" % (r / p, s, "FLOP/s" if flops else "B/s")
    return "%.0f %s" % (r, "FLOP/s" if flops else "B/s")
base, dev = {}, None
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0] == "device": dev = f; continue
    base[f[0]] = dict(kind=f[1], work=float(f[2]), ms=float(f[3]), rate=float(f[4]), reps=int(f[5]))
print("device: " + "  ".join(dev[1:]))
print()
print("%-8s %-30s %10s %14s" % ("baseline", "operation", "median ms", "rate"))
names = {"copy": "cudaMemcpy D2D (r+w)", "copyk": "float4 copy kernel (r+w)", "reduce": "cub::DeviceReduce::Sum",
         "scan": "cub::DeviceScan::InclusiveSum", "hist": "cub::DeviceHistogram 256 bins", "sgemm": "cublasSgemm 4096^3",
         "tf32gemm": "cublasGemmEx TF32 4096^3", "f16gemm": "cublasGemmEx FP16 4096^3"}
for k, b in base.items():
    print("%-8s %-30s %10.4f %14s" % (k, names.get(k, k), b["ms"], rate(b["rate"], b["kind"] == "flops")))
print()
print("%-16s %-28s %10s %14s %7s %8s %8s %9s" % ("lab solution", "size", "kernel ms", "rate", "% peak", "vs copy", "vs base", "base"))
copy = base.get("copy", {}).get("rate", 0)
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 6:
        print("%-16s %s" % (f[0], f[1])); continue
    lab, bname, vals, kind, work, ms, r, peak, frac = f[:9]
    r, frac, flops = float(r), float(frac), kind == "flops"
    b = base.get(bname)
    vs_copy = "%7.0f%%" % (100 * r / copy) if copy and kind == "bandwidth" else "       -"
    vs_base = "%7.0f%%" % (100 * r / b["rate"]) if b and r and (kind == "flops") == (b["kind"] == "flops") else "       -"
    # CUB rows: compare time per element (labs may count bytes differently from CUB)
    per = {"reduce": 4, "scan": 8, "hist": 1}
    n = dict(v.split("=") for v in vals.split(",") if "=" in v).get("n")
    if b and bname in per and n:
        lab_ns = float(ms) * 1e6 / float(n)
        base_ns = b["ms"] * 1e6 / (b["work"] / per[bname])
        vs_base = "%7.0f%%" % (100 * base_ns / lab_ns)
    print("%-16s %-28s %10.4f %14s %6.0f%% %8s %8s %9s" % (lab, vals[:28], float(ms), rate(r, flops) if r else "(time only)", 100 * frac, vs_copy, vs_base, bname))
print()
print("rate: the lab check's bytes (or flops) / median kernel time (CUPTI). vs copy: that rate /")
print("the D2D copy's (bytes read + written). vs base: against CUB, the time per element (n)")
print("of CUB over the lab's; against cuBLAS, the FLOP rates.")
print("Targets (issue 8): memory-bound solutions at >= 80% of the copy at large sizes.")
print()
labs = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 9: labs[f[0]] = f
print("%-16s %-40s %10s %14s %10s" % ("lab vendor", "program", "kernel ms", "rate", "solution"))
for line in open(sys.argv[3]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 7:
        print("%-16s %s" % (f[0], f[1])); continue
    lab, name, vals, kind, work, ms, r = f[:7]
    r, ms = float(r), float(ms)
    sol = labs.get(lab)
    cmp = "-"
    if sol and ms > 0:
        skind, sms, srate = sol[3], float(sol[5]), float(sol[6])
        cmp = "%.0f%%" % (100 * srate / r) if skind == kind and r > 0 and skind != "time" else "%.2fx time" % (sms / ms)
    print("%-16s %-40s %10.4f %14s %10s" % (lab, name[:40], ms, rate(r, kind == "flops") if r else "(time only)", cmp))
print()
print("lab vendor: each lab's vendor program (lab.yaml) at the lab row's size; solution: the")
print("solution's rate as a % of the vendor's (same unit), else its time / the vendor's.")
PY
