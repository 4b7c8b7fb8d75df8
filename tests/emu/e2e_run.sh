#!/bin/bash
# A whole program through `pmpplab run --backend emu`, for what only pmpplab's build
# gives it (grader/build.c): dynamic parallelism (nvcc refuses a kernel launch in device
# code without separate compilation, so pmpplab builds the program again with -rdc=true;
# the emulator runs the device-side launches, emu/exec_cdp.c) and OpenMP (a program that
# includes <omp.h> is built with -fopenmp; its threads call the runtime at once).
# Its stdout must be the expected file's (a GPU's); the second run takes the build from
# the cache.
#   e2e_run.sh PMPPLAB PROGRAMS_DIR NAME EXPECTED
set -u
PL=$(realpath "$1") SRC=$(realpath "$2") NAME=$3 EXPECTED=$(realpath "$4")
export PATH=$PATH:/usr/local/cuda/bin
command -v nvcc >/dev/null || { echo "skipped: no nvcc"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$SRC/$NAME.cu" "$SRC/check.h" "$work/"
export PMPPLAB_CACHE=$work/cache PMPPLAB_EMU_THREADS=2
for pass in 1 2; do
	if ! (cd "$work" && "$PL" run --backend emu "$NAME.cu" >"out.$pass" 2>"err.$pass"); then
		echo "FAIL: pass $pass: pmpplab run exited non-zero"
		cat "$work/err.$pass"
		exit 1
	fi
	diff -u "$EXPECTED" "$work/out.$pass" || { echo "FAIL: pass $pass: stdout differs"; exit 1; }
done
ls "$work/cache/build" | wc -l | grep -qx 1 || { echo "FAIL: expected one build in the cache"; ls "$work/cache/build"; exit 1; }
echo "ok: 2 runs of $NAME, one build"
