#!/bin/bash
# The per-launch cost of a small kernel on the emulator (bench/launch_setup.cu): 50
# launches of a 1-block, 512-thread reduction, with no pinned buffer and with a 64 MiB one
# that is only copied from (simpleCudaGraphs' shape). Prints, for each, the kernels' wall
# and CPU milliseconds a launch and the thread-instructions a launch (PMPPLAB_EMU_STATS).
# Run from the repository root after `ninja -C build`; PMPPLAB picks another pmpplab.
#   bench/launch_setup.sh [RUNS]     (default 3 runs of each)
set -u
pmpplab=${PMPPLAB:-$PWD/build/ui/pmpplab}
[ -x "$pmpplab" ] || { echo "no $pmpplab: build first (ninja -C build)" >&2; exit 2; }
export PATH=$PATH:/usr/local/cuda/bin
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-/tmp/pmpplab-launch-setup-cache}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp bench/launch_setup.cu "$work/"
launches=50
echo "| pinned MiB | run | ms a launch (wall) | ms a launch (CPU) | thread-insn a launch |"
echo "|---:|---:|---:|---:|---:|"
for run in $(seq "${1:-3}"); do
  for mib in 0 64; do
    out=$(cd "$work" && PMPPLAB_EMU_STATS=1 "$pmpplab" run --backend emu launch_setup.cu -- "$mib" "$launches" 2>&1)
    line=$(grep -E '^pmpplab emu: +reduceFinal' <<<"$out")
    [ -n "$line" ] || { echo "launch_setup: no statistics; its output:" >&2; echo "$out" >&2; exit 1; }
    awk -v mib="$mib" -v run="$run" -v n="$launches" \
      '{ for (i = 1; i <= NF; i++) if ($i == "launches") { w = $(i + 1); c = $(i + 3) }
             else if ($i == "insns") k = $(i - 1)
         printf "| %d | %d | %.2f | %.2f | %d |\n", mib, run, w * 1000 / n, c * 1000 / n, k / n }' <<<"$line"
  done
done
