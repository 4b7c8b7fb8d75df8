#!/bin/bash
# panels_gpu_check.sh — run on a GPU machine from the repository root (issue 7):
#  1. occupancy: pmpplab's model against cudaOccupancyMaxActiveBlocksPerMultiprocessor
#     (bench/panels_gpu_check.cu) for 5 kernels x 32 block sizes (+ dynamic shared sizes);
#  2. resources: ptxas -v for the GPU's architecture against cudaFuncGetAttributes numRegs;
#  3. ncu: whether Nsight Compute is installed and allowed to read counters here.
# Needs only the CUDA toolkit (nvcc, ptxas) and gcc; builds into $OUT or /tmp.
set -u -o pipefail
CUDA=${CUDA:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
W=${OUT:-/tmp}/panels_gpu_check
mkdir -p "$W"
echo "== nvidia-smi"; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv 2>&1 | head -3
echo "== 1. occupancy model vs the runtime"
$NVCC -O2 -arch=native -std=c++17 -Igrader -DPMPPLAB_HAVE_CUDA_OCCUPANCY -I$CUDA/include \
	bench/panels_gpu_check.cu grader/occupancy.c grader/occupancy_shim.cpp -ldl \
	-o "$W/check" 2>&1 | grep -v "deprecated"
"$W/check" | tee "$W/check.txt"
occ=$?
[ $occ = 77 ] && { echo "no GPU here: nothing to compare"; exit 77; }
echo "== 2. ptxas registers vs cudaFuncGetAttributes"
ARCH=${ARCH:-$(sed -n 's/^device: .*(\(sm_[0-9]*\)).*/\1/p' "$W/check.txt" | head -1)}
$NVCC -ptx -lineinfo -O2 -o "$W/check.ptx" bench/panels_gpu_check.cu -Igrader 2>/dev/null
$CUDA/bin/ptxas -v -arch="$ARCH" "$W/check.ptx" -o /dev/null 2>&1 |
	awk "/Compiling entry function/ { split(\$0, q, \"'\"); name = q[2] }
	     /Used [0-9]+ registers/ { for (i = 1; i <= NF; i++) if (\$(i+1) ~ /^registers/) print name, \$i }" > "$W/ptxas.txt"
res=0
for k in k_small k_tiled k_smem12k k_regs k_dyn; do
	rt=$(awk -v k=$k '$1 == k { print $3 }' "$W/check.txt")
	px=$(awk -v k=$k 'index($1, k) { print $2 }' "$W/ptxas.txt")
	st=same; [ "$rt" = "$px" ] || { st=DIFFERENT; res=1; }
	echo "$k: ptxas($ARCH) $px registers, cudaFuncGetAttributes $rt: $st"
done
echo "== 3. ncu"
NCU=$(command -v ncu || ls $CUDA/bin/ncu 2>/dev/null || true)
if [ -z "$NCU" ]; then
	echo "ncu: not installed"
else
	echo "ncu: $NCU ($($NCU --version 2>&1 | tail -1))"
	$NCU --metrics sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
		-k regex:k_tiled -c 1 "$W/check" > "$W/ncu.txt" 2>&1
	if grep -q "ERR_NVGPUCTRPERM" "$W/ncu.txt"; then
		echo "ncu: installed but not permitted to read GPU counters (ERR_NVGPUCTRPERM)"
	elif grep -q "sm__warps_active" "$W/ncu.txt"; then
		echo "ncu: works; the panel's figures:"; grep -E "sm__|smsp__|l1tex__" "$W/ncu.txt"
	else
		echo "ncu: ran but gave no metrics:"; tail -5 "$W/ncu.txt"
	fi
fi
echo "== result: occupancy $([ $occ = 0 ] && echo OK || echo FAILED), registers $([ $res = 0 ] && echo OK || echo DIFFER)"
[ $occ = 0 ] && [ $res = 0 ]
