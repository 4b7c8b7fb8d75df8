#!/bin/sh
# The known-bad and known-good kernels of tests/barriers through compute-sanitizer's
# racecheck and synccheck on a GPU (issue 6), or through the emulator's race checker, and
# a table of what each found (file:line pairs), for comparing the two backends.
#
#   tests/barriers/gpu_sanitizer.sh [OUTDIR]               GPU: nvcc -arch=native, racecheck + synccheck
#   tests/barriers/gpu_sanitizer.sh --emu LIBDIR [OUTDIR]  emulator: LIBDIR holds libpmpplab_cudart.so
#
# OUTDIR (default $OUT, else /tmp/barriers-check) receives one log per kernel and tool
# (the driver program is built in a temporary folder); `test_grader_barriers --parse
# OUTDIR` shows what the grader's parser makes of the GPU logs. Exit 0 when no
# known-good kernel has a finding (and, on the emulator, every known-bad one has), 1
# otherwise or when a build failed, 77 (skipped) in GPU mode without a GPU or
# compute-sanitizer.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mode=gpu
libdir=
if [ "${1:-}" = "--emu" ]; then
	mode=emu
	libdir=$(cd "$2" && pwd)
	shift 2
fi
out=${1:-${OUT:-/tmp/barriers-check}}
mkdir -p "$out"
bin=$(mktemp -d "${TMPDIR:-/tmp}/barriers-driver-XXXXXX")
trap 'rm -rf "$bin"' EXIT
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

bad="mm_no_first_sync mm_no_second_sync mm_sync_in_if mm_sync_in_if_split mm_return_then_sync
mm_return_then_sync_split reduce_no_sync ks_inplace hist_plain hist_no_init two_barriers
warp_tail_no_syncwarp"
good="mm_good reduce_syncwarp reduce_shuffle uniform_conditions uniform_conditions_32
hist_atomic ks_good loop_from_shared"

status=0

# The file:line positions a log names, sorted and unique, on one line.
positions() {
	grep -o '\(bad\|good\)\.cu:[0-9]*' "$1" | sort -t: -k2 -n -u | tr '\n' ' '
}

if [ "$mode" = gpu ]; then
	cs=$(command -v compute-sanitizer || true)
	for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
		[ -z "$cs" ] && [ -x "$c" ] && cs=$c
	done
	if [ -z "$cs" ] || ! nvidia-smi >/dev/null 2>&1; then
		echo "no GPU or no compute-sanitizer: skipped" >&2
		exit 77
	fi
	"$nvcc" -arch=native -lineinfo -o "$bin/driver" "$here/driver.cu" || exit 1
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
	"$cs" --version | tail -1
	printf '%-28s %-6s %-10s %s\n' kernel set tool "findings (count; positions)"
	for set in bad good; do
		eval "list=\$$set"
		for k in $list; do
			for tool in racecheck synccheck; do
				log="$out/$k.$tool.txt"
				"$cs" --tool "$tool" --print-limit 20 "$bin/driver" "$k" >"$log" 2>&1
				n=$(grep -c 'Race reported\|hazard detected\|Barrier error' "$log")
				printf '%-28s %-6s %-10s %s; %s\n' "$k" "$set" "$tool" "$n" "$(positions "$log")"
				[ "$set" = good ] && [ "$n" != 0 ] && status=1
			done
		done
	done
	echo
	echo "first report of each bad kernel:"
	for k in $bad; do
		for tool in racecheck synccheck; do
			grep -m1 -A2 'Race reported\|hazard detected\|Barrier error' "$out/$k.$tool.txt" |
				sed "s/^/[$k $tool] /"
		done
	done
else
	"$nvcc" -cudart none -g -o "$bin/driver" "$here/driver.cu" -L"$libdir" -lpmpplab_cudart \
		-Xlinker -rpath,"$libdir" || exit 1
	"$nvcc" -ptx -lineinfo -o "$bin/driver.ptx" "$here/driver.cu" || exit 1
	printf '%-28s %-6s %s\n' kernel set "findings (count; positions)"
	for set in bad good; do
		eval "list=\$$set"
		for k in $list; do
			log="$out/$k.emu.txt"
			PMPPLAB_EMU_PTX="$bin/driver.ptx" PMPPLAB_EMU_RACECHECK=1 \
				PMPPLAB_EVENTS="$out/$k.events" "$bin/driver" "$k" >"$log" 2>&1
			n=$(grep -c ': error: \|: warning: ' "$log")
			printf '%-28s %-6s %s; %s\n' "$k" "$set" "$n" "$(positions "$log")"
			[ "$set" = good ] && [ "$n" != 0 ] && status=1
			[ "$set" = bad ] && [ "$n" = 0 ] && status=1 # the emulator catches them all
		done
	done
	echo
	echo "first finding of each bad kernel:"
	for k in $bad; do
		grep -m2 ': error: \|: warning: ' "$out/$k.emu.txt" | sed "s/^/[$k] /"
	done
fi
exit $status
