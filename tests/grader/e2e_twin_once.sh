#!/bin/bash
# On a GPU, the emulator build of the submission (the twin) runs once on memcheck's
# dataset (issue 16): its provenance run is memcheck's emulator run too. Lab 01's solution
# (its memcheck dataset is not a barriers dataset), graded traced: provenance runs of the
# twin, none writing a memcheck result of its own (NAME.memcheck.emu), memcheck passed.
# (What the twin finds for memcheck: e2e-grade-gpu and e2e-truth-gpu.)
# usage: e2e_twin_once.sh PMPPLAB SOURCE_ROOT. Exits 77 without a GPU, strace or jq.
set -u
# LeakSanitizer cannot run under ptrace, and strace counts the runs here (the sanitizer
# build: the rest of its checks stay on)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
PMPPLAB=${1:?usage: e2e_twin_once.sh PMPPLAB SOURCE_ROOT}
SRC=${2:?usage: e2e_twin_once.sh PMPPLAB SOURCE_ROOT}
LAB=01-vecadd
command -v strace >/dev/null 2>&1 || { echo "skipped: no strace (it counts the runs)"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "skipped: no jq"; exit 77; }
WORK=$(mktemp -d /tmp/pmpplab-twin.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$WORK/cache}

grade() { # NAME FILE
	strace -f -qq -s 300 -e trace=execve -e signal=none -o "$WORK/$1.trace" \
		"$PMPPLAB" --labs "$SRC/labs" --grade $LAB --backend gpu --quick --seed 1618 \
		--format json --submission "$2" >"$WORK/$1.json" 2>"$WORK/$1.err"
}
# the twin's runs (an emulator program: its folder holds prog.ptx) writing FILE-SUFFIX
twin_runs() { grep -c "execve(\"[^\"]*/prog\", \[[^]]*$2\"" "$WORK/$1.trace"; }

grade sol "$SRC/kernels/$LAB/solution.cu"
case $? in
0) ;;
2) echo "skipped: cannot grade on a GPU here:"; cat "$WORK/sol.err"; exit 77 ;;
*) echo "FAIL: lab 01's solution does not pass on the GPU:"; cat "$WORK/sol.err" "$WORK/sol.json"; exit 1 ;;
esac
fail=0
echo "solution: $(twin_runs sol '\.out\.prov') provenance runs, $(twin_runs sol '\.memcheck\.emu') memcheck twin runs"
[ "$(twin_runs sol '\.out\.prov')" -ge 1 ] || { echo "FAIL: no provenance run of the twin seen (the count is broken)"; fail=1; }
[ "$(twin_runs sol '\.memcheck\.emu')" = 0 ] || { echo "FAIL: the twin ran again for memcheck"; fail=1; }
jq -e '.tests[] | select(.name == "memcheck") | .status == "passed"' "$WORK/sol.json" >/dev/null ||
	{ echo "FAIL: the solution's memcheck did not pass"; jq . "$WORK/sol.json"; fail=1; }
[ $fail = 0 ] && echo "ok: the twin ran once on memcheck's dataset"
exit $fail
