#!/bin/bash
# Dynamic parallelism through `pmpplab run` (issue 18): nvcc refuses a kernel launch in
# device code without separate compilation, so pmpplab builds the program again with
# -rdc=true (grader/build.c); the emulator runs the device-side launches (emu/exec_cdp.c).
# Its stdout must be the expected file's (an H200's); the second run takes the
# relocatable build from the cache.
#   e2e_cdp.sh PMPPLAB PROGRAMS_DIR EXPECTED
set -u
PL=$(realpath "$1") SRC=$(realpath "$2") EXPECTED=$(realpath "$3")
export PATH=$PATH:/usr/local/cuda/bin
command -v nvcc >/dev/null || { echo "skipped: no nvcc"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$SRC/cdp_launch.cu" "$SRC/check.h" "$work/"
export PMPPLAB_CACHE=$work/cache PMPPLAB_EMU_THREADS=2
for pass in 1 2; do
	if ! (cd "$work" && "$PL" run --backend emu cdp_launch.cu >"out.$pass" 2>"err.$pass"); then
		echo "FAIL: pass $pass: pmpplab run exited non-zero"
		cat "$work/err.$pass"
		exit 1
	fi
	diff -u "$EXPECTED" "$work/out.$pass" || { echo "FAIL: pass $pass: stdout differs"; exit 1; }
done
ls "$work/cache/build" | wc -l | grep -qx 1 || { echo "FAIL: expected one build in the cache"; ls "$work/cache/build"; exit 1; }
echo "ok: 2 runs, one relocatable build"
