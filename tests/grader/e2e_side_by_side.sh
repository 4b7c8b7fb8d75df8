#!/bin/bash
# Datasets side by side on the emulator (issue 16): lab 01, quick, seed fixed, graded with
# PMPPLAB_DATASET_JOBS=1 (one after another) and =2, traced (strace: when each dataset's
# program starts and ends).
#   1. a solution whose host code sleeps 2 s a call: with 2 jobs two dataset runs overlap,
#      with 1 none does (which shows the trace can tell); the reports are the same;
#   2. a file that crashes the same way on every dataset (fail fast: the third and later
#      datasets are "not run"): the same report both ways, and with 2 jobs at most one
#      dataset run more than with 1 (a worker starts dataset K only once K - 2 is judged).
# usage: e2e_side_by_side.sh PMPPLAB SOURCE_ROOT. Exits 77 without strace or jq, or where
# this build cannot grade on the emulator.
set -u
# LeakSanitizer cannot run under ptrace, and strace counts the runs here (the sanitizer
# build: the rest of its checks stay on)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
PMPPLAB=${1:?usage: e2e_side_by_side.sh PMPPLAB SOURCE_ROOT}
SRC=${2:?usage: e2e_side_by_side.sh PMPPLAB SOURCE_ROOT}
LAB=01-vecadd
command -v strace >/dev/null 2>&1 || { echo "skipped: no strace (it times the program runs)"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "skipped: no jq (it compares the reports)"; exit 77; }
WORK=$(mktemp -d /tmp/pmpplab-side.XXXXXX)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
export PMPPLAB_CACHE=$WORK/cache

# Grades FILE with JOBS datasets at a time under strace into $WORK/NAME.{json,trace}.
grade() { # NAME FILE JOBS
	PMPPLAB_DATASET_JOBS=$3 PMPPLAB_EMU_THREADS=1 strace -f -q -tt -s 300 -e trace=execve,exit_group \
		-e signal=none -o "$WORK/$1.trace" "$PMPPLAB" --labs "$SRC/labs" --grade $LAB --quick \
		--backend emu --seed 1617 --format json --submission "$2" >"$WORK/$1.json" 2>"$WORK/$1.err"
}
tests_of() { jq -c '.tests[] | [.name, .status, .score, .max_score, .output]' "$1" |
	sed -E 's/0x[0-9a-f]{8,}/0xADDRESS/g'; }
# The dataset runs of a trace (the program writing box/NAME.out), as "start end" seconds.
runs_of() {
	awk '/execve\("[^"]*\/prog", \[[^]]*\/box\/[^"]*\.out"/ { split($2, t, ":"); start[$1] = t[1] * 3600 + t[2] * 60 + t[3] }
	     /exit_group/ && ($1 in start) { split($2, t, ":"); printf "%.6f %.6f\n", start[$1], t[1] * 3600 + t[2] * 60 + t[3]; delete start[$1] }' "$1"
}
# How many dataset runs a trace started (a crashed one has no end in the trace).
starts_of() { grep -c 'execve("[^"]*/prog", \[[^]]*/box/[^"]*\.out"' "$1"; }
# Whether two runs of the list overlap in time.
overlap() { sort -n | awk 'NR > 1 && $1 < end { found = 1 } { if ($2 > end) end = $2 } END { exit !found }'; }

slow=$WORK/vecadd.cu
{
	echo '#include <unistd.h>'
	sed -e 's/^void vecAdd(\(.*\))$/static void vecAddNow(\1)/' "$SRC/kernels/$LAB/solution.cu"
	echo 'void vecAdd(const float *A_h, const float *B_h, float *C_h, int n)'
	echo '{ sleep(2); vecAddNow(A_h, B_h, C_h, n); }'
} >"$slow"
grep -q 'static void vecAddNow' "$slow" || { echo "FAIL: the slow file was not made (the solution's vecAdd changed)"; exit 1; }

grade slow1 "$slow" 1
case $? in
0) ;;
2) echo "skipped: cannot grade on the emulator here:"; cat "$WORK/slow1.err"; exit 77 ;;
*) echo "FAIL: the slow solution does not pass:"; cat "$WORK/slow1.err" "$WORK/slow1.json"; exit 1 ;;
esac
grade slow2 "$slow" 2
fail=0
for j in 1 2; do echo "slow, $j job(s): $(runs_of "$WORK/slow$j.trace" | wc -l) dataset runs"; done
[ "$(runs_of "$WORK/slow1.trace" | wc -l)" -ge 4 ] || { echo "FAIL: fewer than 4 dataset runs seen (the trace is not read right)"; fail=1; }
runs_of "$WORK/slow1.trace" | overlap && { echo "FAIL: dataset runs overlap one after another"; fail=1; }
runs_of "$WORK/slow2.trace" | overlap || { echo "FAIL: no two dataset runs overlap with 2 jobs"; runs_of "$WORK/slow2.trace"; fail=1; }
cmp -s <(tests_of "$WORK/slow1.json") <(tests_of "$WORK/slow2.json") ||
	{ echo "FAIL: the reports differ:"; diff <(tests_of "$WORK/slow1.json") <(tests_of "$WORK/slow2.json"); fail=1; }

crash=$SRC/kernels/$LAB/wrong/host-deref-device-pointer.cu
grade crash1 "$crash" 1
grade crash2 "$crash" 2
n1=$(starts_of "$WORK/crash1.trace") n2=$(starts_of "$WORK/crash2.trace")
echo "crash: $n1 dataset runs one after another, $n2 with 2 jobs"
grep -q "not run: the program crashed the same way" "$WORK/crash1.json" ||
	{ echo "FAIL: the crashing file was not stopped early (has $crash changed?)"; fail=1; }
[ "$n1" -ge 2 ] || { echo "FAIL: fewer than 2 dataset runs seen one after another (the trace is not read right)"; fail=1; }
[ "$n2" -le $((n1 + 1)) ] || { echo "FAIL: fail fast ran $n2 datasets with 2 jobs, $n1 with 1"; fail=1; }
cmp -s <(tests_of "$WORK/crash1.json") <(tests_of "$WORK/crash2.json") ||
	{ echo "FAIL: the reports differ:"; diff <(tests_of "$WORK/crash1.json") <(tests_of "$WORK/crash2.json"); fail=1; }
[ $fail = 0 ] && echo "ok: datasets side by side, same reports, fail fast kept"
exit $fail
