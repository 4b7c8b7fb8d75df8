#!/bin/sh
# panels_trace_bench.sh — what the warp/memory panels' data collection costs the
# emulator (issue 7: at most 20%). Runs bench/emu_bench (vector add, tiled matmul, shared
# reduction) N times without and N times with $PMPPLAB_TRACE, alternating, on one worker
# thread, and prints per workload the least CPU time of each (the least is the run the
# rest of the machine disturbed least) and their ratio.
# usage: panels_trace_bench.sh EMU_BENCH EMU_BENCH_PTX [N]
set -u
BENCH=${1:?usage: panels_trace_bench.sh EMU_BENCH EMU_BENCH_PTX [N]}
PTX=${2:?usage: panels_trace_bench.sh EMU_BENCH EMU_BENCH_PTX [N]}
N=${3:-5}
TMP=$(mktemp -d /tmp/pmpplab-tracebench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export PMPPLAB_EMU_THREADS=1
i=0
while [ $i -lt "$N" ]; do
	for mode in off on; do
		if [ $mode = on ]; then
			PMPPLAB_TRACE="$TMP/trace.bin" "$BENCH" "$PTX"
		else
			env -u PMPPLAB_TRACE "$BENCH" "$PTX"
		fi 2>&1 | awk -v m=$mode '/ emu / { n = split($0, f, ","); split(f[2], c, " ");
			name = substr($0, 1, 22); gsub(/ +$/, "", name); print m "\t" name "\t" c[1] }' >>"$TMP/all.txt"
	done
	i=$((i + 1))
done
awk -F'\t' '
	{ k = $2; if (!(k in order)) { order[k] = ++nk; names[nk] = k }
	  if ($1 == "off" && (!(k in off) || $3 < off[k])) off[k] = $3
	  if ($1 == "on" && (!(k in on) || $3 < on[k])) on[k] = $3 }
	END { printf "%-24s %10s %10s %8s\n", "workload (least of '"$N"')", "off cpu s", "on cpu s", "on/off";
	      for (i = 1; i <= nk; i++) { k = names[i];
		printf "%-24s %10.3f %10.3f %7.2fx\n", k, off[k], on[k], on[k] / off[k] } }' "$TMP/all.txt"
