#!/bin/bash
# The emulator's PTX by NVRTC (the TUI's quick runs) against nvcc's (--grade), by running
# what they build (issue 16; build.h, enum build_ptx). Every lab's solution, starter,
# known-right and known-wrong files is graded twice, quick, seed fixed, one emulator
# worker (several: which block's fault stops a launch first depends on timing):
# PMPPLAB_NVRTC=0 and PMPPLAB_NVRTC=1, in one cache (the host programs are shared: only
# the PTX is compiled again). The verdicts must be the same: every test's name, status,
# score and output, where the output of a performance or optimisations check (figures
# counted from the PTX, which is not nvcc's text) is compared without its numbers. Lab
# 01's solution with an error and with a warning in its kernel checks that the student
# gets nvcc's messages. Then `pmpplab run` (run_cmp) on a few of the emulator's test
# programs. A file NVRTC does not take (nvcc made its PTX both times) is listed, not
# failed; but every solution except those of NO_NVRTC_LABS must be NVRTC's, or the test
# compares nothing.
#
# usage: e2e_nvrtc.sh PMPPLAB SOURCE_ROOT [LAB...]
# Two labs at a time. Exits 77 when this build cannot grade on the emulator (no nvcc, no
# emulator runtime) or has no NVRTC (libnvrtc.so beside nvcc, build/grader/pmpplab-nvrtc-ptx).
set -u
PMPPLAB=${1:?usage: e2e_nvrtc.sh PMPPLAB SOURCE_ROOT [LAB...]}
SRC=${2:?usage: e2e_nvrtc.sh PMPPLAB SOURCE_ROOT [LAB...]}
shift 2
LABS=("$@")
if [ ${#LABS[@]} = 0 ]; then
	for d in "$SRC"/kernels/*/solution.cu; do
		lab=$(basename "$(dirname "$d")")
		[ -f "$SRC/labs/$lab/lab.yaml" ] && LABS+=("$lab")
	done
fi
# lab 11: a file-scope array only its host code reads, of which NVRTC (seeing no host
# code) warns "declared but never referenced"; lab 14: a kernel template, whose
# instances host code makes (hostview.c): nvcc builds them
NO_NVRTC_LABS=" 11-occupancy 14-tensor-cores "
WORK=$(mktemp -d /tmp/pmpplab-nvrtc.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SEED=16017
export PMPPLAB_CACHE="$WORK/cache" PMPPLAB_EMU_THREADS=1

mkdir -p "$WORK/probe"
cp "$SRC/kernels/01-vecadd/solution.cu" "$WORK/probe/vecadd.cu"
PMPPLAB_NVRTC=1 "$PMPPLAB" --labs "$SRC/labs" --grade 01-vecadd --quick --backend emu --format json \
	--submission "$WORK/probe/vecadd.cu" >"$WORK/probe.json" 2>"$WORK/probe.txt"
case $? in
0) ;;
2) echo "skipped: cannot grade on the emulator here:"; cat "$WORK/probe.txt"; exit 77 ;;
*) echo "FAIL: lab 01's solution does not pass:"; cat "$WORK/probe.txt" "$WORK/probe.json"; exit 1 ;;
esac
if ! grep -q '"ptx": "nvrtc"' "$WORK/probe.json"; then
	echo "skipped: no NVRTC here (libnvrtc.so beside nvcc, or pmpplab-nvrtc-ptx in the build): nvcc made the PTX"
	exit 77
fi

# The tests of a JSON report, one per line, without what differs between any two runs
# of one program: the addresses of device memory (ASLR); the line of the program's own
# check that first saw a kernel's fault (it runs asynchronously, as on a GPU: the
# cudaGetLastError after the next launch or the cudaMemcpy after it, by timing, also
# between two runs of one build; the fault's own file:line, the emulator's, is kept);
# and a performance check's figures.
tests_of() {
	python3 -c '
import json, re, sys
r = json.load(open(sys.argv[1]))
for t in r["tests"]:
    out = re.sub(r"0x[0-9a-f]{8,}", "0xADDRESS", t.get("output", ""))
    out = re.sub(r"(?m)^(/\S+/src/[^/:]+):[0-9]+:", r"\1:LINE:", out)
    if t["name"].startswith(("performance", "optimisations")):
        out = re.sub(r"[0-9]+(\.[0-9]+)?", "N", out)
    print(json.dumps([t["name"], t["status"], t["score"], t["max_score"], out]))
' "$1"
}

# Grades FILE as LAB's student file into OUT.json (OUT.err); the rest of the arguments go
# to the environment. One folder per lab: the glue includes the file by its path.
grade() {
	local lab=$1 file=$2 out=$3 student
	shift 3
	student=$(sed -n 's/^student: *//p' "$SRC/labs/$lab/lab.yaml")
	mkdir -p "$WORK/$lab/src"
	cp "$file" "$WORK/$lab/src/$student"
	env "$@" "$PMPPLAB" --labs "$SRC/labs" --grade "$lab" --quick --backend emu --seed $SEED \
		--format json --submission "$WORK/$lab/src/$student" >"$out.json" 2>"$out.err"
}

# Lab 01's solution with a mistake in its kernel: an error, a warning.
broken() {
	awk -v what="$2" '{ print } /^(extern "C" )?__global__/ && !g { g = 1 }
		g == 1 && /\{/ { print (what == "error" ? "    int e = undeclared_name;" : "    int unused_here;"); g = 2 }' "$1"
}

# One lab: prints "SAME file", "NVCC file" (NVRTC did not take it: nvcc's PTX both times)
# or "DIFF file" with the difference.
lab_run() {
	local lab=$1 i=0 f out rel student files=()
	student=$(sed -n 's/^student: *//p' "$SRC/labs/$lab/lab.yaml")
	mkdir -p "$WORK/$lab"
	files=("$SRC/kernels/$lab/solution.cu" "$SRC/labs/$lab/$student" "$SRC/kernels/$lab"/right/*.cu
	       "$SRC/kernels/$lab"/wrong/*.cu)
	if [ "$lab" = 01-vecadd ]; then
		broken "$SRC/kernels/$lab/solution.cu" error >"$WORK/$lab/error.cu"
		broken "$SRC/kernels/$lab/solution.cu" warning >"$WORK/$lab/warning.cu"
		files+=("$WORK/$lab/error.cu" "$WORK/$lab/warning.cu")
	fi
	for f in "${files[@]}"; do
		[ -f "$f" ] || continue
		i=$((i + 1))
		out="$WORK/$lab/$i"
		rel=${f#"$SRC"/}
		rel=${rel#"$WORK"/}
		grade "$lab" "$f" "$out.nvcc" PMPPLAB_NVRTC=0
		grade "$lab" "$f" "$out.nvrtc" PMPPLAB_NVRTC=1
		if [ "$(tests_of "$out.nvcc.json")" != "$(tests_of "$out.nvrtc.json")" ]; then
			echo "DIFF $rel"
			diff <(tests_of "$out.nvcc.json") <(tests_of "$out.nvrtc.json") | head -20
		elif ! grep -q '"ptx": "nvrtc"' "$out.nvrtc.json"; then
			echo "NVCC $rel"
		else
			echo "SAME $rel"
		fi
	done
}
export -f grade broken lab_run tests_of
export PMPPLAB SRC WORK SEED

# pmpplab run (a standalone program, NVRTC by default): what the emulator's own test
# programs print (their faults with file:line), nvcc's PTX against NVRTC's, after an edit
# the host view does not see, so that the program of the first build is reused.
run_cmp() {
	local p=$1 f="$WORK/run/$1.cu" marks
	mkdir -p "$WORK/run"
	cp "$SRC/tests/emu/programs/$p.cu" "$f"
	PMPPLAB_NVRTC=0 "$PMPPLAB" run "$f" >/dev/null 2>&1
	sed -i '0,/^__global__.*/s//& \/\/ edited/' "$f"
	for m in 0 1; do # stdout and stderr apart: how they interleave is the runtime's timing
		PMPPLAB_NVRTC=$m "$PMPPLAB" run "$f" >"$WORK/run/$p.$m.out" 2>"$WORK/run/$p.$m.err"
		echo "exit $?" >>"$WORK/run/$p.$m.out"
		cat "$WORK/run/$p.$m.err" >>"$WORK/run/$p.$m.out"
		sed -i -E 's/0x[0-9a-f]{8,}/0xADDRESS/g' "$WORK/run/$p.$m.out"
	done
	marks=$(find "$PMPPLAB_CACHE/build" -newer "$WORK/run/$p.0.out" -name nvrtc | wc -l)
	if ! cmp -s "$WORK/run/$p.0.out" "$WORK/run/$p.1.out"; then
		echo "DIFF run/$p.cu"
		diff "$WORK/run/$p.0.out" "$WORK/run/$p.1.out" | head -20
	elif [ "$marks" = 0 ]; then
		echo "NVCC run/$p.cu"
	else
		echo "SAME run/$p.cu"
	fi
}
export -f run_cmp
# the test programs that include no header of their own and none NVRTC lacks
# (kernel_faults.cu includes <cassert>: NVRTC has no assert, so nvcc builds it)
RUN_PROGRAMS=(oob host_pointer_arg api_errors)

{
	printf '%s\n' "${LABS[@]}" | xargs -P 2 -L 1 bash -c 'lab_run "$0"'
	printf '%s\n' "${RUN_PROGRAMS[@]}" | xargs -P 2 -L 1 bash -c 'run_cmp "$0"'
} >"$WORK/results.txt"
cat "$WORK/results.txt"
same=$(grep -c '^SAME' "$WORK/results.txt")
diff=$(grep -c '^DIFF' "$WORK/results.txt")
nvcc=$(grep -c '^NVCC' "$WORK/results.txt")
echo "NVRTC vs nvcc: $same files the same verdicts, $diff different, $nvcc not taken by NVRTC"
fail=0
[ "$diff" = 0 ] || { echo "FAIL: NVRTC's PTX changed a verdict"; fail=1; }
for lab in "${LABS[@]}"; do
	case "$NO_NVRTC_LABS" in *" $lab "*) continue ;; esac
	if grep -q "^NVCC kernels/$lab/solution.cu" "$WORK/results.txt"; then
		echo "FAIL: NVRTC did not take lab $lab's solution"
		fail=1
	fi
done
for f in error warning; do
	case " ${LABS[*]} " in *" 01-vecadd "*) ;; *) continue ;; esac
	grep -q "^\(SAME\|NVCC\) 01-vecadd/$f.cu" "$WORK/results.txt" || { echo "FAIL: lab 01's $f.cu: not the same messages"; fail=1; }
	grep -q "^SAME 01-vecadd/$f.cu" "$WORK/results.txt" && { echo "FAIL: NVRTC's PTX was used for $f.cu, which nvcc says something about"; fail=1; }
done
[ "$same" -gt 0 ] || { echo "FAIL: no file graded by NVRTC"; fail=1; }
for p in "${RUN_PROGRAMS[@]}"; do
	grep -q "^SAME run/$p.cu" "$WORK/results.txt" || { echo "FAIL: pmpplab run $p.cu: not NVRTC's PTX with the same output"; fail=1; }
done
[ "$fail" = 0 ] && echo "ok"
exit $fail
