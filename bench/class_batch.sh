#!/usr/bin/env bash
# A class batch at course size (issue 13): N lab 01 submissions (default 200), renamed
# copies of the lab's solution, its known-right and its known-wrong files (every third
# student a folder holding the file, the others one .cu each), graded on the emulator
# with -j JOBS (default 2). Prints the wall time and submissions per minute of an
# uninterrupted run, then kills a second run with SIGKILL once half the students have
# their results.json, starts it again and compares its grades.csv with the first one's
# (the gradebook has no timing columns, so the files must be identical).
#   bench/class_batch.sh PMPPLAB [SOURCE_ROOT] [N] [JOBS]
# QUICK=0 grades every dataset (default: --quick, the first dataset of each check).
# KEEP=DIR keeps the submissions and both output folders (report.html...) in DIR.
# Each copy is built by nvcc on its own (the build cache's key holds the file's path), as
# N different files would be; the second run finds them in the cache (PMPPLAB_CACHE). The
# report's 'Identical submissions' lists the copies.
set -u
PMPPLAB=$(realpath "${1:?usage: bench/class_batch.sh PMPPLAB [SOURCE_ROOT] [N] [JOBS]}")
SRC=$(realpath "${2:-$(dirname "$0")/..}")
N=${3:-200}
JOBS=${4:-2}
if [ -n "${KEEP:-}" ]; then
	W=$(realpath -m "$KEEP")
	rm -rf "$W"
	mkdir -p "$W"
else
	W=$(mktemp -d /tmp/pmpplab-class.XXXXXX)
	trap 'rm -rf "$W"' EXIT
fi
export PMPPLAB_CACHE=${PMPPLAB_CACHE:-$W/cache}
k=$SRC/kernels/01-vecadd
files=("$k/solution.cu" "$k"/right/*.cu "$k"/wrong/*.cu)
cls=$W/class
mkdir -p "$cls"
for i in $(seq 1 "$N"); do
	f=${files[$(((i - 1) % ${#files[@]}))]}
	name=$(printf 'student%03d' "$i")
	if [ $((i % 3)) = 0 ]; then
		mkdir -p "$cls/$name"
		cp "$f" "$cls/$name/vecadd.cu"
	else
		cp "$f" "$cls/$name.cu"
	fi
done
opts=(--grade 01-vecadd --submissions "$cls" --backend emu --seed 7 -j "$JOBS")
[ "${QUICK:-1}" = 1 ] && opts+=(--quick)
load() { cut -d' ' -f1 /proc/loadavg; }
results() { ls "$1"/students/*/results.json 2>/dev/null | wc -l; }

# 1. uninterrupted
l0=$(load)
t0=$(date +%s.%N)
"$PMPPLAB" "${opts[@]}" --output-dir "$W/a" >"$W/a.txt" 2>&1
rc_a=$?
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
l1=$(load)
graded_a=$(results "$W/a")

# 2. killed (SIGKILL) once half the students have results, then started again
l2=$(load)
t0=$(date +%s.%N)
"$PMPPLAB" "${opts[@]}" --output-dir "$W/b" >"$W/b1.txt" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && [ "$(results "$W/b")" -lt $((N / 2)) ]; do
	sleep 0.2
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
sleep 1
at_kill=$(results "$W/b")
outlived=$(pgrep -f -- "--output-dir $W/b" | wc -l)
"$PMPPLAB" "${opts[@]}" --output-dir "$W/b" >"$W/b2.txt" 2>&1
rc_b=$?
wall_b=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
l3=$(load)
skipped=$(grep -oE '\(([0-9]+) done before\)' "$W/b2.txt" | tr -dc 0-9)
if diff "$W/a/grades.csv" "$W/b/grades.csv" >"$W/diff.txt"; then
	same="identical ($(($(wc -l <"$W/a/grades.csv") - 1)) rows)"
else
	same="DIFFERENT: $(wc -l <"$W/diff.txt") diff lines"
fi

echo "| run | figure |"
echo "|---|---|"
echo "| submissions | $N ($(ls -d "$cls"/*/ | wc -l) folders), ${#files[@]} distinct files, -j $JOBS, $([ "${QUICK:-1}" = 1 ] && echo --quick || echo 'every dataset'), emulator |"
echo "| uninterrupted: wall time | $wall s (load $l0 -> $l1), exit $rc_a, $graded_a results.json |"
echo "| uninterrupted: submissions per minute | $(awk -v n="$N" -v s="$wall" 'BEGIN { printf "%.1f", s ? 60 * n / s : 0 }') |"
echo "| killed run: results at SIGKILL | $at_kill of $N; processes left after the kill: $outlived |"
echo "| resumed: skipped as done | ${skipped:-?}; exit $rc_b; killed + resumed wall time $wall_b s (load $l2 -> $l3) |"
echo "| grades.csv resumed vs uninterrupted | $same |"
tail -n 3 "$W/a.txt" | sed 's/^/    /'
[ -n "${KEEP:-}" ] && echo "kept in $W (report: $W/a/report.html)"
case $same in identical*) [ "$outlived" = 0 ] ;; *) cat "$W/diff.txt"; exit 1 ;; esac
