#!/bin/bash
# What one grading keeps for the next on the same inputs (issue 16: a class's students,
# a lab check, the TUI's quick runs of one session all grade with one seed): the CPU
# reference's expected outputs and the emulator's counted run of the lab's solution
# (the performance check's figures to compare with). Lab 01, quick, on the emulator:
#   1. graded with seed S: the solution's counted result is kept in the cache;
#   2. graded again with S, traced: the reference and the solution's counted run do not
#      run, and the report is the same (the student's counted run is never a run of its
#      own: its dataset's run, not-a-multiple, counts);
#   3. the kept files removed, graded again with S, traced: both run again, same report;
#   4. a kept counted result that does not read (damaged) is replaced by a new run.
# usage: e2e_kept.sh PMPPLAB SOURCE_ROOT. Exits 77 without strace (it counts the runs)
# or where this build cannot grade on the emulator.
set -u
# LeakSanitizer cannot run under ptrace, and strace counts the runs here (the sanitizer
# build: the rest of its checks stay on)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
PMPPLAB=${1:?usage: e2e_kept.sh PMPPLAB SOURCE_ROOT}
SRC=${2:?usage: e2e_kept.sh PMPPLAB SOURCE_ROOT}
LAB=01-vecadd
SEED=16160
command -v strace >/dev/null 2>&1 || { echo "skipped: no strace (it counts the program runs)"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "skipped: no jq (it compares the reports)"; exit 77; }
WORK=$(mktemp -d /tmp/pmpplab-kept.XXXXXX)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
export PMPPLAB_CACHE=$WORK/cache

# Grades the solution into $WORK/NAME.json; the rest of the arguments run before it.
grade() {
	local name=$1
	shift
	"$@" "$PMPPLAB" --labs "$SRC/labs" --grade $LAB --quick --backend emu --seed $SEED \
		--format json --submission "$SRC/kernels/$LAB/solution.cu" >"$WORK/$name.json" 2>"$WORK/$name.err"
}
# shellcheck disable=SC2317 # called through grade "$@"
traced() { # NAME COMMAND...: COMMAND under strace, its program starts in NAME.trace
	local name=$1
	shift
	strace -f -qq -v -s 300 -e trace=execve -e signal=none -o "$WORK/$name.trace" "$@"
}
# The runs of a traced grading: the lab programs that computed expected outputs (they
# write into the grading's ref/ folder), and the counted runs (perf.result).
count() { grep -c "execve(\"[^\"]*/prog\", \[[^]]*$2" "$WORK/$1.trace"; }
# A report's tests, without the seed-independent noise: device addresses.
tests_of() { jq -c '.tests[] | [.name, .status, .score, .max_score, .output]' "$1" |
	sed -E 's/0x[0-9a-f]{8,}/0xADDRESS/g'; }

grade first
case $? in
0) ;;
2) echo "skipped: cannot grade on the emulator here:"; cat "$WORK/first.err"; exit 77 ;;
*) echo "FAIL: lab 01's solution does not pass:"; cat "$WORK/first.err" "$WORK/first.json"; exit 1 ;;
esac
fail=0
kept=$(find "$PMPPLAB_CACHE/counted" -type f 2>/dev/null | wc -l)
[ "$kept" = 1 ] || { echo "FAIL: $kept counted results kept after the first grading, not 1"; fail=1; }

grade again traced again
rm -rf "$PMPPLAB_CACHE/counted" "$PMPPLAB_CACHE/expected"
grade fresh traced fresh
for t in again fresh; do
	echo "$t: $(count $t '"[^"]*/ref/') reference runs, $(count $t '"[^"]*/perf.result"') counted runs"
done
[ "$(count again '"[^"]*/ref/')" = 0 ] || { echo "FAIL: the reference ran again on the same inputs"; fail=1; }
[ "$(count fresh '"[^"]*/ref/')" -gt 0 ] || { echo "FAIL: no reference run seen without the kept outputs (the count is broken)"; fail=1; }
[ "$(count again '"[^"]*/perf.result"')" = 0 ] || { echo "FAIL: a counted run made with the solution's kept and the student's in its dataset's run"; fail=1; }
[ "$(count fresh '"[^"]*/perf.result"')" = 1 ] || { echo "FAIL: not 1 counted run (the solution's) without the kept one"; fail=1; }
grep -q 'PMPPLAB_COUNTERS=1' "$WORK/again.trace" || { echo "FAIL: no dataset run counted (PMPPLAB_COUNTERS=1)"; fail=1; }
for t in again fresh; do
	cmp -s <(tests_of "$WORK/first.json") <(tests_of "$WORK/$t.json") ||
		{ echo "FAIL: the $t grading's report differs from the first's:"; diff <(tests_of "$WORK/first.json") <(tests_of "$WORK/$t.json"); fail=1; }
done

# A damaged kept result: not read as figures, replaced by the run's.
f=$(find "$PMPPLAB_CACHE/counted" -type f | head -1)
echo "not a result" >"$f"
grade damaged
cmp -s <(tests_of "$WORK/first.json") <(tests_of "$WORK/damaged.json") ||
	{ echo "FAIL: a damaged kept result changed the report:"; diff <(tests_of "$WORK/first.json") <(tests_of "$WORK/damaged.json"); fail=1; }
grep -q "not a result" "$f" 2>/dev/null && { echo "FAIL: the damaged kept result was not replaced"; fail=1; }
[ $fail = 0 ] && echo "ok: expected outputs and the solution's counted run kept and reused"
exit $fail
